"""The rest of the long work records its progress in a job, from the same callback as the
command line's bar: a statistics refresh, a dataset release (requested, or written by the
command), and the Cricsheet, Games and league imports (their commands and their tasks)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from accounts.models import Job, JobKind, JobState
from accounts.services import job_retry
from accounts.tests.factories import StaffFactory
from cricket.stats.aggregates import Scope
from cricket.stats.models import DatasetReleaseJob
from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.release import dataset_release_request
from cricket.stats.tasks import dataset_release_build_task, statistics_refresh_task
from cricket.stats.tests.builders import ball, document, import_match, innings

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parent.parent / "ingest" / "samples"


def _job(kind: str) -> Job:
    return Job.objects.get(kind=kind)


def test_a_statistics_refresh_is_a_job_whose_task_reports_its_two_steps():
    import_match(document(innings([ball(runs=4), ball(runs=1)])))
    job = _job(JobKind.STATISTICS_REFRESH)
    assert (job.state, job.via, job.target_label) == (
        JobState.QUEUED,
        "celery",
        "import (1 new match(es))",
    )
    assert statistics_refresh_task(job.target, job_id=str(job.pk)) == "done"
    job.refresh_from_db()
    assert (job.state, job.done, job.total, job.step) == (JobState.SUCCEEDED, 2, 2, "done")
    assert job.result["fixtures"] == 1 and job.result["refresh"] == job.target


def _release_request(editor_user) -> Job:
    import_match(document(innings([ball(runs=4), ball(runs=1)])))
    statistics_rebuild_all(reason="test", actor="integration:test")
    request = dataset_release_request(scope=Scope(), actor=editor_user)
    job = _job(JobKind.DATASET_RELEASE)
    assert (job.target, job.started_by, job.via) == (str(request.pk), editor_user, "api")
    return job


def test_a_release_request_is_a_job_and_its_build_reports_each_file(settings, tmp_path):
    settings.PRIVATE_MEDIA_ROOT = tmp_path
    job = _release_request(StaffFactory())
    release_id = dataset_release_build_task(job.target, job_id=str(job.pk))
    job.refresh_from_db()
    assert (job.state, job.done, job.total, job.step) == (JobState.SUCCEEDED, 5, 5, "stored")
    assert (
        job.result["release"] == release_id and job.result["batting_careers.csv"] == 6
    )  # both squads of three


def test_a_failed_release_build_fails_its_job_with_the_reason(settings, tmp_path, monkeypatch):
    settings.PRIVATE_MEDIA_ROOT = tmp_path
    job = _release_request(StaffFactory())

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("cricket.stats.release.write_release_files", broken)
    assert dataset_release_build_task(job.target, job_id=str(job.pk)) is None
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.error == "ReleaseFailed: disk full"
    assert DatasetReleaseJob.objects.get(pk=job.target).error == "disk full"


def test_the_release_command_is_a_job_with_its_files_as_steps(tmp_path):
    import_match(document(innings([ball(runs=4)])))
    call_command("release_cricket_dataset", "--out", str(tmp_path / "r"), stdout=io.StringIO())
    job = _job(JobKind.DATASET_RELEASE)
    assert (job.via, job.state, job.done, job.total) == ("cli", JobState.SUCCEEDED, 4, 4)
    assert job.result["team_innings.csv"] == 1 and str(tmp_path / "r") in job.target_label


def test_the_cricsheet_import_command_is_a_job_with_a_step_per_file(tmp_path):
    for n, runs in enumerate((4, 6), start=1):
        path = tmp_path / f"92000{n}.json"
        path.write_text(json.dumps(document(innings([ball(runs=runs)]))))
    call_command("import_cricsheet", str(tmp_path), verbosity=0, stdout=io.StringIO())
    job = _job(JobKind.CRICSHEET_IMPORT)
    assert (job.via, job.state, job.done, job.total) == ("cli", JobState.SUCCEEDED, 2, 2)
    assert (job.result["new"], job.step) == (2, "920002.json")


def _league_file(tmp_path: Path) -> Path:
    folder = tmp_path / "2021-22"
    folder.mkdir()
    path = folder / "w.1.json"
    matches = [
        {"round": "R1", "date": "2021-08-01", "team1": "North", "team2": "South"},
        {"round": "R2", "date": "2021-08-08", "team1": "South", "team2": "North"},
    ]
    for match, score in zip(matches, ([3, 1], [0, 0]), strict=True):
        match["score"] = {"ft": score}
    path.write_text(json.dumps({"name": "Job League 2021/22", "matches": matches}))
    return path


def test_the_league_import_command_is_a_job_with_a_step_per_match(tmp_path):
    path = _league_file(tmp_path)
    call_command(
        "import_openfootball", str(path), "--code", "jl", "--name", "Job League", verbosity=0,
        stdout=io.StringIO(),
    )  # fmt: skip
    job = _job(JobKind.LEAGUE_IMPORT)
    assert (job.via, job.state, job.done, job.total) == ("cli", JobState.SUCCEEDED, 2, 2)
    assert (job.result["fixtures_new"], job.step) == (2, "w.1.json")


def test_the_games_import_task_is_a_job_with_a_step_per_event():
    from ingest.sports_tasks import import_games_task

    line = import_games_task(str(SAMPLES / "games"), "job-games", "Job Games")
    job = _job(JobKind.GAMES_IMPORT)
    assert (job.via, job.state, job.result["line"]) == ("celery", JobState.SUCCEEDED, line)
    assert job.total == job.result["events"] > 0 and job.done == job.total


def test_a_refused_games_import_fails_its_job_with_the_reason(tmp_path):
    with pytest.raises(Exception, match="holds none of the Games files"):
        call_command(
            "import_games", str(tmp_path), "--code", "x", "--name", "X", verbosity=0,
            stdout=io.StringIO(),
        )  # fmt: skip
    job = _job(JobKind.GAMES_IMPORT)
    assert job.state == JobState.FAILED and "GamesInputError" in job.error


def test_an_import_run_by_its_command_is_not_retried_from_the_console(tmp_path):
    with pytest.raises(Exception):  # noqa: B017 - any refusal; the job is what is checked
        call_command(
            "import_games", str(tmp_path), "--code", "x", "--name", "X", verbosity=0,
            stdout=io.StringIO(),
        )  # fmt: skip
    with pytest.raises(ValidationError, match="run that again"):
        job_retry(job=_job(JobKind.GAMES_IMPORT), actor=None)
