"""Validation and publication of a batch on a real Celery worker."""

import time

import pytest

from cricket.stats.models import RefreshStatus, StatisticsRefresh
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import BatchState
from ingest.batches.tasks import batch_publish_task, batch_validate_task
from ingest.tests.batch_factories import SMALL, BatchFactory
from sports.models import Fixture

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.worker,
    pytest.mark.usefixtures("batch_grants"),
]


def test_a_batch_validates_and_publishes_on_a_real_worker(
    celery_worker_process, submitter, reviewer
):
    seed_dismissal_kinds()
    queue = celery_worker_process.queue
    batch = BatchFactory(submitter=submitter)
    state = batch_validate_task.apply_async(args=[str(batch.pk)], queue=queue).get(timeout=120)
    assert state == BatchState.AWAITING_REVIEW
    batch.refresh_from_db()
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="ok")
    state = batch_publish_task.apply_async(args=[str(batch.pk)], queue=queue).get(timeout=120)
    assert state == BatchState.PUBLISHED
    assert Fixture.objects.public().count() == len(SMALL)
    assert batch.checkpoints.get(phase="publish").lease_owner == ""
    # Publication asked for the fixtures' statistics: the worker builds them too (and is
    # not left writing while the test database is emptied).
    deadline = time.monotonic() + 120
    while StatisticsRefresh.objects.filter(status=RefreshStatus.PENDING).exists():
        assert time.monotonic() < deadline, "the statistics refresh did not finish"
        time.sleep(0.2)
    assert StatisticsRefresh.objects.filter(status=RefreshStatus.DONE).count() == len(SMALL)
