"""Optimistic concurrency on fixtures: every write may name the version it was made
against, and is refused under the fixture's row lock when the fixture has moved on."""

import pytest

from sports.models import Fixture, FixtureAmendment, SubmissionKind, TimelineItem
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    external_id_link,
    fixture_amend,
    fixture_award,
    fixture_command,
    fixture_create,
    fixture_import,
    fixture_merge,
    fixture_pin,
    fixture_results_record,
    fixture_set_competitors,
    fixture_unpin,
    submission_record,
    timeline_append,
    timeline_void,
)
from sports.services.common import FixtureVersionConflict
from sports.tests.factories import CompetitionFactory, FootballFactory, TeamFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def league():
    return CompetitionFactory(sport=FootballFactory(), code="league", format_code="90min")


@pytest.fixture
def match(league):
    return fixture_create(
        competition=league,
        code="m1",
        actor="editor",
        competitors=[
            CompetitorSpec(participant=TeamFactory(name="Rovers"), alignment="home"),
            CompetitorSpec(participant=TeamFactory(name="United"), alignment="away"),
        ],
    )


def _state(fixture):
    row = Fixture.objects.get(pk=fixture.pk)
    return row.version, row.last_seq, row.name, row.pinned, row.status


def test_an_amendment_against_the_current_version_is_applied(match):
    fixture_amend(
        fixture=match, changes={"name": "Derby"}, reason="renamed", actor="t", expected_version=0
    )
    assert _state(match)[0::2] == (1, "Derby", "SCHEDULED")


def test_an_amendment_against_an_old_version_is_refused_naming_both_versions(match):
    fixture_amend(fixture=match, changes={"name": "Derby"}, reason="first", actor="t")
    before = _state(match)
    with pytest.raises(FixtureVersionConflict) as refused:
        fixture_amend(
            fixture=match, changes={"name": "Late"}, reason="second", actor="t", expected_version=0
        )
    assert (refused.value.fixture_id, refused.value.expected, refused.value.current) == (
        match.pk,
        0,
        1,
    )
    assert "changed since version 0: it is now at version 1" in refused.value.messages[0]
    assert _state(match) == before
    assert FixtureAmendment.objects.filter(fixture=match).count() == 1


def test_a_stale_amendment_is_refused_even_when_it_would_change_nothing(match):
    fixture_amend(fixture=match, changes={"name": "Derby"}, reason="first", actor="t")
    with pytest.raises(FixtureVersionConflict):
        fixture_amend(
            fixture=match, changes={"name": "Derby"}, reason="again", actor="t", expected_version=0
        )


def _side(fixture, alignment):
    return fixture.competitors.get(alignment=alignment)


def _submission():
    return submission_record(kind=SubmissionKind.HAND_ENTRY, source_code="feed", actor="t")


# Each fixture write, called with a version the fixture is not at.
STALE_WRITES = {
    "amend": lambda f: fixture_amend(
        fixture=f, changes={"name": "X"}, reason="r", actor="t", expected_version=7
    ),
    "set_competitors": lambda f: fixture_set_competitors(
        fixture=f, competitors=[], reason="r", actor="t", expected_version=7
    ),
    "pin": lambda f: fixture_pin(fixture=f, fields=["name"], actor="t", expected_version=7),
    "unpin": lambda f: fixture_unpin(fixture=f, fields=["name"], actor="t", expected_version=7),
    "merge": lambda f: fixture_merge(
        loser=f,
        survivor=fixture_create(competition=f.competition, code="m2", actor="t"),
        reason="r",
        actor="t",
        expected_version=7,
    ),
    "command": lambda f: fixture_command(
        fixture=f, command="start", payload={}, actor="t", expected_version=7
    ),
    "import": lambda f: fixture_import(
        source_code="feed",
        external_id="m1",
        competition=f.competition,
        code="m1",
        values={"name": "X"},
        competitors=[],
        submission=_submission(),
        actor="t",
        expected_version=7,
    ),
    "results_record": lambda f: fixture_results_record(
        fixture=f,
        results={_side(f, "home").pk: EntrantResult(rank=1)},
        actor="t",
        expected_version=7,
    ),
    "award": lambda f: fixture_award(
        fixture=f, winner=_side(f, "home"), reason="walkover", actor="t", expected_version=7
    ),
    "timeline_append": lambda f: timeline_append(
        fixture=f, event_type="note.add", actor="t", expected_version=7
    ),
    "timeline_void": lambda f: timeline_void(
        item=TimelineItem.objects.get(fixture=f, seq=1),
        reason="r",
        actor="t",
        expected_version=7,
    ),
}


@pytest.mark.parametrize("write", sorted(STALE_WRITES))
def test_every_fixture_write_refuses_a_version_the_fixture_is_not_at(match, write):
    external_id_link(
        source_code="feed", entity_type="fixture", external_id="m1", internal_id=match.pk, actor="t"
    )
    before = _state(match)
    items = list(TimelineItem.objects.filter(fixture=match).values_list("seq", "status"))
    with pytest.raises(FixtureVersionConflict, match="it is now at version 0"):
        STALE_WRITES[write](match)
    assert _state(match) == before
    assert list(TimelineItem.objects.filter(fixture=match).values_list("seq", "status")) == items


def test_a_command_moves_the_fixtures_version_on(match):
    fixture_command(fixture=match, command="start", payload={}, actor="t", expected_version=0)
    assert _state(match)[0] == 1
    with pytest.raises(FixtureVersionConflict):
        fixture_command(fixture=match, command="finish", payload={}, actor="t", expected_version=0)


def test_a_resent_command_returns_its_first_item_whatever_version_it_names(match):
    first = fixture_command(
        fixture=match, command="start", payload={}, actor="t", idempotency_key="k1"
    )
    again = fixture_command(
        fixture=match,
        command="start",
        payload={},
        actor="t",
        idempotency_key="k1",
        expected_version=0,
    )
    assert again.pk == first.pk


def test_a_result_that_changes_only_the_sides_moves_the_version_on(match):
    fixture_results_record(
        fixture=match,
        results={_side(match, "home").pk: EntrantResult(rank=1, result={"score": 2})},
        actor="t",
        expected_version=0,
    )
    assert _state(match)[0] == 1
