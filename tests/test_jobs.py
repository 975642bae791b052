"""Jobs: one progress callback for the CLI's bar and the job row (throttled to about one
write a second), the job service, the stale sweep, the console's job pages and buttons,
and ``/api/v1/jobs/``."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient
from tqdm import tqdm

from accounts.models import Job, JobKind, JobState
from accounts.services import account_groups_sync, job_execute, job_start, jobs_sweep_stale
from accounts.tests.factories import StaffFactory, UserFactory
from omnium.progress import Progress, ProgressState


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_one_progress_feeds_the_bar_every_call_and_the_record_about_once_a_second():
    clock, written = FakeClock(), []
    bar = tqdm(total=None, file=io.StringIO(), mininterval=0)
    progress = Progress(bar=bar, record=written.append, clock=clock)
    progress(0, total=500, step="reading")
    for done in range(1, 501):
        clock.now += 0.01  # 500 rows over five seconds
        progress(done)
    assert bar.n == 500 and bar.total == 500 and bar.postfix == "reading"
    # The first call, then one a second: five seconds of work, six writes at most.
    assert 5 <= len(written) <= 6
    assert written[0] == ProgressState(done=0, total=500, step="reading")
    assert written[-1].done < 500  # the last row came within the second
    progress.close()
    assert written[-1] == ProgressState(done=500, total=500, step="reading")
    assert progress.writes == len(written)
    assert ProgressState(done=250, total=500).fraction == 0.5


def test_progress_without_a_record_or_a_total_still_draws():
    bar = tqdm(file=io.StringIO(), mininterval=0)
    progress = Progress(bar=bar)
    progress(3, step="rule a")
    progress(7)
    progress.close()
    assert bar.n == 7 and progress.writes == 0


pytestmark = pytest.mark.django_db


def test_a_job_starts_queued_and_its_task_is_sent_on_commit(
    django_capture_on_commit_callbacks, settings
):
    settings.JOBS_QUEUE = "test-nobody-consumes"
    with django_capture_on_commit_callbacks() as callbacks:
        job = job_start(kind=JobKind.SUGGEST, actor=None, via="beat")
    assert job.state == JobState.QUEUED and job.task_id
    assert Job.objects.get(pk=job.pk).sent_at is None
    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert job.sent_at is not None and job.send_options == {"queue": "test-nobody-consumes"}


def test_a_job_names_its_row_when_its_kind_acts_on_one():
    with pytest.raises(Exception, match="names its row"):
        job_start(kind=JobKind.COLLECT, actor=None, via="console", target="")
    with pytest.raises(Exception, match="no kind of job"):
        job_start(kind="dance", actor=None, via="console")


def test_executing_a_job_records_progress_result_and_the_end():
    job = job_start(kind=JobKind.SUGGEST, actor=None, via="cli", enqueue=False)

    def work(progress):
        progress(0, total=4, step="counting")
        progress(4)
        return {"proposed": 2}

    done = job_execute(job.pk, work)
    assert (done.state, done.done, done.total, done.percent) == (JobState.SUCCEEDED, 4, 4, 100)
    assert done.result == {"proposed": 2} and done.started_at and done.finished_at
    # A finished job is not run again (a retry is a new job).
    assert job_execute(job.pk, lambda progress: pytest.fail("ran twice")).pk == job.pk


def test_a_failing_job_records_the_reason_and_raises():
    job = job_start(kind=JobKind.SUGGEST, actor=None, via="cli", enqueue=False)

    def work(progress):
        progress(1, total=3)
        raise ValueError("the feed went away")

    with pytest.raises(ValueError):
        job_execute(job.pk, work)
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.error == "ValueError: the feed went away"
    assert (job.done, job.total, job.percent) == (1, 3, 33)


def test_the_sweep_marks_a_silent_running_job_failed_worker_lost():
    now = timezone.now()
    silent = Job.objects.create(
        kind=JobKind.SUGGEST,
        via="beat",
        state=JobState.RUNNING,
        started_at=now - dt.timedelta(minutes=20),
        heartbeat_at=now - dt.timedelta(minutes=10),
        worker="w1:42",
    )
    beating = Job.objects.create(
        kind=JobKind.SUGGEST, via="beat", state=JobState.RUNNING, heartbeat_at=now
    )
    assert jobs_sweep_stale(now=now) == 1
    silent.refresh_from_db()
    beating.refresh_from_db()
    assert silent.state == JobState.FAILED and silent.error.startswith("worker lost: w1:42")
    assert beating.state == JobState.RUNNING


def test_the_sweep_is_on_the_beat_schedule(settings):
    from accounts import tasks
    from omnium.celery import app

    assert tasks.jobs_sweep_stale_task.name == "accounts.jobs_sweep_stale"
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-stale-jobs"]
    assert entry["task"] == "accounts.jobs_sweep_stale"
    assert entry["task"] in app.tasks


def test_eta_follows_the_pace_so_far():
    now = timezone.now()
    job = Job(
        kind=JobKind.COLLECT,
        state=JobState.RUNNING,
        started_at=now - dt.timedelta(seconds=10),
        done=25,
        total=100,
    )
    assert job.eta(now) == now + dt.timedelta(seconds=30)
    assert Job(kind=JobKind.SUGGEST, state=JobState.RUNNING).eta(now) is None


# --- the console ---------------------------------------------------------------------------


def _console(user) -> Client:
    account_groups_sync(user=user)
    client = Client()
    client.force_login(type(user).objects.get(pk=user.pk))
    return client


def _jobs(n: int, **fields) -> list[Job]:
    return [Job.objects.create(kind=JobKind.SUGGEST, via="beat", **fields) for _ in range(n)]


LIST = reverse("admin:accounts_job_changelist")
START = reverse("admin:accounts_job_start")


def test_the_jobs_page_lists_newest_first_filters_and_costs_fixed_queries(
    editor, django_assert_num_queries
):
    client = _console(editor)
    client.get(LIST)  # warm the session and the content types
    _jobs(3)
    finished = timezone.now()
    _jobs(2, state=JobState.FAILED, error="worker lost", finished_at=finished)
    for n in (1, 12):
        if n == 12:
            _jobs(7, started_by=editor)
        with django_assert_num_queries(8):
            page = client.get(LIST)
        assert page.status_code == 200
    body = page.content.decode()
    assert body.index("editor (beat)") < body.index("— (beat)")  # newest first
    assert 'http-equiv="refresh"' in body  # queued jobs: the page follows them
    failed = client.get(LIST, {"state": JobState.FAILED}).content.decode()
    assert failed.count('class="job-state job-failed"') == 2
    assert 'class="job-state job-queued"' not in failed
    assert "Start: collection" in body and "Start: statistics rebuild" in body


def test_a_reviewer_may_start_suggest_but_not_a_collection(reviewer):
    from accounts.access import competition_grant_set

    competition_grant_set(user=reviewer, competition=None, role=reviewer.role, actor=None)
    client = _console(reviewer)
    body = client.get(LIST).content.decode()
    assert "Start: suggest merge candidates" in body and "Start: collection" not in body
    assert client.post(START, {"kind": JobKind.COLLECT, "target": "x"}).status_code == 403
    response = client.post(START, {"kind": JobKind.SUGGEST})
    job = Job.objects.get()
    assert response["Location"] == reverse("admin:accounts_job_change", args=[job.pk])
    assert (job.kind, job.started_by, job.via) == (JobKind.SUGGEST, reviewer, "console")


def test_a_collection_needs_an_enabled_source_with_a_feed(editor):
    response = _console(editor).post(START, {"kind": JobKind.COLLECT, "target": "nope"})
    assert response.status_code == 302 and not Job.objects.exists()


def test_the_job_page_shows_the_counts_or_the_reason_and_offers_a_retry(editor):
    done = Job.objects.create(
        kind=JobKind.SUGGEST,
        via="console",
        state=JobState.SUCCEEDED,
        done=9,
        total=9,
        finished_at=timezone.now(),
        result={"proposed": 4, "superseded": 1},
    )
    lost = Job.objects.create(
        kind=JobKind.SUGGEST,
        via="console",
        state=JobState.FAILED,
        finished_at=timezone.now(),
        error="worker lost: w1 last heard of at 10:00",
    )
    client = _console(editor)
    page = client.get(reverse("admin:accounts_job_change", args=[done.pk])).content.decode()
    assert "100 %" in page and "proposed" in page and "<td>4</td>" in page
    assert 'http-equiv="refresh"' not in page and "Retry" not in page
    page = client.get(reverse("admin:accounts_job_change", args=[lost.pk])).content.decode()
    assert "worker lost" in page and "Retry" in page
    response = client.post(reverse("admin:accounts_job_retry", args=[lost.pk]))
    again = Job.objects.get(retry_of=lost)
    assert response["Location"] == reverse("admin:accounts_job_change", args=[again.pk])
    assert client.post(reverse("admin:accounts_job_retry", args=[done.pk])).status_code == 302
    assert not Job.objects.filter(retry_of=done).exists()


def test_the_home_page_shows_the_jobs(editor):
    _jobs(1)
    page = _console(editor).get(reverse("admin:index")).content.decode()
    assert 'id="queue-jobs"' in page and "Suggest merge candidates" in page


# --- the API -------------------------------------------------------------------------------

API = "/api/v1/jobs/"


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_shows_a_person_their_own_jobs_and_staff_all():
    person, other, staff = UserFactory(), UserFactory(), StaffFactory()
    mine = _jobs(2, started_by=person)
    _jobs(1, started_by=other)
    response = _api(person).get(API)
    assert response.status_code == 200
    assert [row["id"] for row in response.data["results"]] == [str(j.pk) for j in mine[::-1]]
    assert set(response.data) == {"next", "previous", "results"}
    assert len(_api(staff).get(API).data["results"]) == 3
    theirs = Job.objects.get(started_by=other)
    assert _api(person).get(f"{API}{theirs.pk}/").status_code == 404
    row = _api(person).get(f"{API}{mine[0].pk}/").data
    assert row["state"] == "queued" and row["percent"] is None and row["eta"] is None
    assert APIClient().get(API).status_code in (401, 403)


def test_the_api_filters_strictly_and_pages_by_the_rules(editor):
    _jobs(2)
    _jobs(1, state=JobState.FAILED, error="x", finished_at=timezone.now())
    client = _api(editor)
    assert len(client.get(API, {"state": "failed"}).data["results"]) == 1
    assert len(client.get(API, {"kind": "suggest", "page_size": 2}).data["results"]) == 2
    assert client.get(API, {"state": "sleeping"}).status_code == 400
    assert client.get(API, {"colour": "red"}).status_code == 400
    assert client.get(API, {"page_size": 201}).status_code == 400


def test_the_schema_documents_the_jobs():
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/jobs/" in schema["paths"] and "/api/v1/jobs/{id}/" in schema["paths"]
    params = {p["name"] for p in schema["paths"]["/api/v1/jobs/"]["get"]["parameters"]}
    assert {"state", "kind", "cursor", "page_size"} <= params


def test_the_command_line_rebuild_is_a_job_with_its_steps_and_counts():
    from django.core.management import call_command

    out = io.StringIO()
    call_command("rebuild_cricket_statistics", verbosity=0, stdout=out)
    job = Job.objects.get()
    assert (job.kind, job.via, job.state) == (JobKind.STATISTICS_REBUILD, "cli", "succeeded")
    assert (job.done, job.total, job.step) == (3, 3, "done")
    assert set(job.result) == {"lines", "snapshots", "records"}
    assert "line rows" in out.getvalue()


def test_the_sources_page_starts_a_collection_job_for_an_editor_only(editor, reviewer):
    from catalogue.collection_records import Source
    from catalogue.tests.factories import LocationFactory

    location = LocationFactory()
    fed = Source.objects.create(
        slug="fed", name="Fed", feed_format="generic_csv", location=location, feed_path="f.csv"
    )
    bare = Source.objects.create(
        slug="bare", name="Bare", feed_format="generic_csv", location=location
    )
    sources = reverse("admin:catalogue_source_changelist")
    chosen = {"action": "collect_sources", "_selected_action": [str(fed.pk), str(bare.pk)]}
    _console(reviewer).post(sources, chosen)
    assert not Job.objects.exists()
    response = _console(editor).post(sources, chosen, follow=True)
    job = Job.objects.get()
    assert (job.kind, job.target, job.started_by, job.via) == (
        "collect",
        str(fed.pk),
        editor,
        "console",
    )
    text = response.content.decode()
    assert (
        "1 collection(s) queued" in text and "Not started (disabled, or no feed file): bare" in text
    )


def test_the_api_list_costs_the_same_queries_for_one_job_or_many(
    editor, django_assert_max_num_queries
):
    client = _api(editor)
    _jobs(1, started_by=editor)
    with django_assert_max_num_queries(6) as one:
        assert client.get(API).status_code == 200
    _jobs(20, started_by=editor)
    with django_assert_max_num_queries(len(one)):
        assert len(client.get(API).data["results"]) == 21


def test_a_scheduled_job_without_a_starter_matches_its_documented_shape(editor):
    _jobs(1, started_by=None)
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    shape = schema["components"]["schemas"]["Job"]
    row = _api(editor).get(API).json()["results"][0]
    assert row["started_by"] is None and row["eta"] is None
    for name, field in shape["properties"].items():
        if row[name] is None:
            assert field.get("nullable"), f"{name} is null but the schema does not allow it"
