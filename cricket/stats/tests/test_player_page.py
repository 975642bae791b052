"""The public player page: per-format career tables with Statsguru's columns, the innings
list under a filter read from the URL, and its two charts, against figures worked out here
from the hand-made files."""

import pytest
from django.urls import reverse

from cricket.stats.models import RefreshStatus, StatisticsRefresh
from cricket.stats.refresh import statistics_rebuild_all, statistics_refresh
from cricket.stats.tests.builders import AWAY, HOME, ball, document, import_match, innings
from cricket.stats.tests.html_tables import read_page, table
from sports.models import Fixture, Participant

pytestmark = pytest.mark.django_db

BOWLED_X = [{"player_out": "X Bowler", "kind": "bowled"}]
EMPTY = "\N{EN DASH}"  # how a page shows a figure that does not exist (no outs, no average)
BOWLED_A = [{"player_out": "A Batter", "kind": "bowled"}]


@pytest.fixture
def batter():
    # A T20 against Away: A Batter 10* (a four, a six), and bowls X Bowler for one run.
    import_match(
        document(
            innings([ball(runs=4), ball(runs=6)]),
            innings(
                [
                    ball("X Bowler", "A Batter", "Y Bowler", runs=1),
                    ball("X Bowler", "A Batter", "Y Bowler", wickets=BOWLED_X),
                ],
                team="Away",
            ),
            day="2024-05-01",
        )
    )
    # An ODI against Rivals: 60* off ten sixes.
    import_match(
        document(
            innings([ball(runs=6) for _ in range(10)]),
            players={"Home": HOME, "Rivals": AWAY},
            match_type="ODI",
            day="2024-06-01",
        )
    )
    # A second T20 against Away: nine sixes, then bowled for 54.
    import_match(
        document(
            innings([ball(runs=6) for _ in range(9)] + [ball(wickets=BOWLED_A)]),
            day="2024-07-01",
        )
    )
    statistics_rebuild_all(reason="test", actor="integration:test")
    # The imports' own refreshes never ran here (no worker): the rebuild did their work.
    StatisticsRefresh.objects.update(status=RefreshStatus.DONE)
    return Participant.objects.get(name="A Batter")


def _page(client, person, **params):
    response = client.get(reverse("cricket_stats:player", args=[person.pk]), params)
    assert response.status_code == 200, response.content
    return response


def _rows(head, body):
    return {row[0]: dict(zip(head, row, strict=True)) for row in body}


def test_the_career_tables_have_statsguru_columns(client, batter):
    page = read_page(_page(client, batter).content.decode())
    assert table(page, "batting")[0] == [
        "Format", "Mat", "Inns", "NO", "Runs", "HS", "Ave", "BF", "SR",
        "100", "50", "0", "4s", "6s", "Ct", "St",
    ]  # fmt: skip
    assert table(page, "bowling")[0] == [
        "Format", "Mat", "Inns", "Balls", "Runs", "Wkts", "BBI", "BBM",
        "Ave", "Econ", "SR", "4w", "5w", "10w", "Mdns",
    ]  # fmt: skip


def test_a_format_row_shows_not_outs_the_not_out_high_score_and_an_empty_average(client, batter):
    rows = _rows(*table(read_page(_page(client, batter).content.decode()), "batting"))
    t20, odi, every = rows["T20"], rows["ODI"], rows["all"]
    assert [t20[c] for c in ("Mat", "Inns", "NO", "Runs", "HS")] == ["2", "2", "1", "64", "54"]
    assert [t20[c] for c in ("Ave", "BF", "SR", "50", "0")] == ["64.00", "12", "533.33", "1", "0"]
    assert (t20["4s"], t20["6s"]) == ("1", "10")
    assert (odi["NO"], odi["Runs"], odi["HS"], odi["Ave"]) == ("1", "60", "60*", EMPTY)
    assert (every["Mat"], every["Runs"], every["HS"], every["Ave"]) == ("3", "124", "60*", "124.00")


def test_the_bowling_row_shows_best_figures_average_economy_and_strike_rate(client, batter):
    rows = _rows(*table(read_page(_page(client, batter).content.decode()), "bowling"))
    t20 = rows["T20"]
    assert (t20["Balls"], t20["Runs"], t20["Wkts"], t20["BBI"], t20["BBM"]) == (
        "2", "1", "1", "1/1", "1/1",
    )  # fmt: skip
    assert (t20["Ave"], t20["Econ"], t20["SR"]) == ("1.00", "3.00", "2.00")
    assert "ODI" not in rows  # no bowling in the ODI


def test_the_innings_list_is_every_innings_latest_first_with_how_it_ended(client, batter):
    _head, body = table(read_page(_page(client, batter).content.decode()), "innings-list")
    listed = [(r[0], r[3], r[7], r[12]) for r in body]
    assert listed == [
        ("2024-07-01", "Away", "54", "bowled"),
        ("2024-06-01", "Rivals", "60*", "not out"),
        ("2024-05-01", "Away", "10*", "not out"),
    ]


def test_the_innings_list_takes_the_filter_from_the_url_in_any_case(client, batter):
    page = read_page(_page(client, batter, format="odi").content.decode())
    assert [r[0] for r in table(page, "innings-list")[1]] == ["2024-06-01"]
    assert page.selects["format"] == {"options": ["", "ODI", "T20"], "selected": "ODI"}


def test_the_opposition_list_holds_the_players_own_oppositions(client, batter):
    page = read_page(_page(client, batter, opposition="Rivals").content.decode())
    assert page.selects["opposition"] == {"options": ["", "Away", "Rivals"], "selected": "Rivals"}
    assert [r[3] for r in table(page, "innings-list")[1]] == ["Rivals"]
    # The career tables stay whole under an innings filter.
    assert "T20" in _rows(*table(page, "batting"))


def test_the_charts_draw_the_innings_listed_oldest_first(client, batter):
    charts = {c.key: c for c in _page(client, batter).context["charts"]}
    progression, bars = charts["progression"], charts["runs-per-innings"]
    assert list(progression.series[0].values) == [10, 70, 124]
    assert progression.series[0].notes[-1].endswith("average 124.00")
    assert list(bars.series[0].values) == [10, 60, 54]
    assert list(bars.series[0].marks) == [0, 1]  # the two not-out innings
    filtered = {c.key: c for c in _page(client, batter, format="T20").context["charts"]}
    assert filtered["progression"].points == "2"


def test_the_page_renders_its_charts_with_a_table_fallback(client, batter):
    html = _page(client, batter).content.decode()
    assert 'data-chart="progression" data-points="3"' in html
    assert 'data-chart="runs-per-innings" data-points="3"' in html


@pytest.mark.parametrize(
    ("params", "named"),
    [({"format": "Tests"}, "format"), ({"position": "12"}, "position"), ({"x": "1"}, "x")],
)
def test_a_bad_or_unknown_filter_is_a_400_naming_it(client, batter, params, named):
    response = client.get(reverse("cricket_stats:player", args=[batter.pk]), params)
    assert response.status_code == 400
    assert named in response.content.decode()


def test_the_player_page_costs_a_fixed_number_of_queries(client, batter, django_assert_num_queries):
    # the merge chain, the player, career snapshots, merged ids (three readers), the
    # innings, the filter's options, owed refreshes, registry ids; a team name adds its
    # lookup (one query: its source keys are a subquery).
    url = reverse("cricket_stats:player", args=[batter.pk])
    with django_assert_num_queries(10):
        client.get(url)
    with django_assert_num_queries(11):
        client.get(url, {"opposition": "Rivals", "format": "T20"})


def test_a_career_with_a_refresh_owed_says_so(client, batter):
    assert "may not yet include it" not in _page(client, batter).content.decode()
    fixture = Fixture.objects.filter(sport__code="cricket").order_by("scheduled_start").first()
    statistics_refresh(fixture_ids=[fixture.pk], reason="fix", actor="integration:t")
    assert "may not yet include it" in _page(client, batter).content.decode()
