"""Figures as they stood at a moment (``as_of``): only fixtures first published before
it, with the delivery revisions live at it; today's figure and the figure as of now are
one query."""

import json
import time

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from cricket.corrections import delivery_correct
from cricket.models import Delivery
from cricket.stats.figures import view_rows
from cricket.stats.query import StatsQuery
from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.tests.builders import ball, document, import_match, innings
from omnium.testing import error_names

BOWLED = [{"player_out": "B Batter", "kind": "bowled"}]


def _rebuild():
    statistics_rebuild_all(reason="test", actor="integration:test")


def _runs(view="batting", **params):
    """Runs per player who batted (or bowled): the squads' other players have none."""
    query = StatsQuery.parse(params, view=view)
    return {r["name"]: r["runs"] for r in view_rows(query) if r["innings"]}


def _tick():
    """A moment strictly between two committed writes."""
    time.sleep(0.01)
    moment = timezone.now()
    time.sleep(0.01)
    return moment.isoformat()


@pytest.mark.django_db(transaction=True)
def test_a_correction_and_a_later_fixture_read_as_of_the_days_before_and_after(editor):
    first = import_match(document(innings([ball(runs=4), ball(runs=1)])))
    _rebuild()
    day1 = _tick()
    four = Delivery.objects.current().get(innings__fixture=first, runs_batter=4)
    delivery_correct(delivery=four, changes={"runs_batter": 6}, reason="it was six", actor=editor)
    import_match(document(innings([ball("C Batter", runs=2)]), day="2024-05-02"))
    _rebuild()
    day3 = _tick()

    assert _runs(as_of=day1) == {"A Batter": 5, "B Batter": 0}
    assert _runs(as_of=day3) == {"A Batter": 7, "B Batter": 0, "C Batter": 2}
    assert _runs() == _runs(as_of=day3)
    # The bowler's and the team's figures follow the same revisions.
    assert _runs("bowling", as_of=day1) == {"X Bowler": 5}
    assert _runs("bowling", as_of=day3) == {"X Bowler": 9}
    team = StatsQuery.parse({"as_of": day1}, view="team")
    assert {r["name"]: (r["matches"], r["runs"]) for r in view_rows(team)}["Home"] == (1, 5)


@pytest.mark.django_db(transaction=True)
def test_a_removed_ball_counts_until_it_was_removed_and_innings_list_follows(editor):
    fixture = import_match(document(innings([ball(runs=4), ball(runs=3)])))
    _rebuild()
    day1 = _tick()
    three = Delivery.objects.current().get(innings__fixture=fixture, runs_batter=3)
    delivery_correct(delivery=three, changes={"runs_batter": 0}, reason="no run", actor=editor)
    _rebuild()
    player = Delivery.objects.get(pk=three.pk).batter_id
    then = StatsQuery.parse({"as_of": day1}, view="innings")
    assert [r["score"] for r in view_rows(then, participant_id=player)] == ["7*"]
    now = StatsQuery.parse({}, view="innings")
    assert [r["score"] for r in view_rows(now, participant_id=player)] == ["4*"]


@pytest.fixture
def data(db):
    odi = import_match(
        document(innings([ball(runs=2), ball("B Batter", wickets=BOWLED)]), match_type="ODI")
    )
    import_match(document(innings([ball(runs=4), ball(runs=6)])))
    _rebuild()
    return odi


@pytest.mark.parametrize("view", ["batting", "bowling", "fielding", "team"])
def test_as_of_now_is_the_figure_of_today(data, view):
    assert view_rows(StatsQuery.parse({"as_of": "now"}, view=view)) == view_rows(
        StatsQuery.parse({}, view=view)
    )


def test_as_of_before_every_publication_has_no_figures(data):
    assert _runs(as_of="2001-01-01T00:00Z") == {}


@pytest.mark.parametrize(
    "value", ["yesterday", "2025-13-01", "2025-06-01T00:00", "2999-01-01T00:00Z"]
)
def test_a_bad_as_of_is_a_400_naming_it(anon_client, data, value):
    response = anon_client.get(reverse("cricket-stats-batting"), {"as_of": value})
    assert response.status_code == 400
    assert "as_of" in error_names(response)


def test_the_api_answers_as_of_a_moment(anon_client, data):
    response = anon_client.get(reverse("cricket-stats-batting"), {"as_of": "2001-01-01"})
    assert response.status_code == 200, response.content
    assert response.json()["results"] == []
    assert response.json()["query"] == {"view": "batting", "as_of": "2001-01-01"}


def test_an_as_of_read_answers_in_a_fixed_number_of_queries(
    anon_client, data, django_assert_num_queries
):
    # the schema, the savepoint, the public fixtures, the affected fixtures, the shadow
    # tables, the shadow views, the fold, dropping the shadow, the savepoint's release,
    # the pending-refresh check and the admission throttle's read
    with django_assert_num_queries(11):
        response = anon_client.get(reverse("cricket-stats-batting"), {"as_of": "now"})
    assert response.status_code == 200


def test_the_command_answers_as_of_a_moment(data, capsys):
    call_command("cricket_stats", "batting", "--as-of", "now", "--json")
    now = {r["name"]: r["runs"] for r in json.loads(capsys.readouterr().out) if r["innings"]}
    assert now == _runs()
    call_command("cricket_stats", "batting", "--as-of", "2001-01-01T00:00Z", "--json")
    assert json.loads(capsys.readouterr().out) == []


def test_the_command_refuses_a_bad_as_of_naming_it(data):
    with pytest.raises(CommandError, match="--as-of"):
        call_command("cricket_stats", "batting", "--as-of", "soon")


def _records(client, kind, **params):
    response = client.get(reverse("cricket-records", args=[kind]), params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


@pytest.mark.django_db(transaction=True)
def test_records_and_partnerships_read_as_of_a_moment(editor, anon_client):
    first = import_match(document(innings([ball(runs=4), ball(runs=1)])))
    _rebuild()
    day1 = _tick()
    four = Delivery.objects.current().get(innings__fixture=first, runs_batter=4)
    delivery_correct(delivery=four, changes={"runs_batter": 6}, reason="it was six", actor=editor)
    import_match(document(innings([ball("C Batter", runs=9)]), day="2024-05-02"))
    _rebuild()

    then = _records(anon_client, "highest-innings", as_of=day1)
    assert [(r["name"], r["runs"]) for r in then] == [("A Batter", 5)]
    now = _records(anon_client, "highest-innings")
    assert [(r["name"], r["runs"]) for r in now][:2] == [
        ("C Batter", 9),
        ("A Batter", 7),
    ]
    stands = anon_client.get(reverse("cricket-stats-partnerships"), {"as_of": day1}).json()
    assert [s["runs"] for s in stands["results"]] == [5]


def test_records_refuse_a_bad_as_of_naming_it(anon_client, data):
    response = anon_client.get(
        reverse("cricket-records", args=["highest-innings"]), {"as_of": "2025-06-01T00:00"}
    )
    assert response.status_code == 400
    assert "as_of" in error_names(response)


def test_the_records_command_answers_as_of_a_moment(data, capsys):
    call_command("cricket_records", "highest-innings", "--as-of", "2001-01-01", "--json")
    assert json.loads(capsys.readouterr().out) == []
    with pytest.raises(CommandError, match="--as-of"):
        call_command("cricket_records", "highest-innings", "--as-of", "soon")


def test_the_points_table_reads_as_of_a_moment(anon_client, data):
    url = reverse("cricket-points-table", args=[data.competition.get_root().pk])
    today = anon_client.get(url)
    assert today.status_code == 200, today.content
    assert today.json()
    assert anon_client.get(url, {"as_of": "now"}).json() == today.json()
    assert anon_client.get(url, {"as_of": "2001-01-01"}).json() == []
    bad = anon_client.get(url, {"as_of": "2001-01-01T00:00"})
    assert bad.status_code == 400
    assert "as_of" in error_names(bad)


@pytest.mark.django_db(transaction=True)
def test_a_ball_a_revised_file_added_counts_from_its_addition():
    from cricket.source_revisions import fixture_corrections_from_source
    from cricket.tests.factories import SubmissionFactory
    from ingest.cricsheet.validate import load

    doc = document(innings([ball(runs=4)]))
    fixture = import_match(doc, match_id="919001")
    _rebuild()
    day1 = _tick()
    doc["innings"][0]["overs"][0]["deliveries"].append(ball(runs=2))
    fixture_corrections_from_source(
        fixture=fixture,
        document=load(json.dumps(doc).encode(), filename="revised.json", match_id="919001"),
        submission=SubmissionFactory(),
        actor="integration:test",
    )
    _rebuild()
    assert _runs(as_of=day1)["A Batter"] == 4
    assert _runs()["A Batter"] == _runs(as_of="now")["A Batter"] == 6
