"""A collection started from the console, on real Celery workers: its job shows progress
while it runs; the worker is killed mid-way and the stale sweep marks the job failed with
the reason; the retry, on a new worker, reaches 100 % with the run's counts."""

from __future__ import annotations

import time

import pytest
from celery.result import AsyncResult
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Job, JobState
from accounts.services import account_groups_sync, jobs_sweep_stale
from accounts.services.jobs import stale_after
from catalogue.collection_records import Source
from catalogue.tests.factories import LocationFactory
from omnium.testing import celery_worker_start, celery_worker_stop

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# Enough rows that the first write after a second still finds the run mid-way on a fast
# machine (about 600 rows a second), few enough for a loaded one (about 40).
ROWS = 800


def _wait(what, predicate, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while True:
        found = predicate()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_a_console_collection_shows_progress_survives_a_killed_worker_and_retries(
    editor, tmp_path, settings
):
    feed = tmp_path / "feed.csv"
    lines = "".join(f"K{i},Maison{i % 7} Eau No {i} EDT 100 ml\n" for i in range(ROWS))
    feed.write_text("sku,name\n" + lines, encoding="utf-8")
    source = Source.objects.create(
        slug="jobs-feed",
        name="Jobs feed",
        feed_format="generic_csv",
        location=LocationFactory(),
        feed_path=str(feed),
        mapping={"fields": {"sku": "sku", "name": "name"}, "carries_prices": False},
    )
    account_groups_sync(user=editor)
    console = Client()
    console.force_login(editor)

    first = celery_worker_start()
    try:
        settings.JOBS_QUEUE = first.queue
        response = console.post(
            reverse("admin:accounts_job_start"), {"kind": "collect", "target": str(source.pk)}
        )
        job = Job.objects.get()
        assert response["Location"] == reverse("admin:accounts_job_change", args=[job.pk])
        running = _wait(
            "the first progress",
            lambda: Job.objects.filter(pk=job.pk, state=JobState.RUNNING, done__gt=0).first(),
        )
        assert running.total == ROWS and running.done < ROWS, "the collection ended too soon"
        page = console.get(reverse("admin:accounts_job_change", args=[job.pk])).content.decode()
        assert 'http-equiv="refresh"' in page and f"of {ROWS:,}" in page
        first.kill()  # mid-way: no chance to record anything
        first.wait(timeout=20)
    finally:
        celery_worker_stop(first)

    job.refresh_from_db()
    assert job.state == JobState.RUNNING  # nobody has noticed yet
    later = timezone.now() + stale_after()
    assert jobs_sweep_stale(now=later) == 1
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.error.startswith("worker lost: ")
    page = console.get(reverse("admin:accounts_job_change", args=[job.pk])).content.decode()
    assert "worker lost" in page and "Retry" in page

    second = celery_worker_start()
    try:
        settings.JOBS_QUEUE = second.queue
        console.post(reverse("admin:accounts_job_retry", args=[job.pk]))
        again = Job.objects.get(retry_of=job)
        done = _wait(
            "the retry",
            lambda: Job.objects.filter(
                pk=again.pk, state__in=[JobState.SUCCEEDED, JobState.FAILED]
            ).first(),
        )
        assert done.state == JobState.SUCCEEDED, done.error
        assert (done.done, done.total, done.percent) == (ROWS, ROWS, 100)
        assert done.result["rows_read"] == ROWS and done.result["status"] == "succeeded"
        assert done.result["listings_seen"] == ROWS
        page = console.get(reverse("admin:accounts_job_change", args=[again.pk]))
        body = page.content.decode()
        assert "100 %" in body and "rows read" in body and f"<td>{ROWS}</td>" in body
        assert 'http-equiv="refresh"' not in body
        # The suggest run the collection queued finishes before the database is emptied.
        AsyncResult(done.result["suggest_task"]).get(timeout=120)
    finally:
        celery_worker_stop(second)
