"""Every write that can change a league table drops exactly the cached tables that fold
over it, inside the writing service's transaction; fixture titles follow participant
merges."""

from datetime import date

import pytest

from sports.models import Fixture, FixtureAmendment, StatTable, TableKind
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    competition_create,
    competition_merge,
    competition_move,
    competition_update,
    fixture_amend,
    fixture_create,
    fixture_merge,
    fixture_results_record,
    participant_merge,
    points_adjustment_create,
    stat_table,
)
from sports.tests.factories import FootballFactory, TeamFactory, publish

pytestmark = pytest.mark.django_db

STANDINGS = TableKind.STANDINGS


@pytest.fixture
def tree():
    football = FootballFactory()
    league = competition_create(
        code="pl", name="Premier League", type="league", sport=football, actor="t"
    )
    old = competition_create(
        code="pl-24",
        name="2024/25",
        type="season",
        parent=league,
        start_date=date(2024, 8, 1),
        actor="t",
    )
    season = competition_create(
        code="pl-25",
        name="2025/26",
        type="season",
        parent=league,
        start_date=date(2025, 8, 1),
        actor="t",
    )
    matchday = competition_create(
        code="pl-25-1", name="Matchday 1", type="round", parent=season, actor="t"
    )
    teams = {
        n: TeamFactory(name=n)
        for n in ("Wolves", "Wolverhampton Wanderers", "Arsenal", "Chelsea", "Everton")
    }
    return {"league": league, "old": old, "season": season, "matchday": matchday, **teams}


def play(node, home, away, score, *, code=None):
    """A completed, published fixture ``home`` v ``away`` under ``node``."""
    fixture = fixture_create(
        competition=node,
        code=code or f"{node.code}-{home.name}-{away.name}",
        actor="t",
        name=f"{home.name} v {away.name}",
        competitors=[
            CompetitorSpec(participant=home, alignment="home"),
            CompetitorSpec(participant=away, alignment="away"),
        ],
    )
    publish(fixture)
    sides = {c.alignment: c for c in fixture.competitors.all()}
    h, a = score
    fixture_results_record(
        fixture=fixture,
        actor="t",
        status="COMPLETED",
        results={
            sides["home"].pk: EntrantResult(rank=1 if h >= a else 2, result={"score": h}),
            sides["away"].pk: EntrantResult(rank=1 if a >= h else 2, result={"score": a}),
        },
    )
    fixture.refresh_from_db()
    return fixture


def rows(node, **kwargs):
    node.refresh_from_db()  # its nested-set columns, as writes below it left them
    return {r["team"]: r for r in stat_table(node=node, kind=STANDINGS, **kwargs)}


def cached(node):
    return StatTable.objects.filter(competition=node, kind=STANDINGS).exists()


def test_participant_merge_refreshes_league_table(tree):
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    play(tree["matchday"], tree["Wolverhampton Wanderers"], tree["Chelsea"], (1, 0))
    assert "Wolves" in rows(tree["league"])  # the league's table, cached on its season

    participant_merge(
        loser=tree["Wolves"], survivor=tree["Wolverhampton Wanderers"], actor="t", note="dup"
    )

    table = rows(tree["league"])
    assert sorted(table) == ["Arsenal", "Chelsea", "Wolverhampton Wanderers"]
    assert (
        table["Wolverhampton Wanderers"]["played"],
        table["Wolverhampton Wanderers"]["points"],
    ) == (2, 6)


def test_participant_merge_keeps_the_tables_that_never_folded_the_loser(tree):
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    play(tree["old"], tree["Chelsea"], tree["Everton"], (0, 0))
    rows(tree["old"])
    rows(tree["season"])

    participant_merge(
        loser=tree["Wolves"], survivor=tree["Wolverhampton Wanderers"], actor="t", note="dup"
    )

    assert cached(tree["old"]) and not cached(tree["season"])


def test_points_deduction_follows_participant_merge(tree):
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    points_adjustment_create(
        competition=tree["season"],
        participant=tree["Wolves"],
        points=-2,
        reason="fielded an ineligible player",
        actor="t",
    )
    rows(tree["league"])

    participant_merge(
        loser=tree["Wolves"], survivor=tree["Wolverhampton Wanderers"], actor="t", note="dup"
    )

    survivor = rows(tree["league"])["Wolverhampton Wanderers"]
    assert (survivor["points"], survivor["adjustment"]) == (1, -2)
    assert "Wolves" not in rows(tree["league"])


def test_fixture_title_follows_merge(tree):
    fixture = play(tree["matchday"], tree["Arsenal"], tree["Wolves"], (0, 1))

    participant_merge(
        loser=tree["Wolves"], survivor=tree["Wolverhampton Wanderers"], actor="t", note="dup"
    )

    fixture.refresh_from_db()
    assert fixture.name == "Arsenal v Wolverhampton Wanderers"
    amendment = FixtureAmendment.objects.get(fixture=fixture, field="name")
    assert (amendment.old_value, amendment.new_value) == ("Arsenal v Wolves", fixture.name)


def test_a_title_a_person_set_by_hand_is_left_alone_by_a_merge(tree):
    fixture = play(tree["matchday"], tree["Arsenal"], tree["Wolves"], (0, 1))
    fixture_amend(
        fixture=fixture,
        changes={"name": "Arsenal v Wolves, opening day"},
        actor="t",
        reason="named as the club's programme names it",
    )

    participant_merge(
        loser=tree["Wolves"], survivor=tree["Wolverhampton Wanderers"], actor="t", note="dup"
    )

    fixture.refresh_from_db()
    assert fixture.name == "Arsenal v Wolves, opening day"
    assert FixtureAmendment.objects.filter(fixture=fixture, field="name").count() == 1


def test_fixture_title_renames_whole_sides_only(tree):
    india, bharat = TeamFactory(name="India"), TeamFactory(name="Bharat")
    india_a = TeamFactory(name="India A")
    series = play(tree["matchday"], india, tree["Chelsea"], (1, 0), code="odi")
    other = play(tree["matchday"], india_a, india, (1, 0), code="a-team")
    Fixture.objects.filter(pk=series.pk).update(name="India v Chelsea, 3rd ODI")

    participant_merge(loser=india, survivor=bharat, actor="t", note="renamed")

    series.refresh_from_db()
    other.refresh_from_db()
    assert series.name == "Bharat v Chelsea, 3rd ODI"
    assert other.name == "India A v Bharat"


def test_fixture_merge_refreshes_league_table(tree):
    first = play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1), code="a")
    twin = play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1), code="b")
    assert rows(tree["league"])["Wolves"]["played"] == 2

    fixture_merge(loser=twin, survivor=first, actor="t", reason="the same match twice")

    assert rows(tree["league"])["Wolves"]["played"] == 1


def test_points_adjustment_refreshes_league_table(tree):
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    assert rows(tree["league"])["Wolves"]["points"] == 3

    points_adjustment_create(
        competition=tree["season"],
        participant=tree["Wolves"],
        points=-3,
        reason="administration",
        actor="t",
    )

    assert rows(tree["league"])["Wolves"]["points"] == 0


def test_fixture_status_change_refreshes_league_table(tree):
    fixture = play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    assert "Wolves" in rows(tree["league"])

    fixture_amend(fixture=fixture, changes={"status": "ABANDONED"}, actor="t", reason="fog")

    assert rows(tree["league"]) == {}


def test_config_change_refreshes_the_tables_that_fold_under_it(tree):
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    assert rows(tree["league"])["Wolves"]["points"] == 3

    competition_update(node=tree["league"], changes={"config": {"points": {"win": 2}}}, actor="t")

    assert rows(tree["league"])["Wolves"]["points"] == 2


def test_config_change_keeps_the_tables_above_it(tree):
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    rows(tree["season"])
    rows(tree["matchday"])

    competition_update(node=tree["matchday"], changes={"config": {"points": {"win": 2}}}, actor="t")

    assert cached(tree["season"]) and not cached(tree["matchday"])


def test_moving_a_round_refreshes_the_tables_at_both_places(tree):
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    assert "Wolves" in rows(tree["season"]) and rows(tree["old"]) == {}

    competition_move(node=tree["matchday"], new_parent=tree["old"], actor="t", reason="misfiled")

    assert rows(tree["season"]) == {}
    assert "Wolves" in rows(tree["old"])


def test_moving_a_round_refreshes_its_own_table_under_the_inherited_config(tree):
    competition_update(node=tree["old"], changes={"config": {"points": {"win": 2}}}, actor="t")
    play(tree["matchday"], tree["Wolves"], tree["Arsenal"], (2, 1))
    assert rows(tree["matchday"])["Wolves"]["points"] == 3

    competition_move(node=tree["matchday"], new_parent=tree["old"], actor="t", reason="misfiled")

    assert rows(tree["matchday"])["Wolves"]["points"] == 2


def test_competition_merge_carries_its_results_to_the_survivor(tree):
    duplicate = competition_create(
        code="pl-25-1-dup", name="Matchday 1", type="round", parent=tree["old"], actor="t"
    )
    play(duplicate, tree["Wolves"], tree["Arsenal"], (2, 1))
    assert "Wolves" in rows(tree["old"]) and rows(tree["season"]) == {}

    competition_merge(loser=duplicate, survivor=tree["matchday"], actor="t", reason="filed twice")

    assert rows(tree["old"]) == {}
    assert rows(tree["season"])["Wolves"]["played"] == 1
