import pytest
from django.core.exceptions import ValidationError

from sports.models import Archetype, FixtureCompetitor, FixtureStatus, ResultStatus, StatLine
from sports.services import CompetitorSpec, fixture_command, fixture_create
from sports.tests.factories import AthleticsFactory, CompetitionFactory, ParticipantFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def final():
    athletics = AthleticsFactory()
    event = CompetitionFactory(sport=athletics, code="100m", type="event")
    runners = [ParticipantFactory(name=f"Runner {i}") for i in range(5)]
    fixture = fixture_create(
        competition=event,
        code="100m-final",
        actor="editor",
        competitors=[CompetitorSpec(participant=r, ordinal=i + 1) for i, r in enumerate(runners)],
    )
    entrants = list(FixtureCompetitor.objects.filter(fixture=fixture).order_by("ordinal"))
    fixture_command(fixture=fixture, command="start", payload={}, actor="judge")
    return fixture, entrants


def record(fixture, competitor, **payload):
    fixture_command(
        fixture=fixture,
        command="record",
        actor="judge",
        payload={"competitor": str(competitor.pk), **payload},
    )


def test_a_ranked_field_takes_its_archetype_from_the_sport(final):
    fixture, _ = final
    assert fixture.archetype == Archetype.RANKED_FIELD


def test_a_dead_heat_keeps_equal_ranks(final):
    fixture, e = final
    record(fixture, e[0], rank=1, mark="9.79")
    record(fixture, e[1], rank=2, mark="9.81")
    record(fixture, e[2], rank=2, mark="9.81")
    record(fixture, e[3], rank=4, mark="9.90")
    fixture_command(fixture=fixture, command="finish", payload={"official": True}, actor="judge")
    ranks = [c.rank for c in FixtureCompetitor.objects.filter(fixture=fixture).order_by("ordinal")]
    assert ranks[:4] == [1, 2, 2, 4]
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.COMPLETED
    assert fixture.results_official is True


def test_irm_codes_map_to_the_canonical_status_and_keep_the_sports_word(final):
    fixture, e = final
    record(fixture, e[3], irm="DQ")
    record(fixture, e[4], irm="DNS")
    rows = {
        c.pk: (c.result_status, c.status_code)
        for c in FixtureCompetitor.objects.filter(fixture=fixture)
    }
    assert rows[e[3].pk] == (ResultStatus.DSQ, "DQ")
    assert rows[e[4].pk] == (ResultStatus.DNS, "DNS")


def test_an_unknown_status_code_is_refused(final):
    fixture, e = final
    with pytest.raises(ValidationError, match="'XYZ' is not a status code"):
        record(fixture, e[0], irm="XYZ")


def test_each_recorded_entrant_gets_a_stat_line_with_place_and_mark(final):
    fixture, e = final
    record(fixture, e[0], rank=1, mark="9.79")
    line = StatLine.objects.get(fixture=fixture, subject=e[0].participant)
    assert (line.subject_role, line.values) == ("entrant", {"place": 1, "mark": "9.79"})
