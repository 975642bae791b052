"""The query views over HTTP and the command line: the vocabulary, pages, the stale flag,
and dataset releases that never publish figures a refresh still owes."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from cricket.stats.models import RefreshStatus, StatisticsRefresh
from cricket.stats.refresh import statistics_rebuild_all, statistics_refresh
from cricket.stats.release import BATTING_CSV, BOWLING_CSV
from cricket.stats.tests.builders import ball, document, import_match, innings
from omnium.testing import error_names
from sports.models import Participant

pytestmark = pytest.mark.django_db

BOWLED = [{"player_out": "B Batter", "kind": "bowled"}]


@pytest.fixture
def data():
    t20 = import_match(
        document(innings([ball(runs=4), ball(runs=6), ball("B Batter", wickets=BOWLED)]))
    )
    odi = import_match(
        document(innings([ball(runs=2), ball(runs=1)]), match_type="ODI", day="2024-06-01")
    )
    statistics_rebuild_all(reason="test", actor="integration:test")
    # The imports' own refreshes never ran here (no worker): the rebuild did their work.
    StatisticsRefresh.objects.update(status=RefreshStatus.DONE)
    return t20, odi


def _get(client, view, **params):
    return client.get(reverse(f"cricket-stats-{view}"), params)


def test_the_format_filter_is_case_insensitive(anon_client, data):
    response = _get(anon_client, "batting", format="odi")
    assert response.status_code == 200, response.content
    rows = {r["name"]: r for r in response.json()["results"]}
    assert rows["A Batter"]["runs"] == 3  # the ODI only
    assert response.json()["query"] == {"view": "batting", "format": "odi"}


def test_an_unknown_parameter_is_a_400_naming_it(anon_client, data):
    response = _get(anon_client, "batting", match_type="ODI")
    assert response.status_code == 400
    assert "match_type" in error_names(response)


def test_an_unknown_team_is_a_400_naming_the_parameter(anon_client, data):
    response = _get(anon_client, "bowling", team="India")
    assert response.status_code == 400
    assert "team" in error_names(response)


def test_an_ordering_the_view_does_not_show_is_a_400(anon_client, data):
    response = _get(anon_client, "bowling", ordering="-sixes")
    assert response.status_code == 400
    assert "ordering" in error_names(response)


def test_every_view_answers_in_a_fixed_number_of_queries(
    anon_client, data, django_assert_num_queries
):
    for view in ("batting", "bowling", "fielding", "team"):
        # the fold, the pending-refresh check and the admission throttle's read
        with django_assert_num_queries(3):
            assert _get(anon_client, view).status_code == 200


def test_pages_follow_the_cursor_without_repeating_a_row(anon_client, data):
    first = _get(anon_client, "batting", page_size=1).json()
    assert first["previous"] is None and first["next"]
    second = anon_client.get(first["next"]).json()
    assert second["results"][0]["rank"] == 2
    assert second["results"][0]["name"] != first["results"][0]["name"]


def test_a_bad_cursor_is_a_400(anon_client, data):
    assert _get(anon_client, "batting", cursor="!!").status_code == 400


def test_a_scope_with_a_pending_refresh_is_flagged_stale_with_its_queue_time(anon_client, data):
    t20, _ = data
    assert _get(anon_client, "batting").json()["stale"] is False
    refresh = statistics_refresh(fixture_ids=[t20.pk], reason="fix", actor="integration:t")
    body = _get(anon_client, "batting").json()
    assert body["stale"] is True
    assert body["refresh_queued_at"].startswith(refresh.requested_at.isoformat()[:19])
    # An ODI-only query does not read the T20 being refreshed.
    assert _get(anon_client, "batting", format="ODI").json()["stale"] is False


def test_a_players_innings_list_shows_each_innings_with_how_it_ended(anon_client, data):
    b = Participant.objects.get(name="B Batter")
    response = anon_client.get(reverse("cricket-player-innings", args=[b.pk]))
    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["format"], r["score"], r["how_out"]) for r in rows] == [
        ("ODI", "0*", "not out"),
        ("T20", "0", "bowled"),
    ]
    assert rows[1]["opposition"] == "Away" and rows[1]["venue"] == "Hand Ground"


def test_the_command_prints_the_apis_rows_as_json(anon_client, data):
    out = io.StringIO()
    call_command("cricket_stats", "batting", "--format", "t20", "--json", stdout=out)
    rows = json.loads(out.getvalue())
    api = _get(anon_client, "batting", format="t20").json()["results"]
    assert rows == api
    assert all(row["registry_id"] and row["name"] for row in rows)


def test_the_command_refuses_a_bad_value_naming_the_option(data):
    with pytest.raises(CommandError, match="--opposition"):
        call_command("cricket_stats", "batting", "--opposition", "Nowhere")
    with pytest.raises(CommandError, match="--group-by"):
        call_command("cricket_stats", "team", "--group-by", "innings")


def test_the_command_refuses_an_unknown_option(data):
    with pytest.raises(CommandError, match="--umpire"):
        call_command("cricket_stats", "batting", "--umpire", "x")


def test_a_release_with_no_refresh_names_the_pending_refreshes_and_writes_nothing(data, tmp_path):
    t20, _ = data
    refresh = statistics_refresh(fixture_ids=[t20.pk], reason="fix", actor="integration:t")
    with pytest.raises(CommandError, match=str(refresh.pk)):
        call_command("release_cricket_dataset", "--out", str(tmp_path / "r"), "--no-refresh")
    assert not (tmp_path / "r").exists()


def test_a_release_runs_the_pending_refreshes_first(data, tmp_path):
    t20, _ = data
    refresh = statistics_refresh(fixture_ids=[t20.pk], reason="fix", actor="integration:t")
    call_command("release_cricket_dataset", "--out", str(tmp_path), stdout=io.StringIO())
    refresh.refresh_from_db()
    assert refresh.status == RefreshStatus.DONE


def test_the_release_files_carry_the_new_columns(data, tmp_path):
    call_command("release_cricket_dataset", "--out", str(tmp_path), stdout=io.StringIO())
    with (tmp_path / "batting_careers.csv").open() as handle:
        batting = {row["name"]: row for row in csv.DictReader(handle)}
    with (tmp_path / "bowling_careers.csv").open() as handle:
        bowling = {row["name"]: row for row in csv.DictReader(handle)}
    assert tuple(next(iter(batting.values()))) == BATTING_CSV
    assert tuple(next(iter(bowling.values()))) == BOWLING_CSV
    b = batting["B Batter"]
    assert (b["not_outs"], b["ducks"], b["average"], b["sub_catches"]) == ("1", "1", "0.0", "0")
    assert batting["A Batter"]["average"] == ""  # never out
    x = bowling["X Bowler"]
    # 13 runs off 5 legal balls, one wicket, in six-ball overs
    assert (x["average"], x["economy"], x["strike_rate"]) == ("13.0", "15.6", "5.0")
    assert (x["best_match_wickets"], x["best_match_runs"], x["five_wickets"]) == ("1", "10", "0")


def test_a_leaderboard_says_stale_once_a_refresh_is_queued_even_after_a_cached_answer(
    anon_client, data
):
    t20, _ = data
    url = reverse("cricket-leaderboard-batting")
    assert anon_client.get(url).json()["stale"] is False
    statistics_refresh(fixture_ids=[t20.pk], reason="fix", actor="integration:t")
    assert anon_client.get(url).json()["stale"] is True


def test_a_career_says_stale_while_a_refresh_of_it_is_owed(anon_client, data):
    t20, _ = data
    a = Participant.objects.get(name="A Batter")
    url = reverse("cricket-player-career", args=[a.pk])
    assert anon_client.get(url).json()["stale"] is False
    statistics_refresh(fixture_ids=[t20.pk], reason="fix", actor="integration:t")
    body = anon_client.get(url).json()
    assert body["stale"] is True and body["refresh_queued_at"]
