"""Jobs are the outbox of their tasks: the row commits with the change that asked for the
work, and a job whose message the broker never took (its sender killed after the commit,
or the broker down) is sent by the dispatcher, without the sender waiting on a dead broker."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time

import pytest
from django.utils import timezone

from accounts.models import Job, JobKind, JobState, OutboxMessage
from accounts.services import job_start, jobs_dispatch_unsent, task_enqueue
from omnium.testing import REPO_ROOT, _database_url_for_test_db

LATER = dt.timedelta(minutes=5)


@pytest.fixture(autouse=True)
def _nobody_consumes(settings):
    settings.JOBS_QUEUE = "test-outbox-nobody-consumes"


@pytest.mark.django_db
def test_a_job_whose_sender_died_after_its_commit_is_sent_by_the_dispatcher(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks():  # the callbacks never run: the sender died
        job = job_start(kind=JobKind.SUGGEST, actor=None, via="beat")
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 1
    job.refresh_from_db()
    assert job.sent_at is not None and job.state == JobState.QUEUED
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 0


@pytest.mark.django_db
def test_a_job_just_asked_for_is_left_to_its_own_sender(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        job_start(kind=JobKind.SUGGEST, actor=None, via="beat")
    assert jobs_dispatch_unsent() == 0


@pytest.mark.django_db
def test_a_sent_job_that_never_started_is_sent_again_after_the_resend_interval(
    django_capture_on_commit_callbacks, settings
):
    with django_capture_on_commit_callbacks(execute=True):
        job = job_start(kind=JobKind.SUGGEST, actor=None, via="beat")
    job.refresh_from_db()
    first = job.sent_at
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 0
    later = timezone.now() + dt.timedelta(seconds=settings.JOBS_RESEND_SECONDS + 1)
    assert jobs_dispatch_unsent(now=later) == 1
    job.refresh_from_db()
    assert job.sent_at > first


@pytest.mark.django_db
def test_a_started_or_finished_job_is_never_sent_again(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        running = job_start(kind=JobKind.SUGGEST, actor=None, via="beat")
        finished = job_start(kind=JobKind.SUGGEST, actor=None, via="beat")
    Job.objects.filter(pk=running.pk).update(state=JobState.RUNNING, started_at=timezone.now())
    Job.objects.filter(pk=finished.pk).update(
        state=JobState.SUCCEEDED, started_at=timezone.now(), finished_at=timezone.now()
    )
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 0


# Run by a process whose broker and cache are a closed port: it asks for a job in a
# transaction and reports how long the commit and the failed send took.
SENDER = """
import time, django
django.setup()
from django.db import transaction
from accounts.models import JobKind
from accounts.services import job_start
began = time.monotonic()
with transaction.atomic():
    job = job_start(kind=JobKind.SUGGEST, actor=None, via="beat")
print(job.pk, round(time.monotonic() - began, 2))
"""


@pytest.mark.django_db(transaction=True)
def test_a_job_asked_for_while_the_broker_is_down_commits_at_once_and_is_sent_later():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
        "DATABASE_URL": _database_url_for_test_db(),
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "JOBS_QUEUE": "test-outbox-nobody-consumes",
    }
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", SENDER],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pk, seconds = done.stdout.split()
    assert float(seconds) < 3, f"the sender waited {seconds} s on a dead broker"
    assert "not sent, left for the dispatcher" in done.stderr
    job = Job.objects.get(pk=pk)
    assert job.state == JobState.QUEUED and job.sent_at is None
    assert time.monotonic() - began < 60
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 1
    job.refresh_from_db()
    assert job.sent_at is not None


@pytest.mark.django_db
def test_a_short_task_asked_for_before_its_sender_died_is_sent_by_the_dispatcher(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks():  # never run: the sender died after commit
        message = task_enqueue(
            "catalogue.price_alerts_check", args=[[1]], queue="test-outbox-nobody-consumes"
        )
    assert jobs_dispatch_unsent() == 0  # within the grace its own sender may still send it
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 1
    message.refresh_from_db()
    assert message.sent_at is not None and message.attempts == 1
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 0


@pytest.mark.django_db
def test_a_short_task_is_sent_once_its_transaction_commits(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        message = task_enqueue(
            "catalogue.price_alerts_check", args=[[1]], queue="test-outbox-nobody-consumes"
        )
    message.refresh_from_db()
    assert message.sent_at is not None
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 0


@pytest.mark.django_db
def test_a_short_task_asked_for_in_a_rolled_back_transaction_is_never_sent():
    from django.db import transaction

    with transaction.atomic():
        task_enqueue("catalogue.price_alerts_check", args=[[1]])
        transaction.set_rollback(True)
    assert not OutboxMessage.objects.exists()
    assert jobs_dispatch_unsent(now=timezone.now() + LATER) == 0
