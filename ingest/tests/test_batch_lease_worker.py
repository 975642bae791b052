"""A batch's publication on a real prefork Celery worker whose child is killed mid-way: the
broker hands the task back, the new child waits only for the dead child's lease to expire
(``BATCH_LEASE_SECONDS``, not a growing back-off) and publishes the rest, each match once."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.conf import settings as django_settings

from accounts.models import Job, JobState
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import BatchCheckpoint, BatchState, CheckpointPhase
from ingest.batches.tasks import publish_after_commit
from ingest.tests.batch_factories import SAMPLES, BatchFactory, sample
from omnium.testing import celery_worker_start, celery_worker_stop, worker_children
from sports.models import EntityType, ExternalIdMap, Submission, SubmissionKind

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("batch_grants"),
]

MATCHES = 12


def _wait(what, predicate, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        found = predicate()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _checkpoint(batch):
    return BatchCheckpoint.objects.filter(batch=batch, phase=CheckpointPhase.PUBLISH).first()


def test_a_publication_whose_worker_child_is_killed_resumes_within_a_minute_exactly_once(
    submitter, reviewer, settings
):
    seed_dismissal_kinds()
    ids = sorted(path.stem for path in SAMPLES.glob("*.json"))[:MATCHES]
    batch = BatchFactory(submitter=submitter, files=[sample(m) for m in ids])
    services.batch_validate(batch=batch)
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="ok")
    assert django_settings.BATCH_LEASE_SECONDS <= 30

    worker = celery_worker_start(pool="prefork")
    try:
        settings.JOBS_QUEUE = worker.queue
        job = publish_after_commit(batch, actor=reviewer)
        begun = _wait("the first item", lambda: (c := _checkpoint(batch)) and c.ordinal, 120)
        children = worker_children(worker)
        assert len(children) == 1
        os.kill(children[0], signal.SIGKILL)
        killed = time.monotonic()
        assert begun < MATCHES, "the publication ended before the child could be killed"

        _wait(
            "the resumed publication",
            lambda: Job.objects.filter(
                pk=job.pk, state__in=[JobState.SUCCEEDED, JobState.FAILED]
            ).first(),
            120,
        )
        resumed_in = time.monotonic() - killed
    finally:
        celery_worker_stop(worker)

    job.refresh_from_db()
    batch.refresh_from_db()
    assert job.state == JobState.SUCCEEDED, job.error
    assert batch.state == BatchState.PUBLISHED
    assert resumed_in < 60, f"took {resumed_in:.0f} s after the kill"
    assert _checkpoint(batch).attempts == 2
    assert Submission.objects.filter(kind=SubmissionKind.BATCH).count() == MATCHES
    for match_id in ids:
        fixtures = ExternalIdMap.objects.filter(
            entity_type=EntityType.FIXTURE, external_id=match_id
        )
        assert fixtures.count() == 1, match_id
    assert set(batch.items.values_list("publication", flat=True)) == {"published"}
