"""The statistics definitions (who played, what counts as a catch or an out, the derived
figures), each proven by a hand-made match imported through the real importer."""

import pytest

from cricket.stats.aggregates import Scope, careers
from cricket.stats.engine import lines_rebuild
from cricket.stats.figures import player_rows
from cricket.stats.query import StatsQuery
from cricket.stats.tests.builders import HOME, REGISTRY, ball, document, import_match, innings
from sports.models import ExternalIdMap

pytestmark = pytest.mark.django_db

A, B, C = "aaaa0001", "aaaa0002", "aaaa0003"
X, Y, Z = "bbbb0001", "bbbb0002", "bbbb0003"
SUB, NEW = "cccc0001", "cccc0002"
EXTRA = {**REGISTRY, "S Sub": SUB, "N Newcomer": NEW}


def _build(*docs) -> None:
    fixtures = [import_match(doc) for doc in docs]
    lines_rebuild(fixture_ids=[f.pk for f in fixtures])


def _careers(**scope) -> dict:
    return {row["registry_id"]: row for row in careers(Scope(**scope))}


def test_a_substitute_catch_is_counted_apart_and_the_substitute_did_not_play():
    caught = [{"player_out": "A Batter", "kind": "caught",
               "fielders": [{"name": "S Sub", "substitute": True}]}]  # fmt: skip
    _build(document(innings([ball(runs=1), ball(wickets=caught)]), registry=EXTRA))
    rows = _careers()
    assert SUB not in rows  # no match: a substitute fielder does not play
    fielding = {r["registry_id"]: r for r in player_rows(StatsQuery.parse({}, view="fielding"))}
    assert SUB not in fielding
    assert careers(Scope(), participant_ids=[_participant(SUB)]) == []
    assert rows[X]["catches"] == 0 and rows[Z]["catches"] == 0


def test_the_substitutes_catch_is_theirs_in_a_match_they_play_later():
    caught = [{"player_out": "A Batter", "kind": "caught",
               "fielders": [{"name": "S Sub", "substitute": True}]}]  # fmt: skip
    away = ["X Bowler", "Y Bowler", "S Sub"]
    _build(
        document(innings([ball(wickets=caught)]), registry=EXTRA),
        document(
            innings([ball(bowler="S Sub")]),
            registry=EXTRA,
            players={"Home": HOME, "Away": away},
            day="2024-05-09",
        ),
    )
    row = _careers()[SUB]
    assert (row["matches"], row["catches"], row["substitute_catches"]) == (1, 0, 1)


def test_a_concussion_replacement_who_never_bats_or_bowls_played_the_match():
    replacement = {"match": [{"in": "N Newcomer", "out": "C Batter", "team": "Home",
                              "reason": "concussion_substitute"}]}  # fmt: skip
    first = ball(runs=1)
    first["replacements"] = replacement
    _build(document(innings([first, ball(runs=2)]), registry=EXTRA))
    rows = _careers()
    assert rows[NEW]["matches"] == 1
    assert rows[NEW]["innings"] == 0


def test_caught_and_bowled_credits_the_bowler_with_the_catch_and_the_wicket():
    cab = [{"player_out": "A Batter", "kind": "caught and bowled"}]
    _build(document(innings([ball(runs=3), ball(wickets=cab)])))
    rows = _careers()
    assert (rows[X]["catches"], rows[X]["wickets"], rows[Z]["catches"]) == (1, 1, 0)


def test_a_retired_hurt_innings_is_not_out_and_leaves_the_average_empty():
    hurt = [{"player_out": "A Batter", "kind": "retired hurt"}]
    _build(document(innings([ball(runs=4), ball(runs=2, wickets=hurt)])))
    batting = {r["registry_id"]: r for r in player_rows(StatsQuery.parse({}, view="batting"))}
    row = batting[A]
    assert (row["innings"], row["not_outs"], row["runs"]) == (1, 1, 6)
    assert row["average"] is None
    assert row["highest_score"] == "6*"
    assert row["ducks"] == 0


def test_a_duck_is_an_out_for_nought_and_the_average_is_runs_per_out():
    bowled = [{"player_out": "A Batter", "kind": "bowled"}]
    _build(
        document(innings([ball(wickets=bowled)])),
        document(innings([ball(runs=4), ball(runs=3), ball(wickets=bowled)]), day="2024-05-08"),
        document(innings([ball(runs=6)]), day="2024-05-09"),
    )
    batting = {r["registry_id"]: r for r in player_rows(StatsQuery.parse({}, view="batting"))}
    row = batting[A]
    assert (row["innings"], row["not_outs"], row["ducks"], row["runs"]) == (3, 1, 1, 13)
    assert row["average"] == 6.5  # 13 runs, 2 outs
    assert row["strike_rate"] == 260.0  # 13 runs off 5 balls
    assert row["highest_score"] == "7"


def test_economy_counts_overs_of_the_matchs_own_length():
    eight = [ball(runs=1) for _ in range(8)]
    six = [ball(runs=2) for _ in range(6)]
    _build(
        document(innings(eight), balls_per_over=8),
        document(innings(six), day="2024-05-08"),
    )
    bowling = {r["registry_id"]: r for r in player_rows(StatsQuery.parse({}, view="bowling"))}
    row = bowling[X]
    # 8 runs in one 8-ball over and 12 in one 6-ball over: 20 runs in 2 overs.
    assert (row["balls"], row["runs"], row["economy"]) == (14, 20, 10.0)


def test_four_and_five_wicket_innings_ten_in_a_match_and_best_match_figures():
    def out(name):
        return [{"player_out": name, "kind": "bowled"}]

    batters = [f"P{i}" for i in range(1, 12)]
    registry = {**REGISTRY, **{name: f"dddd{i:04d}" for i, name in enumerate(batters)}}
    players = {"Home": batters, "Away": ["X Bowler", "Y Bowler", "Z Keeper"]}

    def spell(wickets, runs, team="Home"):
        balls = [ball(batters[i], non_striker=batters[i + 1], wickets=out(batters[i]))
                 for i in range(wickets)]  # fmt: skip
        balls += [ball(batters[wickets], non_striker=batters[wickets + 1], runs=1)] * runs
        return innings(balls, team=team)

    _build(
        document(spell(5, 3), spell(5, 10), players=players, registry=registry,
                 match_type="Test"),
        document(spell(4, 1), players=players, registry=registry, day="2024-05-08",
                 match_type="Test"),
    )  # fmt: skip
    row = {r["registry_id"]: r for r in player_rows(StatsQuery.parse({}, view="bowling"))}[X]
    assert (row["four_wickets"], row["five_wickets"], row["ten_wickets"]) == (1, 2, 1)
    assert (row["best_innings"], row["best_match"]) == ("5/3", "10/13")
    # 14 wickets for 14 runs in 28 legal balls
    assert (row["average"], row["strike_rate"]) == (1.0, 2.0)


def _participant(registry_id):
    return ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type="participant", external_id=registry_id
    ).internal_id
