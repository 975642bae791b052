"""The query vocabulary against the data: each filter alone and in pairs, each answer
compared with runs per batter computed in the test straight from the match documents."""

import itertools

import pytest
from django.core.exceptions import ValidationError

from cricket.stats.engine import lines_rebuild_all
from cricket.stats.figures import player_rows, team_rows
from cricket.stats.query import StatsQuery
from cricket.stats.tests.builders import ball, document, import_match, innings
from sports.models import Competition, Participant, Venue

pytestmark = pytest.mark.django_db

SQUADS = {
    ("Home", "male"): ["H One", "H Two"],
    ("Away", "male"): ["A One", "A Two"],
    ("Third", "male"): ["T One", "T Two"],
    ("Home", "female"): ["HF One", "HF Two"],
    ("Third", "female"): ["TF One", "TF Two"],
}
REGISTRY = {
    name: f"e{n:07d}"
    for n, name in enumerate(sorted({p for squad in SQUADS.values() for p in squad}))
}
COUNTRIES = {"Home": "ENG", "Away": "AUS", "Third": "IND"}
VENUES = {"Lord's": "ENG", "Eden Gardens": "IND"}

# (teams, format, gender, date, venue, toss winner, winner or None for no result, event,
#  team type, runs off each ball of each innings (batting in team order))
MATCHES = [
    (("Home", "Away"), "T20", "male", "2023-05-01", "Lord's", "Home", "Home", "Cup A",
     "club", [[4, 1, 0, 6], [1, 1, 2]]),
    (("Away", "Third"), "ODI", "male", "2024-06-01", "Eden Gardens", "Third", "Third",
     "Cup B", "international", [[2, 2], [6, 4, 1, 1]]),
    (("Home", "Third"), "T20", "female", "2024-07-01", "Lord's", "Home", None, "Cup A",
     "club", [[3, 0, 3], [1, 4]]),
    (("Home", "Away"), "T20", "male", "2024-08-01", "Eden Gardens", "Away", "Away", "Cup A",
     "club", [[1, 2, 3], [4, 4, 4, 1]]),
    (("Third", "Home"), "ODI", "male", "2024-09-01", "Lord's", "Home", "Home", "Cup B",
     "international", [[0, 0, 5], [2, 6]]),
]  # fmt: skip


def _doc(spec) -> dict:
    teams, fmt, gender, day, venue, toss, winner, event, team_type, runs = spec
    sides = []
    for number, scores in enumerate(runs):
        batting, fielding = teams[number % 2], teams[(number + 1) % 2]
        striker, partner = SQUADS[(batting, gender)]
        bowler = SQUADS[(fielding, gender)][0]
        balls = [
            ball(*(striker, bowler, partner) if i % 2 == 0 else (partner, bowler, striker),
                 runs=r)
            for i, r in enumerate(scores)
        ]  # fmt: skip
        sides.append(innings(balls, team=batting))
    players = {team: SQUADS[(team, gender)] for team in teams}
    doc = document(*sides, players=players, registry=REGISTRY, match_type=fmt, gender=gender,
                   day=day, event=event)  # fmt: skip
    info = doc["info"]
    info.update(venue=venue, team_type=team_type, toss={"winner": toss, "decision": "bat"})
    info["outcome"] = {"winner": winner, "by": {"runs": 1}} if winner else {"result": "no result"}
    return doc


DOCS = [_doc(spec) for spec in MATCHES]


def _facts():
    """One row per batting innings of a batter: the facts every filter reads."""
    for doc in DOCS:
        info = doc["info"]
        teams = info["teams"]
        for number, inning in enumerate(doc["innings"], start=1):
            team = inning["team"]
            other = next(t for t in teams if t != team)
            runs: dict[str, int] = {}
            for delivery in inning["overs"][0]["deliveries"]:
                runs[delivery["batter"]] = (
                    runs.get(delivery["batter"], 0) + delivery["runs"]["batter"]
                )
                runs.setdefault(delivery["non_striker"], 0)
            venue_country = VENUES[info["venue"]]
            outcome = info["outcome"]
            result = (
                "no_result" if "result" in outcome
                else "won" if outcome["winner"] == team else "lost"
            )  # fmt: skip
            home_away = (
                "home" if COUNTRIES[team] == venue_country
                else "away" if COUNTRIES[other] == venue_country
                else "neutral"
            )  # fmt: skip
            for name, score in runs.items():
                yield (
                    REGISTRY[name],
                    score,
                    {
                        "format": info["match_type"],
                        "gender": info["gender"],
                        "team_type": info["team_type"],
                        "season": info["season"],
                        "date": info["dates"][0],
                        "team": team,
                        "opposition": other,
                        "venue": info["venue"],
                        "host_country": venue_country,
                        "home_away": home_away,
                        "result": result,
                        "toss": "won" if info["toss"]["winner"] == team else "lost",
                        "innings": str(number),
                        # a women's event is its own tree: "Cup A (women)"
                        "competition": info["event"]["name"]
                        + (" (women)" if info["gender"] == "female" else ""),
                    },
                )


# (parameter, value as asked, test on the facts)
FILTERS = [
    ("format", "t20", lambda f: f["format"] == "T20"),
    ("gender", "female", lambda f: f["gender"] == "female"),
    ("team_type", "International", lambda f: f["team_type"] == "international"),
    ("season", "2024", lambda f: f["season"] == "2024"),
    ("date_from", "2024-06-15", lambda f: f["date"] >= "2024-06-15"),
    ("date_to", "2024-08-01", lambda f: f["date"] <= "2024-08-01"),
    ("team", "Home", lambda f: f["team"] == "Home"),
    ("opposition", "Away", lambda f: f["opposition"] == "Away"),
    ("venue", "Eden Gardens", lambda f: f["venue"] == "Eden Gardens"),
    ("host_country", "eng", lambda f: f["host_country"] == "ENG"),
    ("home_away", "home", lambda f: f["home_away"] == "home"),
    ("result", "won", lambda f: f["result"] == "won"),
    ("toss", "lost", lambda f: f["toss"] == "lost"),
    ("innings", "2", lambda f: f["innings"] == "2"),
    ("competition", "Cup A", lambda f: f["competition"] == "Cup A"),
]


@pytest.fixture
def corpus():
    for doc in DOCS:
        import_match(doc)
    for name, country in VENUES.items():
        Venue.objects.filter(name=name).update(country=country)
    for team, country in COUNTRIES.items():
        Participant.objects.filter(name__startswith=team, type="TEAM").update(country=country)
    lines_rebuild_all()


def _params(chosen) -> dict:
    params = {}
    for name, value, _ in chosen:
        if name == "competition":
            value = str(Competition.objects.get(name=value, level=0).pk)
        params[name] = value
    return params


def _expected(chosen) -> dict:
    totals: dict[str, int] = {}
    for rid, runs, facts in _facts():
        if all(test(facts) for _, _, test in chosen):
            totals[rid] = totals.get(rid, 0) + runs
    return totals


def _answered(chosen) -> dict:
    rows = player_rows(StatsQuery.parse(_params(chosen), view="batting"))
    return {r["registry_id"]: r["runs"] for r in rows if r["innings"]}


def test_each_filter_alone_agrees_with_the_documents(corpus):
    for chosen in FILTERS:
        expected = _expected([chosen])
        assert expected, chosen[0]  # every filter keeps something
        assert _answered([chosen]) == expected, chosen[0]


def test_each_pair_of_filters_agrees_with_the_documents(corpus):
    for pair in itertools.combinations(FILTERS, 2):
        assert _answered(pair) == _expected(pair), (pair[0][0], pair[1][0])


def test_the_filters_narrow_something_somewhere(corpus):
    everything = _expected([])
    assert all(_expected([f]) != everything for f in FILTERS)


def test_a_minimum_of_innings_keeps_only_qualified_batters(corpus):
    counts: dict[str, int] = {}
    for rid, _, _ in _facts():
        counts[rid] = counts.get(rid, 0) + 1
    rows = player_rows(StatsQuery.parse({"min_innings": "4"}, view="batting"))
    assert {r["registry_id"] for r in rows} == {rid for rid, n in counts.items() if n >= 4}


def test_grouping_by_season_splits_each_batters_runs(corpus):
    expected: dict[tuple, int] = {}
    for rid, runs, facts in _facts():
        key = (rid, facts["season"])
        expected[key] = expected.get(key, 0) + runs
    rows = player_rows(StatsQuery.parse({"group_by": "season"}, view="batting"))
    assert {(r["registry_id"], r["group"]["key"]): r["runs"] for r in rows if r["innings"]} == (
        expected
    )


def test_the_team_view_counts_results_from_each_sides_view(corpus):
    rows = team_rows(StatsQuery.parse({"gender": "male"}, view="team"))
    won = {r["name"]: r["won"] for r in rows}
    expected: dict[str, int] = {}
    for doc in DOCS:
        info = doc["info"]
        if info["gender"] == "male":
            for team in info["teams"]:
                expected[team] = expected.get(team, 0) + (info["outcome"].get("winner") == team)
    assert won == expected


def test_an_unknown_parameter_or_a_bad_value_is_refused_naming_it(corpus):
    for params, name in (
        ({"match_type": "ODI"}, "match_type"),
        ({"format": "T30"}, "format"),
        ({"team": "Nowhere"}, "team"),
        ({"innings": "x"}, "innings"),
        ({"group_by": "umpire"}, "group_by"),
        ({"home_away": "abroad"}, "home_away"),
    ):
        with pytest.raises(ValidationError) as caught:
            StatsQuery.parse(params, view="batting")
        assert name in caught.value.message_dict, params
