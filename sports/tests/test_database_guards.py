"""Rules PostgreSQL itself enforces: each test provokes a violation and expects the
database, not Python, to refuse it (writes go around the ORM's validation)."""

import pytest
from django.db import IntegrityError, InternalError, ProgrammingError, connection, transaction

from sports.models import (
    FixtureAmendment,
    FixtureCompetitor,
    TimelineItem,
    TimelineStatus,
)
from sports.services import timeline_append
from sports.tests.factories import (
    CompetitionFactory,
    CompetitorFactory,
    FixtureFactory,
    ParticipantFactory,
    SportFactory,
)

pytestmark = pytest.mark.django_db

DB_ERRORS = (IntegrityError, InternalError, ProgrammingError)


def _refused(sql, params=()):
    with pytest.raises(DB_ERRORS) as excinfo, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return str(excinfo.value)


def test_competitor_needs_a_participant_or_a_placeholder_not_both():
    competitor = CompetitorFactory()
    message = _refused(
        "UPDATE sports_fixturecompetitor SET placeholder_label = 'Winner of QF1' WHERE id = %s",
        [competitor.pk],
    )
    assert "participant_xor_placeholder" in message


def test_competitor_with_neither_participant_nor_placeholder_is_refused():
    competitor = CompetitorFactory()
    message = _refused(
        "UPDATE sports_fixturecompetitor SET participant_id = NULL WHERE id = %s", [competitor.pk]
    )
    assert "participant_xor_placeholder" in message


def test_nested_competitor_must_stay_in_its_parents_fixture():
    team = CompetitorFactory()
    other_fixture = FixtureFactory(sport=team.fixture.sport)
    with pytest.raises(DB_ERRORS, match="must be in its parent's fixture"), transaction.atomic():
        FixtureCompetitor.objects.create(
            fixture=other_fixture, parent=team, participant=ParticipantFactory()
        )


def test_nested_competitor_in_the_same_fixture_is_accepted():
    team = CompetitorFactory()
    player = FixtureCompetitor.objects.create(
        fixture=team.fixture, parent=team, participant=ParticipantFactory()
    )
    assert player.parent_id == team.pk


def test_timeline_item_content_cannot_be_updated():
    item = timeline_append(fixture=FixtureFactory(), event_type="x.y", actor="integration:test")
    message = _refused(
        "UPDATE sports_timelineitem SET payload = '{}'::jsonb || '{\"a\":1}' WHERE id = %s",
        [item.pk],
    )
    assert "timeline_item_content_read_only" in message


def test_timeline_item_cannot_be_deleted():
    item = timeline_append(fixture=FixtureFactory(), event_type="x.y", actor="integration:test")
    assert "timeline_item_no_delete" in _refused(
        "DELETE FROM sports_timelineitem WHERE id = %s", [item.pk]
    )


def test_timeline_item_status_may_flip_from_active_to_voided_only():
    item = timeline_append(fixture=FixtureFactory(), event_type="x.y", actor="integration:test")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE sports_timelineitem SET status = 'VOIDED' WHERE id = %s", [item.pk])
    assert TimelineItem.objects.get(pk=item.pk).status == TimelineStatus.VOIDED
    assert "timeline_item_status_flip" in _refused(
        "UPDATE sports_timelineitem SET status = 'ACTIVE' WHERE id = %s", [item.pk]
    )


def test_a_superseded_item_never_flips_again():
    item = timeline_append(fixture=FixtureFactory(), event_type="x.y", actor="integration:test")
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE sports_timelineitem SET status = 'SUPERSEDED' WHERE id = %s", [item.pk]
        )
    assert TimelineItem.objects.get(pk=item.pk).status == TimelineStatus.SUPERSEDED
    for status in ("ACTIVE", "VOIDED", "CORRECTED"):
        assert "timeline_item_status_flip" in _refused(
            "UPDATE sports_timelineitem SET status = %s WHERE id = %s", [status, item.pk]
        )


def test_a_correction_may_be_voided_or_superseded():
    fixture = FixtureFactory()
    first = timeline_append(fixture=fixture, event_type="x.y", actor="integration:test")
    correction = timeline_append(
        fixture=fixture, event_type="x.y", actor="integration:test", supersedes=first
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE sports_timelineitem SET status = 'VOIDED' WHERE id = %s", [correction.pk]
        )
    assert TimelineItem.objects.get(pk=correction.pk).status == TimelineStatus.VOIDED


def test_amendments_are_insert_only():
    fixture = FixtureFactory()
    amendment = FixtureAmendment.objects.create(
        fixture=fixture, field="name", old_value="a", new_value="b", reason="typo"
    )
    assert "amendment_insert_only" in _refused(
        "UPDATE sports_fixtureamendment SET reason = 'other' WHERE id = %s", [amendment.pk]
    )
    assert "amendment_insert_only" in _refused(
        "DELETE FROM sports_fixtureamendment WHERE id = %s", [amendment.pk]
    )


def test_codes_are_unique_among_sportless_roots():
    CompetitionFactory(sport=None, code="paris-2024", type="games")
    with pytest.raises(IntegrityError, match="uq_competition_code_no_sport"), transaction.atomic():
        CompetitionFactory(sport=None, code="paris-2024", type="games")


def test_the_same_code_may_exist_once_per_sport():
    CompetitionFactory(sport=SportFactory(code="a"), code="cup")
    CompetitionFactory(sport=SportFactory(code="b"), code="cup")
    with pytest.raises(IntegrityError, match="uq_competition_sport_code"), transaction.atomic():
        CompetitionFactory(sport=SportFactory(code="a"), code="cup")


def test_participant_country_must_be_three_capital_letters():
    participant = ParticipantFactory()
    assert "participant_country_shape" in _refused(
        "UPDATE sports_participant SET country = 'gb' WHERE id = %s", [participant.pk]
    )


def test_a_node_below_a_sport_node_must_carry_that_sport():
    football = CompetitionFactory(sport=SportFactory(code="football"), code="league")
    CompetitionFactory(sport=football.sport, parent=football, code="season")
    other = SportFactory(code="cricket")
    with pytest.raises(DB_ERRORS, match="must carry that sport"), transaction.atomic():
        CompetitionFactory(sport=other, parent=football, code="stray")
