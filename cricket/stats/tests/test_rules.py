"""Each derivation rule proven by a hand-made match imported through the real importer."""

import pytest

from cricket.stats.aggregates import Scope, careers
from cricket.stats.engine import lines_rebuild
from cricket.stats.models import (
    CricketBattingLine,
    CricketBowlingLine,
    CricketTeamInningsLine,
)
from cricket.stats.tests.builders import REGISTRY, ball, document, import_match, innings
from cricket.tests.factories import SubmissionFactory

pytestmark = pytest.mark.django_db

A, B, C = "aaaa0001", "aaaa0002", "aaaa0003"
X, Y, Z = "bbbb0001", "bbbb0002", "bbbb0003"


def _build(*docs) -> list:
    fixtures = [import_match(doc) for doc in docs]
    lines_rebuild(fixture_ids=[f.pk for f in fixtures])
    return fixtures


def _careers(**scope) -> dict:
    return {row["registry_id"]: row for row in careers(Scope(**scope))}


def test_seven_deliveries_under_one_printed_label_are_seven_balls_faced_one_legal():
    over = [ball(runs=0, extras={"noballs": 1}) for _ in range(6)] + [ball(runs=1)]
    (fixture,) = _build(document(innings(over)))
    labels = set(fixture.innings.get().deliveries.current().values_list("ball_label", flat=True))
    assert labels == {"0.1"}
    rows = _careers()
    assert (rows[A]["balls_faced"], rows[X]["legal_balls"], rows[X]["runs_conceded"]) == (7, 1, 7)


def test_a_no_ball_with_byes_charges_the_bowler_the_no_ball_only():
    (fixture,) = _build(document(innings([ball(extras={"noballs": 1, "byes": 2})])))
    rows = _careers()
    assert (rows[X]["runs_conceded"], rows[X]["legal_balls"], rows[A]["balls_faced"]) == (1, 0, 1)
    assert CricketTeamInningsLine.objects.get(fixture=fixture).total == 3


def test_byes_run_off_a_wide_are_wide_runs_charged_to_the_bowler():
    _build(document(innings([ball(extras={"wides": 1, "byes": 2}), ball(runs=1)])))
    rows = _careers()
    assert (rows[X]["runs_conceded"], rows[A]["balls_faced"], rows[X]["legal_balls"]) == (4, 1, 1)


def test_an_explicit_zero_wide_is_a_legal_ball():
    over = [ball(extras={"wides": 0}) for _ in range(6)]
    _build(document(innings(over)))
    rows = _careers()
    assert (rows[X]["legal_balls"], rows[X]["maidens"], rows[A]["balls_faced"]) == (6, 1, 6)


def test_a_four_run_rather_than_struck_to_the_rope_is_not_a_boundary():
    _build(document(innings([ball(runs=4, non_boundary=True), ball(runs=4)])))
    row = _careers()[A]
    assert (row["runs"], row["fours"]) == (8, 1)


def test_innings_penalty_runs_count_in_the_total_but_never_against_the_bowler():
    doc = document(
        innings([ball(runs=1), ball(extras={"penalty": 5})], penalty_runs={"pre": 5, "post": 2})
    )
    (fixture,) = _build(doc)
    team = CricketTeamInningsLine.objects.get(fixture=fixture)
    assert (team.total, team.penalty_runs) == (13, 7)
    assert _careers()[X]["runs_conceded"] == 1


def test_a_run_out_is_not_the_bowlers_wicket_but_is_the_batters_out():
    run_out = [{"player_out": "A Batter", "kind": "run out", "fielders": [{"name": "Z Keeper"}]}]
    _build(document(innings([ball(runs=1, wickets=run_out)])))
    rows = _careers()
    assert (rows[X]["wickets"], rows[A]["outs"], rows[Z]["run_outs"]) == (0, 1, 1)


def test_a_retired_hurt_batter_is_not_out_and_not_a_team_wicket():
    retired = [{"player_out": "A Batter", "kind": "retired hurt"}]
    (fixture,) = _build(document(innings([ball(runs=2, wickets=retired)])))
    row = _careers()[A]
    assert (row["innings"], row["outs"], row["runs"]) == (1, 0, 2)
    assert CricketTeamInningsLine.objects.get(fixture=fixture).wickets == 0


def test_a_super_over_is_left_out_by_default_and_counted_in_the_super_over_scope():
    doc = document(
        innings([ball(runs=1)]),
        innings([ball("X Bowler", "A Batter", "Y Bowler", runs=6)], team="Away", super_over=True),
    )
    _build(doc)
    standard, super_only = _careers(), _careers(super_overs="only")
    assert X not in {r for r, row in standard.items() if row["innings"]}
    assert (super_only[X]["runs"], super_only[X]["sixes"], super_only[A]["runs_conceded"]) == (
        6,
        1,
        6,
    )
    assert A not in {r for r, row in super_only.items() if row["innings"]}


def test_one_registry_id_under_two_names_is_one_career():
    renamed = {**REGISTRY, "A Batter-Renamed": A}
    del renamed["A Batter"]
    second = document(
        innings([ball("A Batter-Renamed", runs=3)]),
        players={"Home": ["A Batter-Renamed", "B Batter", "C Batter"], "Away": ["X Bowler"]},
        registry=renamed,
        day="2024-06-01",
    )
    _build(document(innings([ball(runs=2)])), second)
    row = _careers()[A]
    assert (row["matches"], row["innings"], row["runs"]) == (2, 2, 5)


def test_two_registry_ids_under_one_name_are_two_careers():
    registry = {"Abdul Rahman": "dddd0001", "B Batter": B, "X Bowler": X}
    first = document(
        innings([ball("Abdul Rahman", runs=4)]),
        players={"Home": ["Abdul Rahman", "B Batter"], "Away": ["X Bowler"]},
        registry=registry,
    )
    second = document(
        innings([ball("Abdul Rahman", runs=1)]),
        players={"Home": ["Abdul Rahman", "B Batter"], "Away": ["X Bowler"]},
        registry={**registry, "Abdul Rahman": "dddd0002"},
        day="2024-06-01",
    )
    _build(first, second)
    rows = _careers()
    assert (rows["dddd0001"]["runs"], rows["dddd0002"]["runs"]) == (4, 1)
    assert rows["dddd0001"]["participant_id"] != rows["dddd0002"]["participant_id"]


def test_a_miscounted_five_ball_over_can_be_a_maiden_and_a_short_over_cannot():
    five = [ball() for _ in range(5)]
    _build(
        document(innings(five, [ball(bowler="Y Bowler") for _ in range(5)],
                         miscounted_overs={"0": {"balls": "5"}}))
    )  # fmt: skip
    rows = _careers()
    assert (rows[X]["maidens"], rows[Y]["maidens"]) == (1, 0)


def test_an_over_shared_by_two_bowlers_is_no_ones_maiden():
    over = [ball() for _ in range(3)] + [ball(bowler="Y Bowler") for _ in range(3)]
    _build(document(innings(over)))
    rows = _careers()
    assert (rows[X]["maidens"], rows[Y]["maidens"]) == (0, 0)


def test_caught_and_bowled_is_the_bowlers_catch_and_a_substitutes_catch_is_apart():
    wickets = [
        ball(wickets=[{"player_out": "A Batter", "kind": "caught and bowled"}]),
        ball("C Batter", wickets=[{"player_out": "C Batter", "kind": "caught",
                                   "fielders": [{"name": "Z Keeper", "substitute": True}]}]),
        ball("B Batter", "X Bowler", "A Batter",
             wickets=[{"player_out": "B Batter", "kind": "caught",
                       "fielders": [{"substitute": True}]}]),
    ]  # fmt: skip
    _build(document(innings(wickets)))
    rows = _careers()
    assert (rows[X]["catches"], rows[X]["wickets"]) == (1, 3)
    assert (rows[Z]["catches"], rows[Z]["substitute_catches"]) == (0, 1)


def test_a_timed_out_batter_has_an_innings_without_facing_a_ball():
    timed = [{"player_out": "C Batter", "kind": "timed out"}]
    _build(document(innings([ball(runs=1, wickets=timed)])))
    row = _careers()[C]
    assert (row["innings"], row["balls_faced"], row["outs"]) == (1, 0, 1)
    assert _careers()[X]["wickets"] == 0


def test_best_figures_take_most_wickets_then_fewest_runs():
    out = [{"player_out": "A Batter", "kind": "bowled"}]
    cheap = document(innings([ball(runs=1), ball(wickets=out)]))
    dear = document(innings([ball(runs=6), ball(wickets=out)]), day="2024-06-01")
    none = document(innings([ball(runs=0)]), day="2024-07-01")
    _build(cheap, dear, none)
    row = _careers()[X]
    assert (row["best_wickets"], row["best_runs"], row["wickets"]) == (1, 1, 2)


def test_fifties_and_hundreds_are_counted_from_single_innings():
    def knock(total: int, day: str) -> dict:
        sixes, rest = divmod(total, 6)
        balls = [ball(runs=6) for _ in range(sixes)] + ([ball(runs=rest)] if rest else [])
        return document(innings(*[balls[i : i + 6] for i in range(0, len(balls), 6)]), day=day)

    _build(knock(99, "2024-05-01"), knock(100, "2024-05-02"), knock(49, "2024-05-03"))
    row = _careers()[A]
    assert (row["fifties"], row["hundreds"], row["highest"]) == (1, 1, 100)


def test_rebuilding_twice_gives_identical_rows():
    (fixture,) = _build(document(innings([ball(runs=4), ball(extras={"wides": 1})])))

    def snapshot():
        return [
            sorted(model.objects.filter(fixture=fixture).values_list(*fields))
            for model, fields in (
                (CricketBattingLine, ("participant_id", "runs", "balls_faced", "fours", "outs")),
                (CricketBowlingLine, ("participant_id", "legal_balls", "runs_conceded")),
                (CricketTeamInningsLine, ("innings_id", "total", "wickets", "legal_balls")),
            )
        ]

    before = snapshot()
    lines_rebuild(fixture_ids=[fixture.pk])
    lines_rebuild(fixture_ids=[fixture.pk])
    assert snapshot() == before


def test_a_fixture_that_is_not_public_has_no_lines():
    (fixture,) = _build(document(innings([ball(runs=4)])))
    # An accepted submission can never be unaccepted: the fixture is re-pointed at one that
    # is not accepted yet.
    pending = SubmissionFactory(accepted=False, accepted_at=None)
    type(fixture).objects.filter(pk=fixture.pk).update(first_seen_in=pending)
    lines_rebuild(fixture_ids=[fixture.pk])
    assert not CricketBattingLine.objects.filter(fixture=fixture).exists()


def test_scopes_narrow_by_format_gender_and_dates():
    _build(
        document(innings([ball(runs=1)])),
        document(innings([ball(runs=10)]), match_type="ODI", day="2023-01-01"),
    )
    assert _careers()[A]["runs"] == 11
    assert _careers(format_code="ODI")[A]["runs"] == 10
    assert _careers(gender="female") == {}
    import datetime as dt

    assert _careers(date_from=dt.date(2024, 1, 1))[A]["runs"] == 1
