import copy
import json

import pytest
from django.urls import reverse

from cricket.corrections import delivery_correct
from cricket.models import Delivery
from cricket.selectors import fixture_scorecard, overs_text
from cricket.stats.engine import LINES_DEFINITION_VERSION, lines_rebuild, lines_stale
from cricket.stats.models import (
    CricketBattingLine,
    CricketTeamInningsLine,
    FixtureLinesState,
)
from cricket.stats.refresh import statistics_lines_ensure
from cricket.stats.tests import builders as hand
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from sports.models import Fixture, Submission


@pytest.fixture(autouse=True)
def _dismissal_kinds(request):
    if "db" in request.fixturenames or request.node.get_closest_marker("django_db"):
        request.getfixturevalue("db")
        seed_dismissal_kinds()


pytestmark = pytest.mark.django_db


def _import(doc=None, match_id="900001") -> Fixture:
    raw = json.dumps(doc or cricsheet_match()).encode()
    result = Importer().import_file(raw, filename=f"{match_id}.json")
    assert result.outcome == "new", result.error
    return Fixture.objects.get(pk=result.fixture_id)


def _line(lines, name):
    return next(line for line in lines if line.name == name)


def _four_innings() -> dict:
    """The hand-made match as a Test: the home innings twice and an away innings (more
    players, another order, a wicket) twice."""
    doc = cricsheet_match(match_type="Test", overs=None)
    home = doc["innings"][0]
    away = copy.deepcopy(home)
    away["team"] = "Away"
    away.pop("penalty_runs")
    swap = {"A Batter": "X Bowler", "B Batter": "Y Bowler", "C Batter": "Z Keeper"}
    swap |= {"X Bowler": "A Batter", "Y Bowler": "B Batter", "Z Keeper": "C Batter"}
    for over in away["overs"]:
        for ball in over["deliveries"]:
            for role in ("batter", "bowler", "non_striker"):
                ball[role] = swap[ball[role]]
            for wicket in ball.get("wickets", []):
                wicket["player_out"] = swap[wicket["player_out"]]
                wicket["fielders"] = [{"name": swap[f["name"]]} for f in wicket["fielders"]]
    doc["innings"] = [home, away, copy.deepcopy(home), copy.deepcopy(away)]
    return doc


def _four(fixture, ordinal=1):
    return Delivery.objects.current().get(
        innings__fixture=fixture, innings__ordinal=ordinal, over_number=0, position=2
    )


def test_overs_are_written_from_counted_legal_balls():
    assert (overs_text(27, 6), overs_text(24, 6), overs_text(7, 5)) == ("4.3", "4", "1.2")


def test_batting_lines_count_no_balls_as_faced_and_wides_not():
    (card,) = fixture_scorecard(_import())
    b = _line(card.batting, "B Batter")
    assert (b.runs, b.balls, b.fours, b.out) == (4, 3, 1, True)
    assert b.how_out == "c Z Keeper b X Bowler"
    assert _line(card.batting, "C Batter").sixes == 1


def test_bowlers_concede_wides_and_no_balls_but_not_byes():
    (card,) = fixture_scorecard(_import())
    x = _line(card.bowling, "X Bowler")
    assert (x.runs, x.wickets, x.overs, x.wides, x.noballs) == (13, 1, "0.5", 1, 1)
    assert _line(card.bowling, "Y Bowler").overs == "1"


def test_the_total_adds_innings_penalty_runs_to_the_deliveries():
    (card,) = fixture_scorecard(_import())
    assert (card.runs, card.wickets, card.overs, card.penalty_runs) == (32, 1, "1.5", 5)
    assert card.extras == {
        "byes": 2, "legbyes": 0, "wides": 1, "noballs": 1, "penalty": 0, "total": 4,
    }  # fmt: skip


def test_fall_of_wickets_gives_the_score_and_over_of_each_dismissal():
    (card,) = fixture_scorecard(_import())
    (fall,) = card.fall_of_wickets
    assert (fall.number, fall.runs, fall.name, fall.over) == (1, 9, "B Batter", "0.3")


def test_a_fall_of_wicket_counts_penalty_runs_awarded_before_the_innings():
    bowled = [{"player_out": "A Batter", "kind": "bowled"}]
    over = [hand.ball(runs=1), hand.ball(wickets=bowled)]
    (card,) = fixture_scorecard(
        hand.import_match(hand.document(hand.innings(over, penalty_runs={"pre": 5})))
    )
    assert [(f.number, f.runs, f.over) for f in card.fall_of_wickets] == [(1, 6, "0.2")]
    assert (card.runs, card.penalty_runs) == (6, 5)


def test_a_retired_hurt_batter_is_not_out_and_not_a_fall_of_wicket():
    retired = [{"player_out": "A Batter", "kind": "retired hurt"}]
    over = [hand.ball(runs=2, wickets=retired)]
    (card,) = fixture_scorecard(hand.import_match(hand.document(hand.innings(over))))
    a = _line(card.batting, "A Batter")
    assert (a.how_out, a.out, card.wickets, card.fall_of_wickets) == ("retired hurt", False, 0, [])


def test_a_timed_out_batter_comes_in_at_their_wicket_having_faced_no_ball():
    timed_out = [{"player_out": "C Batter", "kind": "timed out"}]
    over = [hand.ball(runs=1), hand.ball("B Batter", non_striker="A Batter", wickets=timed_out)]
    (card,) = fixture_scorecard(hand.import_match(hand.document(hand.innings(over))))
    assert [(b.name, b.balls, b.how_out) for b in card.batting] == [
        ("A Batter", 1, "not out"),
        ("B Batter", 1, "not out"),
        ("C Batter", 0, "timed out"),
    ]
    assert [(f.number, f.name) for f in card.fall_of_wickets] == [(1, "C Batter")]


def test_a_complete_over_without_a_run_is_a_maiden():
    doc = cricsheet_match()
    for ball in doc["innings"][0]["overs"][1]["deliveries"]:
        ball["runs"] = {"batter": 0, "extras": 0, "total": 0}
    (card,) = fixture_scorecard(_import(doc))
    assert _line(card.bowling, "Y Bowler").maidens == 1


def test_batters_are_listed_in_the_order_they_came_to_the_crease_and_bowlers_as_they_bowled():
    (card,) = fixture_scorecard(_import())
    assert [b.name for b in card.batting] == ["A Batter", "B Batter", "C Batter"]
    assert [b.name for b in card.bowling] == ["X Bowler", "Y Bowler"]
    assert [b.how_out for b in card.batting] == ["not out", "c Z Keeper b X Bowler", "not out"]


def test_the_scorecard_is_read_from_the_fixtures_lines():
    fixture = _import()
    statistics_lines_ensure(fixture_ids=[fixture.pk])
    # Lines are derived rows: a figure put in one by hand shows, proving the card reads
    # them rather than the deliveries.
    CricketTeamInningsLine.objects.filter(fixture=fixture).update(total=999)
    (card,) = fixture_scorecard(fixture)
    assert card.runs == 999


def test_reading_current_lines_rebuilds_nothing():
    fixture = _import()
    statistics_lines_ensure(fixture_ids=[fixture.pk])
    before = sorted(CricketBattingLine.objects.filter(fixture=fixture).values_list("id"))
    fixture_scorecard(fixture)
    assert sorted(CricketBattingLine.objects.filter(fixture=fixture).values_list("id")) == before


def test_lines_whose_refresh_is_still_queued_are_rebuilt_before_the_scorecard_reads_them():
    fixture = _import()  # the import's refresh task runs only on commit: never, here
    assert lines_stale(fixture_ids=[fixture.pk]) == [str(fixture.pk)]
    (card,) = fixture_scorecard(fixture)
    assert (card.runs, card.wickets, card.legal_balls) == (32, 1, 11)
    assert lines_stale(fixture_ids=[fixture.pk]) == []


def test_after_a_correction_of_one_delivery_the_scorecard_shows_it(editor):
    fixture = _import()
    (before,) = fixture_scorecard(fixture)
    delivery_correct(
        delivery=_four(fixture), changes={"runs_batter": 6}, reason="a six", actor=editor
    )
    (after,) = fixture_scorecard(fixture)
    b, x = _line(after.batting, "B Batter"), _line(after.bowling, "X Bowler")
    assert (before.runs, after.runs) == (32, 34)
    assert (b.runs, b.fours, b.sixes, x.runs) == (6, 0, 1, 15)
    assert [(f.runs, f.over) for f in after.fall_of_wickets] == [(11, "0.3")]


def test_the_scorecard_api_shows_a_correction_at_once(anon_client, editor):
    fixture = _import()
    url = reverse("cricket-fixture-scorecard", kwargs={"pk": fixture.pk})
    assert anon_client.get(url).json()["innings"][0]["runs"] == 32
    delivery_correct(
        delivery=_four(fixture), changes={"runs_batter": 6}, reason="a six", actor=editor
    )
    assert anon_client.get(url).json()["innings"][0]["runs"] == 34


def test_lines_built_under_an_older_definition_are_rebuilt_on_read():
    fixture = _import()
    statistics_lines_ensure(fixture_ids=[fixture.pk])
    CricketTeamInningsLine.objects.filter(fixture=fixture).update(total=999)
    FixtureLinesState.objects.filter(fixture=fixture).update(
        definition_version=LINES_DEFINITION_VERSION - 1
    )
    (card,) = fixture_scorecard(fixture)
    assert card.runs == 32


def test_a_fixture_published_after_its_lines_were_built_gets_them_on_read():
    fixture = _import()
    Submission.objects.filter(pk=fixture.first_seen_in_id).update(accepted=False, accepted_at=None)
    lines_rebuild(fixture_ids=[fixture.pk])  # not public: no lines, state current
    assert not CricketTeamInningsLine.objects.filter(fixture=fixture).exists()
    Submission.objects.filter(pk=fixture.first_seen_in_id).update(
        accepted=True, accepted_at=fixture.created_at
    )
    (card,) = fixture_scorecard(fixture)
    assert card.runs == 32


def test_a_rebuild_for_current_lines_only_writes_nothing():
    fixture = _import()
    statistics_lines_ensure(fixture_ids=[fixture.pk])
    assert lines_rebuild(fixture_ids=[fixture.pk], only_stale=True) == 0


# The anonymous rate counter, the freshness tuple (conditional GET), the fixture, then the
# scorecard: the lines' state, team, batting and bowling lines, the squads, other names.
SCORECARD_API_QUERIES = 9


@pytest.mark.parametrize("doc", [cricsheet_match, _four_innings], ids=["one", "four"])
def test_the_scorecard_api_answers_in_a_constant_number_of_queries(
    anon_client, django_assert_num_queries, doc
):
    fixture = _import(doc())
    statistics_lines_ensure(fixture_ids=[fixture.pk])
    url = reverse("cricket-fixture-scorecard", kwargs={"pk": fixture.pk})
    with django_assert_num_queries(SCORECARD_API_QUERIES):
        response = anon_client.get(url)
    assert response.status_code == 200
    innings = response.json()["innings"]
    assert (innings[0]["runs"], innings[0]["wickets"], innings[0]["overs"]) == (32, 1, "1.5")
    assert len(innings) == (4 if doc is _four_innings else 1)


def test_a_fixture_whose_submission_is_not_accepted_is_not_found(anon_client):
    fixture = _import()
    Submission.objects.filter(pk=fixture.first_seen_in_id).update(accepted=False, accepted_at=None)
    url = reverse("cricket-fixture-scorecard", kwargs={"pk": fixture.pk})
    assert anon_client.get(url).status_code == 404


def test_deliveries_page_by_cursor_in_occurrence_order(anon_client, django_assert_max_num_queries):
    fixture = _import()
    url = reverse("cricket-fixture-deliveries", kwargs={"pk": fixture.pk}) + "?page_size=5"
    seen = []
    while url:
        with django_assert_max_num_queries(8):
            body = anon_client.get(url).json()
        seen.extend(
            (d["innings"], d["sequence"], d["over"], d["position"]) for d in body["results"]
        )
        url = body["next"]
    assert [s[1] for s in seen] == list(range(1, 14))
    assert seen[1][2:] == (0, 1)


def test_a_delivery_shows_its_wicket_and_an_explicit_zero_extra(anon_client):
    fixture = _import()
    url = reverse("cricket-fixture-deliveries", kwargs={"pk": fixture.pk})
    results = anon_client.get(url).json()["results"]
    (wicket,) = results[4]["wickets"]
    assert (wicket["kind"], wicket["credits_bowler"]) == ("caught", True)
    assert wicket["fielders"][0]["participant"]["name"] == "Z Keeper"
    assert results[6]["extras"]["legbyes"] == 0


def test_the_public_scorecard_page_shows_both_tables_and_credits_cricsheet(client):
    fixture = _import()
    response = client.get(reverse("cricket:scorecard", kwargs={"pk": fixture.pk}))
    page = response.content.decode()
    assert response.status_code == 200
    assert "c Z Keeper b X Bowler" in page and "Y Bowler" in page
    assert "1-9 (B Batter, 0.3 ov)" in page
    assert "cricsheet.org" in page


# The fixture, its competition's ancestors, then the scorecard: the lines' state, team,
# batting and bowling lines, the squads, other names; then the runs and wickets per over
# that draw the worm and the manhattan.
SCORECARD_PAGE_QUERIES = 9


@pytest.mark.parametrize("doc", [cricsheet_match, _four_innings], ids=["one", "four"])
def test_the_public_scorecard_page_answers_in_a_constant_number_of_queries(
    client, django_assert_num_queries, doc
):
    fixture = _import(doc())
    statistics_lines_ensure(fixture_ids=[fixture.pk])
    with django_assert_num_queries(SCORECARD_PAGE_QUERIES):
        response = client.get(reverse("cricket:scorecard", kwargs={"pk": fixture.pk}))
    assert response.status_code == 200
    assert response.content.decode().count('<section class="innings">') == (
        4 if doc is _four_innings else 1
    )
