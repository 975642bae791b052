"""The public statistics page: the query object's views under its vocabulary as select
lists, the older leaderboard names still answering, refusals naming the parameter, a stale
scope saying so, and the page's query count."""

import pytest
from django.urls import reverse

from cricket.stats.models import RefreshStatus, StatisticsRefresh
from cricket.stats.refresh import statistics_rebuild_all, statistics_refresh
from cricket.stats.tests.builders import AWAY, HOME, ball, document, import_match, innings
from cricket.stats.tests.html_tables import read_page, table

pytestmark = pytest.mark.django_db

URL = "cricket_stats:leaderboards"
BOWLED_A = [{"player_out": "A Batter", "kind": "bowled"}]


@pytest.fixture
def matches():
    t20 = import_match(
        document(innings([ball(runs=4), ball(runs=6), ball(wickets=BOWLED_A)]), day="2024-05-01")
    )
    import_match(
        document(
            innings([ball("B Batter", non_striker="A Batter", runs=3)]),
            players={"Home": HOME, "Rivals": AWAY},
            match_type="ODI",
            day="2024-06-01",
        )
    )
    statistics_rebuild_all(reason="test", actor="integration:test")
    # The imports' own refreshes never ran here (no worker): the rebuild did their work.
    StatisticsRefresh.objects.update(status=RefreshStatus.DONE)
    return t20


def _get(client, **params):
    response = client.get(reverse(URL), params)
    assert response.status_code == 200, response.content
    return read_page(response.content.decode())


def test_the_batting_view_shows_statsguru_columns_ordered_by_runs(client, matches):
    head, body = table(_get(client), "leaderboard")
    assert head == ["#", "Player", "Mat", "Inns", "NO", "Runs", "HS", "Ave", "BF", "SR",
                    "100", "50", "0", "4s", "6s"]  # fmt: skip
    # Everyone who played has a row; those who batted come first.
    assert [(r[1], r[5], r[7]) for r in body[:2]] == [
        ("A Batter", "10", "10.00"),
        ("B Batter", "3", "\N{EN DASH}"),
    ]


def test_the_opposition_filter_is_a_select_list_and_narrows_the_rows(client, matches):
    page = _get(client, opposition="Rivals")
    assert page.selects["opposition"] == {
        "options": ["", "Away", "Home", "Rivals"],
        "selected": "Rivals",
    }
    body = table(page, "leaderboard")[1]
    assert [(r[1], r[5]) for r in body[:2]] == [("B Batter", "3"), ("A Batter", "0")]
    assert {r[1] for r in body} == {"A Batter", "B Batter", "C Batter"}  # no T20-only player


def test_each_view_has_its_own_columns_and_keeps_the_filter_in_its_links(client, matches):
    page = _get(client, view="bowling", format="t20")
    head, body = table(page, "leaderboard")
    assert head[2:9] == ["Mat", "Inns", "Balls", "Runs", "Wkts", "BBI", "BBM"]
    assert [(r[1], r[6], r[7]) for r in body] == [("X Bowler", "1", "1/10")]
    assert page.selects["format"]["selected"] == "T20"
    assert "?format=t20&view=team" in page.links
    team_head, _ = table(_get(client, view="team"), "leaderboard")
    assert team_head[1:5] == ["Team", "Mat", "Won", "Lost"]


def test_grouping_adds_the_group_column(client, matches):
    head, body = table(_get(client, group_by="season"), "leaderboard")
    assert head[2] == "Season"
    assert {r[2] for r in body} == {"2024"}


def test_the_older_board_and_match_type_names_still_answer(client, matches):
    body = table(_get(client, board="wickets", match_type="T20"), "leaderboard")[1]
    assert [r[1] for r in body] == ["X Bowler"]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"format": "Tests"}, "format"),
        ({"team": "Nobody"}, "team"),
        ({"x": "1"}, "x"),
        ({"view": "umpiring"}, "view"),
        ({"board": "catches"}, "board"),
        ({"ordering": "-wickets"}, "ordering"),
        ({"page": "0"}, "page"),
    ],
)
def test_a_bad_or_unknown_parameter_is_a_400_naming_it(client, matches, params, named):
    response = client.get(reverse(URL), params)
    assert response.status_code == 400
    assert named in response.content.decode()


def test_a_scope_with_a_refresh_owed_says_so(client, matches):
    assert "may not yet include it" not in client.get(reverse(URL)).content.decode()
    statistics_refresh(fixture_ids=[matches.pk], reason="fix", actor="integration:t")
    assert "may not yet include it" in client.get(reverse(URL)).content.decode()


def test_the_statistics_page_costs_a_fixed_number_of_queries(
    client, matches, django_assert_num_queries
):
    # the rows, the owed refreshes, the filter's four lists; a team name adds its lookup
    # (one query: its source keys are a subquery)
    with django_assert_num_queries(6):
        client.get(reverse(URL))
    with django_assert_num_queries(7):
        client.get(reverse(URL), {"team": "Home", "format": "T20"})
