"""Celery adapters for staged batches: a batch id in, one service call, the state out.
Registered through ``CELERY_IMPORTS``. Both phases are resumable, so a task redelivered
after its worker died (acks_late) continues from the batch's checkpoint."""

from __future__ import annotations

import os

from celery import shared_task
from django.db import transaction

from ingest.batches import services
from ingest.batches.models import Batch


def _worker(task) -> str:
    return f"{task.request.hostname or 'celery'}:{os.getpid()}"


@shared_task(
    name="ingest.batch_validate",
    bind=True,
    acks_late=True,
    autoretry_for=(services.BatchLeaseHeld,),
    retry_backoff=30,
    max_retries=30,
)
def batch_validate_task(self, batch_id: str) -> str:
    """Validate a received batch. While another worker's lease is live, retry later."""
    batch = Batch.objects.get(pk=batch_id)
    return services.batch_validate(batch=batch, worker=_worker(self)).state


@shared_task(
    name="ingest.batch_publish",
    bind=True,
    acks_late=True,
    autoretry_for=(services.BatchLeaseHeld,),
    retry_backoff=30,
    max_retries=30,
)
def batch_publish_task(self, batch_id: str) -> str:
    """Publish an approved batch. While another worker's lease is live, retry later."""
    batch = Batch.objects.get(pk=batch_id)
    return services.batch_publish(batch=batch, worker=_worker(self)).state


def validate_after_commit(batch: Batch, **options) -> None:
    """Queue validation once the transaction that staged the batch commits."""
    pk = str(batch.pk)
    transaction.on_commit(lambda: batch_validate_task.apply_async(args=(pk,), **options))


def publish_after_commit(batch: Batch, **options) -> None:
    """Queue publication once the transaction that approved the batch commits."""
    pk = str(batch.pk)
    transaction.on_commit(lambda: batch_publish_task.apply_async(args=(pk,), **options))
