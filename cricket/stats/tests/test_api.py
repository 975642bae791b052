"""Statistics API and pages: leaderboards, careers, traceability, releases."""

import csv
import hashlib
import io
import json

import pytest
from django.core.management import call_command
from django.db import DatabaseError, transaction
from django.urls import reverse

from cricket.stats.models import DatasetRelease, DatasetReleaseJob
from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.release import BATTING_CSV, TEAM_CSV, dataset_release_build
from cricket.stats.tests.builders import ball, document, import_match, innings
from sports.models import Participant

pytestmark = pytest.mark.django_db

BOWLED = [{"player_out": "B Batter", "kind": "bowled"}]


@pytest.fixture
def data():
    t20 = import_match(
        document(
            innings([ball(runs=4), ball(runs=6), ball("B Batter", wickets=BOWLED)]),
            innings([ball("X Bowler", "A Batter", "Y Bowler", runs=1)], team="Away",
                    super_over=True),
        )
    )  # fmt: skip
    odi = import_match(document(innings([ball(runs=2)]), match_type="ODI", day="2024-06-01"))
    statistics_rebuild_all(reason="test", actor="integration:test")
    return t20, odi


def _pid(name):
    return Participant.objects.get(name=name).pk


def test_the_batting_leaderboard_orders_by_runs_in_scope(anon_client, data):
    body = anon_client.get(reverse("cricket-leaderboard-batting")).json()
    assert [(r["rank"], r["name"], r["runs"]) for r in body["results"][:2]] == [
        (1, "A Batter", 12),
        (2, "B Batter", 0),
    ]
    t20 = anon_client.get(reverse("cricket-leaderboard-batting"), {"match_type": "T20"}).json()
    assert t20["results"][0]["runs"] == 10
    assert t20["scope"]["match_type"] == "T20"


def test_the_super_over_scope_is_explicit(anon_client, data):
    body = anon_client.get(reverse("cricket-leaderboard-batting"), {"super_overs": "only"}).json()
    assert [(r["name"], r["runs"]) for r in body["results"] if r["runs"]] == [("X Bowler", 1)]


def test_the_bowling_leaderboard_lists_bowlers_by_wickets(anon_client, data):
    body = anon_client.get(reverse("cricket-leaderboard-bowling")).json()
    assert [(r["name"], r["wickets"]) for r in body["results"]] == [("X Bowler", 1)]
    assert body["count"] == 1


def test_a_bad_scope_or_ordering_is_a_400_naming_it(anon_client, data):
    url = reverse("cricket-leaderboard-batting")
    assert anon_client.get(url, {"ordering": "shoe_size"}).status_code == 400
    assert anon_client.get(url, {"super_overs": "both"}).status_code == 400
    assert anon_client.get(url, {"date_from": "yesterday"}).status_code == 400


def test_a_player_career_has_a_row_per_format_and_the_super_overs_apart(
    anon_client, data, django_assert_max_num_queries
):
    # 3 are the anonymous limit counters, 1 the freshness query (ETag, omnium.conditional),
    # 1 the refreshes the career still owes (its stale flag, read once)
    with django_assert_max_num_queries(11):
        body = anon_client.get(reverse("cricket-player-career", args=[_pid("A Batter")])).json()
    formats = {row["format"]: row["runs"] for row in body["formats"]}
    assert formats == {"ODI": 2, "T20": 10, "all": 12}
    assert body["registry_ids"] == ["aaaa0001"]
    assert [row["runs_conceded"] for row in body["super_overs"] if row["format"] == "all"] == [1]
    assert len(body["innings"]) == 2


def test_a_merged_player_id_answers_with_the_survivor(anon_client, data):
    survivor, loser = _pid("A Batter"), _pid("C Batter")
    Participant.objects.filter(pk=loser).update(merged_into=survivor)
    body = anon_client.get(reverse("cricket-player-career", args=[loser])).json()
    assert body["id"] == str(survivor)


def test_a_figure_expands_to_its_deliveries_with_revisions_and_submissions(anon_client, data):
    url = reverse("cricket-player-trace", args=[_pid("A Batter")])
    body = anon_client.get(url, {"figure": "runs"}).json()
    assert body["count"] == 3
    assert sum(d["runs_batter"] for d in body["results"]) == 12
    first = body["results"][0]
    assert (first["revision"], first["submission"]["accepted"]) == (1, True)
    assert first["submission"]["original_filename"].endswith(".json")
    wickets = anon_client.get(
        reverse("cricket-player-trace", args=[_pid("X Bowler")]), {"figure": "wickets"}
    ).json()
    assert [d["ball_label"] for d in wickets["results"]] == ["0.3"]


def test_an_untraceable_figure_is_a_400(anon_client, data):
    url = reverse("cricket-player-trace", args=[_pid("A Batter")])
    assert anon_client.get(url, {"figure": "highest"}).status_code == 400


def test_releases_are_for_staff_only(anon_client, client, viewer, data):
    assert anon_client.get(reverse("cricket-releases")).status_code in (401, 403)
    client.force_login(viewer)
    assert client.get(reverse("cricket-releases")).status_code == 403


def test_an_editor_requests_a_release_and_the_job_publishes_an_immutable_record(
    editor_client, settings, tmp_path, data, django_capture_on_commit_callbacks
):
    settings.PRIVATE_MEDIA_ROOT = tmp_path
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = editor_client.post(
            reverse("cricket-releases"), {"match_type": "T20"}, format="json"
        )
    assert response.status_code == 202
    assert len(callbacks) == 1
    release = dataset_release_build(job_id=response.json()["id"])
    assert DatasetReleaseJob.objects.get().status == "done"
    names = [f["name"] for f in release.files]
    assert names == [
        "batting_careers.csv", "bowling_careers.csv", "team_innings.csv", "manifest.json",
    ]  # fmt: skip
    for entry in release.files:
        stored = (tmp_path / entry["storage_key"]).read_bytes()
        assert hashlib.sha256(stored).hexdigest() == entry["sha256"]
    with pytest.raises(DatabaseError), transaction.atomic():
        DatasetRelease.objects.filter(pk=release.pk).update(actor="someone else")


def test_a_reviewer_downloads_a_release_file(client, reviewer, settings, tmp_path, data):
    settings.PRIVATE_MEDIA_ROOT = tmp_path
    job = DatasetReleaseJob.objects.create(scope={"super_overs": "exclude"}, actor="t")
    release = dataset_release_build(job_id=job.pk)
    client.force_login(reviewer)
    url = reverse("cricket-release-file", args=[release.pk, "batting_careers.csv"])
    response = client.get(url)
    assert response.status_code == 200
    header = b"".join(response.streaming_content).decode().splitlines()[0]
    assert header == ",".join(BATTING_CSV)
    missing = reverse("cricket-release-file", args=[release.pk, "secrets.txt"])
    assert client.get(missing).status_code == 404


def test_the_release_command_writes_three_files_and_a_manifest(tmp_path, data):
    out = tmp_path / "release"
    call_command("release_cricket_dataset", "--out", str(out), "--format", "T20",
                 "--gender", "male", stdout=io.StringIO())  # fmt: skip
    manifest = json.loads((out / "manifest.json").read_text())
    for entry in manifest["files"]:
        raw = (out / entry["name"]).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == entry["sha256"]
        assert len(raw.decode().splitlines()) == entry["rows"] + 1
    team = list(csv.reader((out / "team_innings.csv").open()))
    assert tuple(team[0]) == TEAM_CSV
    assert [row[5:] for row in team[1:]] == [["3", "false"]]
    batting = {row[0]: row for row in csv.reader((out / "batting_careers.csv").open())}
    assert batting["aaaa0001"][4] == "10"


def test_the_release_command_can_take_the_super_overs_alone(tmp_path, data):
    out = tmp_path / "super"
    call_command("release_cricket_dataset", "--out", str(out), "--super-overs", "only",
                 stdout=io.StringIO())  # fmt: skip
    team = list(csv.reader((out / "team_innings.csv").open()))
    assert [(row[1], row[3], row[6]) for row in team[1:]] == [("2", "1", "true")]


def test_the_player_page_shows_format_tables_and_innings(
    client, data, django_assert_max_num_queries
):
    with django_assert_max_num_queries(11):  # + the owed refreshes of the career
        page = client.get(reverse("cricket_stats:player", args=[_pid("A Batter")]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Batting and fielding" in html and "innings-list" in html and "aaaa0001" in html


def test_the_leaderboard_page_lists_most_runs_and_most_wickets(
    client, data, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6):
        runs = client.get(reverse("cricket_stats:leaderboards"), {"match_type": "T20"})
    assert "A Batter" in runs.content.decode()
    wickets = client.get(reverse("cricket_stats:leaderboards"), {"board": "wickets"})
    assert "X Bowler" in wickets.content.decode()
    assert client.get(reverse("cricket_stats:leaderboards"), {"board": "x"}).status_code == 400
