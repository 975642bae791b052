"""The cricket points table: results, configurable points and net run rate, proven on
hand-made eleven-a-side matches; and that a cricket competition never shows a football
table."""

from fractions import Fraction

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from cricket.points import points_table
from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.tests.builders import ball, document, import_match, innings
from omnium.testing import error_names
from sports.models import Competition

pytestmark = pytest.mark.django_db

HOME = [f"Home {n}" for n in range(1, 12)]
AWAY = [f"Away {n}" for n in range(1, 12)]
REGISTRY = {name: f"p{n:07d}" for n, name in enumerate(HOME + AWAY)}


def _home(runs, **kw):
    return ball("Home 1", "Away 1", "Home 2", runs=runs, **kw)


def _match(*innings_list, outcome, day, overs=2):
    doc = document(
        *innings_list,
        players={"Home": HOME, "Away": AWAY},
        registry=REGISTRY,
        day=day,
    )
    doc["info"]["outcome"] = outcome
    doc["info"]["overs"] = overs
    return doc


def _all_out_for_one():
    """Away: a wide, then ten batters bowled in ten balls: all out for 1 in 1.4 overs."""
    balls = [ball("Away 1", "Home 1", "Away 2", extras={"wides": 1})]
    strikers = ["Away 1", *AWAY[2:]]
    for striker in strikers:
        balls.append(ball(striker, "Home 1", "Away 2",
                          wickets=[{"player_out": striker, "kind": "bowled"}]))  # fmt: skip
    return innings(balls[:7], balls[7:], team="Away")


@pytest.fixture
def season():
    docs = [
        # Home 24/0 in 2 overs beat Away, all out for 1.
        _match(
            innings([_home(2) for _ in range(6)], [_home(2) for _ in range(6)]),
            _all_out_for_one(),
            outcome={"winner": "Home", "by": {"runs": 23}},
            day="2024-05-01",
        ),
        # Home 30/0 in 2 overs; rain, Away set 20 in 1 over (D/L), win with 21 off 5 balls.
        _match(
            innings([_home(3) for _ in range(6)], [_home(2) for _ in range(6)]),
            innings(
                [ball("Away 1", "Home 1", "Away 2", runs=r) for r in (6, 6, 6, 2, 1)],
                team="Away",
                target={"runs": 20, "overs": 1},
            ),
            outcome={"winner": "Away", "by": {"wickets": 10}, "method": "D/L"},
            day="2024-05-08",
        ),
        # Rain: no result after six balls of the first innings.
        _match(
            innings([_home(2) for _ in range(6)]),
            outcome={"result": "no result"},
            day="2024-05-15",
        ),
    ]
    for doc in docs:
        import_match(doc)
    statistics_rebuild_all(reason="test", actor="integration:test")
    return Competition.objects.get(code="hand-trophy")


def _rows(node):
    return {row["team"]: row for row in points_table(node)}


def test_wins_losses_and_a_no_result_count_with_the_default_points(season):
    rows = _rows(season)
    for team in ("Home", "Away"):
        row = rows[team]
        assert (row["played"], row["won"], row["lost"], row["tied"], row["no_result"]) == (
            3, 1, 1, 0, 1
        )  # fmt: skip
        assert row["points"] == 2 + 0 + 1


def test_net_run_rate_counts_an_all_out_side_at_its_quota_and_credits_the_dl_target(season):
    # From the files: match 1, Home 24 off 12 balls, Away 1 all out (counted at 12 balls);
    # match 2, Home credited with the target less one (19) off the target's 6 balls, Away
    # 21 off 5 balls; the no result counts in neither.
    home_for = Fraction(24 + (20 - 1)) / (Fraction(12, 6) + Fraction(6, 6))
    home_against = Fraction(1 + 21) / (Fraction(12, 6) + Fraction(5, 6))
    expected = home_for - home_against
    rows = _rows(season)
    assert rows["Home"]["net_run_rate"] == round(float(expected), 3)
    assert rows["Away"]["net_run_rate"] == round(float(-expected), 3)
    assert (rows["Home"]["runs_for"], rows["Home"]["overs_for"]) == (43, "3")
    assert (rows["Home"]["runs_against"], rows["Home"]["overs_against"]) == (22, "2.5")


def test_equal_points_and_wins_are_ordered_by_net_run_rate(season):
    assert [row["team"] for row in points_table(season)] == ["Home", "Away"]


def test_points_per_result_come_from_the_competitions_config(season):
    Competition.objects.filter(pk=season.pk).update(config={"points": {"win": 4, "no_result": 2}})
    season.refresh_from_db()
    assert _rows(season)["Home"]["points"] == 4 + 0 + 2


def test_an_unknown_result_in_the_points_config_is_refused_naming_it(season):
    Competition.objects.filter(pk=season.pk).update(config={"points": {"bonus": 1}})
    season.refresh_from_db()
    with pytest.raises(ValidationError, match="bonus"):
        points_table(season)


def test_a_tie_decided_by_a_super_over_is_a_win_unless_the_config_says_tie(season):
    tie = _match(
        innings([_home(1) for _ in range(6)]),
        innings([ball("Away 1", "Home 1", "Away 2", runs=1) for _ in range(6)], team="Away"),
        outcome={"result": "tie", "eliminator": "Away"},
        day="2024-05-22",
    )
    import_match(tie)
    assert _rows(season)["Away"]["won"] == 2
    Competition.objects.filter(pk=season.pk).update(config={"tie_decider_counts": "tie"})
    season.refresh_from_db()
    rows = _rows(season)
    assert (rows["Away"]["won"], rows["Away"]["tied"], rows["Home"]["tied"]) == (1, 1, 1)


def test_the_points_table_api_costs_a_fixed_number_of_queries(
    anon_client, season, django_assert_num_queries
):
    points_table(season)  # the lines are current
    # admission, merge check, node, config ancestors, fixtures, lines state, sides, team
    # lines, targets, absent, adjustments: the same for any number of fixtures
    with django_assert_num_queries(11):
        response = anon_client.get(reverse("cricket-points-table", args=[season.pk]))
    assert [r["team"] for r in response.json()] == ["Home", "Away"]


def test_the_points_table_api_takes_no_parameters(anon_client, season):
    response = anon_client.get(reverse("cricket-points-table", args=[season.pk]), {"x": 1})
    assert response.status_code == 400
    assert "x" in error_names(response)


def test_a_cricket_competitions_standings_are_the_points_table_without_football_columns(
    anon_client, season
):
    rows = anon_client.get(reverse("competition-standings", args=[season.pk])).json()
    assert rows[0]["team"] == "Home"
    assert "net_run_rate" in rows[0]
    assert not {"goals_for", "goals_against", "goal_difference"} & set(rows[0])


def test_a_cricket_competition_page_shows_the_points_table(client, season):
    body = client.get(reverse("sports:competition-detail", args=[season.pk])).content.decode()
    assert ">NRR</th>" in body
    assert ">NR</th>" in body
    assert "GF" not in body
