import json

import pytest
from django.urls import reverse

from ingest.cricsheet.importer import Importer
from sports.cricket.selectors import fixture_scorecard, overs_text
from sports.cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
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


def test_a_complete_over_without_a_run_is_a_maiden():
    doc = cricsheet_match()
    for ball in doc["innings"][0]["overs"][1]["deliveries"]:
        ball["runs"] = {"batter": 0, "extras": 0, "total": 0}
    (card,) = fixture_scorecard(_import(doc))
    assert _line(card.bowling, "Y Bowler").maidens == 1


def test_the_scorecard_api_answers_for_a_public_fixture(anon_client, django_assert_max_num_queries):
    fixture = _import()
    url = reverse("cricket-fixture-scorecard", kwargs={"pk": fixture.pk})
    with django_assert_max_num_queries(12):
        response = anon_client.get(url)
    assert response.status_code == 200
    (innings,) = response.json()["innings"]
    assert (innings["runs"], innings["wickets"], innings["overs"]) == (32, 1, "1.5")


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


def test_the_public_scorecard_page_shows_both_tables_and_credits_cricsheet(
    client, django_assert_max_num_queries
):
    fixture = _import()
    with django_assert_max_num_queries(14):
        response = client.get(reverse("cricket:scorecard", kwargs={"pk": fixture.pk}))
    page = response.content.decode()
    assert response.status_code == 200
    assert "c Z Keeper b X Bowler" in page and "Y Bowler" in page
    assert "cricsheet.org" in page
