"""Each record kind against a value computed here straight from the hand-made files, the
filters, their refusals and the query counts."""

from collections import defaultdict

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from cricket.stats.partnerships import records_ensure
from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.tests.builders import REGISTRY, ball, document, import_match, innings
from omnium.testing import error_names

pytestmark = pytest.mark.django_db

CREDITED = {"bowled", "caught", "lbw", "stumped"}
CAUGHT_Y = [{"player_out": "Y Bowler", "kind": "caught", "fielders": [{"name": "A Batter"}]}]
BOWLED = {name: [{"player_out": name, "kind": "bowled"}] for name in REGISTRY}


def _away(batter, non_striker, bowler="A Batter", **kw):
    return ball(batter, bowler, non_striker, **kw)


def _docs():
    t20 = document(
        innings(
            [ball(runs=6) for _ in range(6)],
            [
                ball(runs=6),
                ball(runs=6),
                ball(runs=4),
                ball("B Batter", non_striker="A Batter", wickets=BOWLED["B Batter"]),
            ],
            [ball("C Batter", non_striker="A Batter", runs=2, extras=None)],
        ),
        innings(
            [_away("X Bowler", "Y Bowler", runs=4), _away("X Bowler", "Y Bowler", runs=1)],
            [_away("Y Bowler", "X Bowler", wickets=CAUGHT_Y)],
            [_away("X Bowler", "Z Keeper", extras={"wides": 1}), _away("X Bowler", "Z Keeper")],
            team="Away",
        ),
        day="2024-05-01",
    )
    t20["info"]["overs"] = 3
    odi = document(
        innings(
            [ball(runs=2), ball(runs=4, wickets=BOWLED["A Batter"])],
            [ball("C Batter", non_striker="B Batter", runs=3)],
        ),
        innings(
            [_away("X Bowler", "Y Bowler", runs=6), _away("X Bowler", "Y Bowler", runs=6)],
            [_away("Y Bowler", "X Bowler", runs=2, bowler="B Batter")],
            team="Away",
        ),
        match_type="ODI",
        day="2023-06-01",
    )
    odi["info"]["venue"] = "Other Oval"
    return [t20, odi]


@pytest.fixture
def docs():
    documents = _docs()
    for doc in documents:
        import_match(doc)
    statistics_rebuild_all(reason="test", actor="integration:test")
    return documents


# --- figures straight from the files --------------------------------------------------------


def _balls(docs):
    for m, doc in enumerate(docs):
        for i, inn in enumerate(doc["innings"], start=1):
            for over in inn["overs"]:
                for d in over["deliveries"]:
                    yield m, i, inn["team"], d


def _innings_scores(docs):
    scores = defaultdict(lambda: {"runs": 0, "balls": 0, "out": False})
    for m, i, _team, d in _balls(docs):
        row = scores[(m, i, d["batter"])]
        row["runs"] += d["runs"]["batter"]
        row["balls"] += 0 if d.get("extras", {}).get("wides") else 1
        for w in d.get("wickets", []):
            scores[(m, i, w["player_out"])]["out"] = True
    return scores


def _bowling(docs):
    figures = defaultdict(lambda: [0, 0])
    for m, i, _team, d in _balls(docs):
        extras = d.get("extras", {})
        row = figures[(m, i, d["bowler"])]
        row[1] += d["runs"]["batter"] + extras.get("wides", 0) + extras.get("noballs", 0)
        row[0] += sum(1 for w in d.get("wickets", []) if w["kind"] in CREDITED)
    return figures


def _totals(docs):
    totals = defaultdict(int)
    for m, i, team, d in _balls(docs):
        totals[(m, i, team)] += d["runs"]["total"]
    return totals


def _get(client, kind, **params):
    response = client.get(reverse("cricket-records", args=[kind]), params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


# --- each kind ------------------------------------------------------------------------------


def test_the_highest_innings_is_the_most_runs_by_one_batter_in_one_innings(anon_client, docs):
    (_m, _i, name), best = max(_innings_scores(docs).items(), key=lambda kv: kv[1]["runs"])
    top = _get(anon_client, "highest-innings")[0]
    assert (top["name"], top["runs"], top["balls"]) == (name, best["runs"], best["balls"])
    assert top["score"] == f"{best['runs']}{'' if best['out'] else '*'}"
    assert top["registry_id"] == REGISTRY[name]
    assert top["scorecard_url"] == reverse("cricket:scorecard", args=[top["fixture_id"]])
    assert (top["team"], top["opposition"], top["venue"]) == ("Home", "Away", "Hand Ground")


def test_best_innings_bowling_is_most_wickets_then_fewest_runs(anon_client, docs):
    figures = _bowling(docs)
    expected = min((v for v in figures.values() if v[0]), key=lambda v: (-v[0], v[1]))
    top = _get(anon_client, "best-bowling-innings")[0]
    assert top["figures"] == f"{expected[0]}/{expected[1]}"


def test_best_match_bowling_sums_a_bowlers_innings_of_one_match(anon_client, docs):
    match = defaultdict(lambda: [0, 0])
    for (m, _i, bowler), (wickets, runs) in _bowling(docs).items():
        match[(m, bowler)][0] += wickets
        match[(m, bowler)][1] += runs
    (m, bowler), best = min(
        ((k, v) for k, v in match.items() if v[0]), key=lambda kv: (-kv[1][0], kv[1][1])
    )
    top = _get(anon_client, "best-bowling-match")[0]
    assert (top["name"], top["figures"]) == (bowler, f"{best[0]}/{best[1]}")
    # The bowler's side is the one not batting.
    assert (top["team"], top["opposition"]) == ("Home", "Away")


def test_highest_totals_are_innings_totals_highest_first(anon_client, docs):
    expected = sorted(_totals(docs).values(), reverse=True)
    assert [r["total"] for r in _get(anon_client, "highest-totals")] == expected


def test_lowest_totals_count_only_complete_innings(anon_client, docs):
    # No innings of the two matches is complete (none all out or through its quota): a
    # one-over match whose first innings bats its six balls is.
    doc = document(
        innings([ball(runs=1) for _ in range(6)]),
        innings([_away("X Bowler", "Y Bowler", runs=0)], team="Away"),
        day="2024-08-01",
    )
    doc["info"]["overs"] = 1
    import_match(doc)  # its lines are built by the read, which finds them missing
    rows = _get(anon_client, "lowest-totals")
    assert [(r["team"], r["total"], r["balls"]) for r in rows] == [("Home", 6, 6)]


def test_most_runs_in_a_season_sums_a_batters_innings_of_the_season(anon_client, docs):
    seasons = defaultdict(int)
    for (m, _i, name), row in _innings_scores(docs).items():
        seasons[(docs[m]["info"]["season"], name)] += row["runs"]
    (season, name), runs = max(seasons.items(), key=lambda kv: kv[1])
    top = _get(anon_client, "most-runs-season")[0]
    assert (top["season"], top["name"], top["runs"]) == (season, name, runs)


def test_most_wickets_in_a_series_names_the_series(anon_client, docs):
    top = _get(anon_client, "most-wickets-series")[0]
    wickets = sum(v[0] for (m, _i, b), v in _bowling(docs).items() if b == top["name"] and m == 0)
    assert top["wickets"] == wickets
    assert top["series"] == "2024"
    assert top["series_url"] == reverse("sports:competition-detail", args=[top["series_id"]])


def test_partnerships_are_highest_first_with_the_unbroken_marked(anon_client, docs):
    rows = _get(anon_client, "partnerships")
    # The T20's first stand: every run of the innings before B was bowled.
    first = [
        r for r in rows if r["match_type"] == "T20" and r["wicket"] == 1 and r["team"] == "Home"
    ]
    assert first[0]["runs"] == 36 + 12 + 4
    assert first[0]["unbroken"] is False
    last = [
        r for r in rows if r["match_type"] == "T20" and r["wicket"] == 2 and r["team"] == "Home"
    ]
    assert (last[0]["score"], last[0]["ended_by"]) == ("2*", "innings_end")
    assert [b["name"] for b in last[0]["batters"]] == ["A Batter", "C Batter"]


def test_the_partnerships_list_narrows_to_one_wicket(anon_client, docs):
    body = anon_client.get(reverse("cricket-stats-partnerships"), {"wicket": 2}).json()
    assert {r["wicket"] for r in body["results"]} == {2}
    assert len(body["results"]) == 3


def test_the_fastest_fifty_is_the_fewest_balls_to_fifty(anon_client, docs):
    top = _get(anon_client, "fastest-fifties")[0]
    runs, balls = 0, 0
    for _m, _i, _t, d in _balls(docs[:1]):
        if d["batter"] == "A Batter":
            runs += d["runs"]["batter"]
            balls += 1
            if runs >= 50:
                break
    assert (top["name"], top["balls"]) == ("A Batter", balls)
    assert _get(anon_client, "fastest-hundreds") == []


# --- filters --------------------------------------------------------------------------------


def test_the_format_filter_takes_any_case(anon_client, docs):
    rows = _get(anon_client, "highest-totals", match_type="odi")
    assert {r["match_type"] for r in rows} == {"ODI"}
    assert len(rows) == 2


def test_team_and_opposition_filters_pick_the_side(anon_client, docs):
    batting = _get(anon_client, "highest-innings", team="away")
    assert {r["team"] for r in batting} == {"Away"}
    bowling = _get(anon_client, "best-bowling-innings", opposition="Away")
    assert {r["team"] for r in bowling} == {"Home"}
    assert {r["opposition"] for r in bowling} == {"Away"}


def test_the_venue_and_season_filters_narrow(anon_client, docs):
    rows = _get(anon_client, "highest-totals", venue="other oval")
    assert {r["venue"] for r in rows} == {"Other Oval"}
    assert _get(anon_client, "highest-totals", season="2024", venue="Other Oval") == []


def test_an_unknown_parameter_is_a_400_naming_it(anon_client, docs):
    response = anon_client.get(reverse("cricket-records", args=["highest-innings"]), {"tem": "x"})
    assert response.status_code == 400
    assert "tem" in error_names(response)


@pytest.mark.parametrize(
    ("param", "value"),
    [("match_type", "T21"), ("gender", "x"), ("season", "24"), ("team", "Nobody"),
     ("venue", "Nowhere"), ("competition", "not-an-id"), ("date_from", "2024-13-45")],
)  # fmt: skip
def test_a_bad_value_is_a_400_naming_the_parameter(anon_client, docs, param, value):
    response = anon_client.get(reverse("cricket-records", args=["highest-innings"]), {param: value})
    assert response.status_code == 400
    assert param in error_names(response)


def test_wicket_is_refused_where_the_record_does_not_take_it(anon_client, docs):
    response = anon_client.get(reverse("cricket-records", args=["highest-totals"]), {"wicket": 1})
    assert response.status_code == 400
    assert "wicket" in error_names(response)


def test_an_unknown_kind_is_a_404(anon_client, docs):
    assert anon_client.get(reverse("cricket-records", args=["most-sixes"])).status_code == 404


def test_records_page_by_cursor_without_repeating_a_row(anon_client, docs):
    url = reverse("cricket-records", args=["highest-innings"])
    first = anon_client.get(url, {"page_size": 2}).json()
    second = anon_client.get(first["next"]).json()
    ids = [(r["fixture_id"], r["innings"], r["name"]) for r in first["results"] + second["results"]]
    assert len(ids) == len(set(ids)) == 4


@pytest.mark.parametrize("kind", ["highest-innings", "partnerships", "most-runs-series"])
def test_a_records_page_costs_a_fixed_number_of_queries(
    anon_client, docs, kind, django_assert_num_queries
):
    records_ensure()
    # admission, stale check, the page, people, registry ids, then sides and fixtures for
    # a single match or the series for a series total
    with django_assert_num_queries(6 if kind == "most-runs-series" else 7):
        anon_client.get(reverse("cricket-records", args=[kind]))


def test_a_filtered_page_adds_only_the_lookups_of_its_filters(
    anon_client, docs, django_assert_num_queries
):
    records_ensure()
    with django_assert_num_queries(8):  # + the team lookup
        anon_client.get(reverse("cricket-records", args=["highest-innings"]), {"team": "Home"})


# --- the command ----------------------------------------------------------------------------


def test_the_command_prints_the_rows_as_json(docs, capsys):
    call_command("cricket_records", "highest-totals", "--format", "odi", "--json")
    out = capsys.readouterr().out
    assert '"match_type": "ODI"' in out


def test_the_command_refuses_an_unknown_kind_naming_it(docs):
    with pytest.raises(CommandError, match="most-sixes"):
        call_command("cricket_records", "most-sixes")


def test_the_command_refuses_a_bad_value_naming_the_option(docs):
    with pytest.raises(CommandError, match="format"):
        call_command("cricket_records", "highest-innings", "--format", "T21")


def test_format_is_the_records_format_filter_and_match_type_its_old_name(anon_client, docs):
    by_format = _get(anon_client, "highest-totals", format="odi")
    assert {r["match_type"] for r in by_format} == {"ODI"}
    assert by_format == _get(anon_client, "highest-totals", match_type="ODI")


def test_a_bad_format_is_a_400_naming_format(anon_client, docs):
    response = anon_client.get(
        reverse("cricket-records", args=["highest-totals"]), {"format": "T21"}
    )
    assert response.status_code == 400
    assert error_names(response) == {"format"}


def test_format_and_its_old_name_must_agree(anon_client, docs):
    url = reverse("cricket-records", args=["highest-totals"])
    response = anon_client.get(url, {"format": "T20", "match_type": "ODI"})
    assert response.status_code == 400
    assert error_names(response) == {"match_type"}


def test_the_result_filter_reads_the_rows_own_side(anon_client, docs):
    # Home won both matches: its batters' innings, and the innings its bowlers bowled in.
    assert {r["team"] for r in _get(anon_client, "highest-innings", result="won")} == {"Home"}
    assert {r["team"] for r in _get(anon_client, "highest-innings", result="lost")} == {"Away"}
    bowlers = _get(anon_client, "best-bowling-innings", result="won")
    assert bowlers and {r["team"] for r in bowlers} == {"Home"}
    assert _get(anon_client, "highest-totals", result="tied") == []


def test_the_innings_filter_keeps_one_innings_of_each_match(anon_client, docs):
    second = _get(anon_client, "highest-totals", innings="2")
    assert [r["total"] for r in second] == sorted(
        (t for (_m, i, _team), t in _totals(docs).items() if i == 2), reverse=True
    )


@pytest.mark.parametrize(
    ("param", "value"), [("result", "abandoned"), ("home_away", "x"), ("innings", "9")]
)
def test_a_bad_side_filter_is_a_400_naming_it(anon_client, docs, param, value):
    response = anon_client.get(reverse("cricket-records", args=["highest-innings"]), {param: value})
    assert response.status_code == 400
    assert param in error_names(response)
