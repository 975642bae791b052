import pytest
from django.core.exceptions import ValidationError

from sports.models import Fixture, FixtureStatus, StatLine
from sports.results import head_to_head_outcomes
from sports.services import CompetitorSpec, EntrantResult, fixture_create, fixture_results_record
from sports.tests.factories import (
    AthleticsFactory,
    CompetitionFactory,
    CompetitorFactory,
    FixtureFactory,
    ParticipantFactory,
    TeamFactory,
)

pytestmark = pytest.mark.django_db


def test_the_old_empty_rank_draw_is_read_as_a_draw():
    fixture = FixtureFactory(status=FixtureStatus.COMPLETED, result={"outcome": "draw"})
    a, b = CompetitorFactory(fixture=fixture), CompetitorFactory(fixture=fixture)
    assert head_to_head_outcomes(fixture, [a, b]) == {a.pk: "draw", b.pk: "draw"}


def test_equal_ranks_are_a_draw_and_different_ranks_a_win_and_a_loss():
    fixture = FixtureFactory()
    a, b = CompetitorFactory(fixture=fixture, rank=1), CompetitorFactory(fixture=fixture, rank=2)
    assert head_to_head_outcomes(fixture, [a, b]) == {a.pk: "win", b.pk: "loss"}
    b.rank = 1
    assert head_to_head_outcomes(fixture, [a, b]) == {a.pk: "draw", b.pk: "draw"}


@pytest.fixture
def final():
    event = CompetitionFactory(sport=AthleticsFactory(), code="hj", type="event")
    return fixture_create(
        competition=event,
        code="hj-final",
        actor="t",
        competitors=[
            CompetitorSpec(participant=ParticipantFactory(), entry={"country": "ITA"}),
            CompetitorSpec(participant=ParticipantFactory(), entry={"country": "QAT"}),
        ],
    )


def test_a_status_code_outside_the_sports_definition_is_refused(final):
    entrant = final.competitors.first()
    with pytest.raises(ValidationError, match="XX not among"):
        fixture_results_record(
            fixture=final, actor="t", results={entrant.pk: EntrantResult(status_code="XX")}
        )


def test_a_declared_status_code_is_recorded_with_the_canonical_status(final):
    entrant = final.competitors.first()
    fixture_results_record(
        fixture=final,
        actor="t",
        results={entrant.pk: EntrantResult(status_code="DQ", result_status="DSQ")},
    )
    entrant.refresh_from_db()
    assert (entrant.status_code, entrant.result_status) == ("DQ", "DSQ")


def test_recording_the_same_results_twice_writes_nothing_the_second_time(final):
    first, second = final.competitors.order_by("ordinal")
    results = {
        first.pk: EntrantResult(rank=1, result={"mark": "2.36", "medal": "gold"}),
        second.pk: EntrantResult(rank=1, result={"mark": "2.36", "medal": "gold"}),
    }
    assert fixture_results_record(fixture=final, actor="t", results=results) is True
    lines = list(StatLine.objects.filter(fixture=final).values_list("id", "values"))
    assert fixture_results_record(fixture=final, actor="t", results=results) is False
    assert list(StatLine.objects.filter(fixture=final).values_list("id", "values")) == lines


def test_a_pinned_competitor_field_is_not_overwritten(final):
    entrant = final.competitors.first()
    entrant.rank, entrant.pinned = 3, ["rank"]
    entrant.save()
    fixture_results_record(
        fixture=final,
        actor="t",
        results={entrant.pk: EntrantResult(rank=5, result={"mark": "2.20"})},
    )
    entrant.refresh_from_db()
    assert (entrant.rank, entrant.result) == (3, {"mark": "2.20"})


def test_a_result_for_someone_not_in_the_fixture_is_refused(final):
    stranger = CompetitorFactory(participant=TeamFactory())
    with pytest.raises(ValidationError, match="Not a side or entrant"):
        fixture_results_record(
            fixture=final, actor="t", results={stranger.pk: EntrantResult(rank=1)}
        )
    assert Fixture.objects.get(pk=final.pk).version == 0
