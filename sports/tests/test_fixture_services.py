import pytest
from django.core.exceptions import ValidationError

from sports.models import FixtureAmendment, TimelineItem
from sports.services import (
    CompetitorSpec,
    fixture_amend,
    fixture_create,
    fixture_merge,
    fixture_pin,
    fixture_set_competitors,
    fixture_unpin,
)
from sports.tests.factories import (
    CompetitionFactory,
    FootballFactory,
    TeamFactory,
    VenueFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fixture(editor):
    league = CompetitionFactory(sport=FootballFactory(), code="league")
    return fixture_create(competition=league, code="m1", actor=editor, meta={"match_number": 1})


def test_creating_a_fixture_pins_the_sports_definition_version(fixture):
    assert fixture.definition_version.version == 1
    assert TimelineItem.objects.get(fixture=fixture).event_type == "fixture.create"


def test_meta_that_breaks_the_sport_definition_is_refused(editor):
    league = CompetitionFactory(sport=FootballFactory(), code="l2")
    with pytest.raises(ValidationError, match="attendance"):
        fixture_create(competition=league, code="m2", actor=editor, meta={"attendance": -5})


def test_an_amendment_records_before_after_who_and_why_and_pins(fixture, editor):
    venue = VenueFactory()
    fixture_amend(
        fixture=fixture,
        changes={"venue": venue, "name": "Derby"},
        reason="moved by the league",
        actor=editor,
    )
    fixture.refresh_from_db()
    rows = {a.field: a for a in FixtureAmendment.objects.filter(fixture=fixture)}
    assert rows["venue"].new_value == str(venue.pk) and rows["venue"].actor == editor
    assert rows["name"].old_value == "" and rows["name"].reason == "moved by the league"
    assert set(fixture.pinned) == {"name", "venue"}
    assert fixture.version == 1
    assert TimelineItem.objects.filter(fixture=fixture, event_type="fixture.amend").count() == 1


def test_an_amendment_needs_a_reason(fixture, editor):
    with pytest.raises(ValidationError, match="reason"):
        fixture_amend(fixture=fixture, changes={"name": "X"}, reason="", actor=editor)


def test_setting_sides_records_the_old_and_new_line_up(fixture, editor):
    a, b = TeamFactory(), TeamFactory()
    fixture_set_competitors(
        fixture=fixture,
        reason="draw made",
        actor=editor,
        competitors=[
            CompetitorSpec(participant=a, alignment="home"),
            CompetitorSpec(placeholder_label="Winner of QF1", alignment="away"),
        ],
    )
    fixture_set_competitors(
        fixture=fixture,
        reason="QF1 played",
        actor=editor,
        competitors=[
            CompetitorSpec(participant=a, alignment="home"),
            CompetitorSpec(participant=b, alignment="away"),
        ],
    )
    last = FixtureAmendment.objects.filter(fixture=fixture, field="competitors").last()
    assert [c["placeholder"] for c in last.old_value] == [None, "Winner of QF1"]
    assert [c["participant"] for c in last.new_value] == [str(a.pk), str(b.pk)]


def test_pin_and_unpin_are_logged(fixture, editor):
    fixture_pin(fixture=fixture, fields=["scheduled_start"], actor=editor)
    fixture_unpin(fixture=fixture, fields=["scheduled_start"], actor=editor)
    fixture.refresh_from_db()
    assert fixture.pinned == []
    assert list(
        TimelineItem.objects.filter(fixture=fixture).values_list("event_type", flat=True)
    ) == ["fixture.create", "fixture.pin", "fixture.unpin"]


def test_merging_fixtures_keeps_the_loser_and_logs_both(fixture, editor):
    twin = fixture_create(competition=fixture.competition, code="m1-dup", actor=editor)
    fixture_merge(loser=twin, survivor=fixture, actor=editor, reason="entered twice")
    twin.refresh_from_db()
    assert twin.merged_into_id == fixture.pk
    assert TimelineItem.objects.filter(event_type="fixture.merge").count() == 2


def test_an_amendment_by_a_person_writes_an_audit_row(fixture, editor):
    from accounts.models import AuditEntry

    fixture_amend(fixture=fixture, changes={"name": "Derby"}, reason="renamed", actor=editor)
    entry = AuditEntry.objects.get(action="fixture.amend")
    assert entry.actor == editor and entry.detail == {
        "changes": {"name": "Derby"},
        "reason": "renamed",
    }
