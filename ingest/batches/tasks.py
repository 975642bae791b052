"""Celery adapters for staged batches: a batch id in, one service call, the state out.
Registered through ``CELERY_IMPORTS``. Both phases are resumable, so a task redelivered
after its worker died (acks_late) continues from the batch's checkpoint."""

from __future__ import annotations

import math
import os

from celery import shared_task

from accounts.models import Job, JobKind, User
from accounts.services import job_execute, job_start
from ingest.batches import services
from ingest.batches.models import Batch
from omnium.progress import Progress

# A live lease of another worker: the task retries later, and so the job waits.
_RETRIED = (services.BatchLeaseHeld,)
# How often a phase waits for another worker's lease before giving up: with leases of
# BATCH_LEASE_SECONDS this is hours, far past any live worker's item.
LEASE_WAITS = 360


def _worker(task) -> str:
    return f"{task.request.hostname or 'celery'}:{os.getpid()}"


@shared_task(
    name="ingest.batch_validate",
    bind=True,
    acks_late=True,
    max_retries=LEASE_WAITS,
)
def batch_validate_task(self, batch_id: str, job_id: str | None = None) -> str:
    """Validate a received batch (as job ``job_id`` when given). While another worker's
    lease is live, retry as it expires."""
    return _run_phase(self, services.batch_validate, batch_id, job_id)


@shared_task(
    name="ingest.batch_publish",
    bind=True,
    acks_late=True,
    max_retries=LEASE_WAITS,
)
def batch_publish_task(self, batch_id: str, job_id: str | None = None) -> str:
    """Publish an approved batch (as job ``job_id`` when given). While another worker's
    lease is live, retry as it expires."""
    return _run_phase(self, services.batch_publish, batch_id, job_id)


def _run_phase(task, phase, batch_id: str, job_id: str | None) -> str:
    """Run a leased batch phase (validation or publication) as job ``job_id`` when given;
    the batch's state after it."""
    batch = Batch.objects.get(pk=batch_id)
    state: list[str] = []

    def work(progress: Progress) -> dict:
        state.append(phase(batch=batch, worker=_worker(task), progress=progress).state)
        return {"state": state[0]}

    try:
        job = job_execute(job_id, work, retry_on=_RETRIED)
    except services.BatchLeaseHeld as held:
        # Try again just after the other worker's lease expires: a dead worker's phase
        # resumes within seconds, a live one's is not touched.
        raise task.retry(exc=held, countdown=math.ceil(held.seconds_left()) + 1) from held
    return state[0] if state else (job.result.get("state", "") if job else "")


def validate_after_commit(
    batch: Batch, *, actor: User | None = None, via: str = "api", **options
) -> Job:
    """Start the batch's validation job: its task is queued once the transaction that staged
    the batch commits."""
    return job_start(
        kind=JobKind.BATCH_VALIDATE,
        actor=actor,
        via=via,
        target=batch.pk,
        target_label=f"batch {str(batch.pk)[:8]}",
        **options,
    )


def publish_after_commit(
    batch: Batch, *, actor: User | None = None, via: str = "api", **options
) -> Job:
    """Start the batch's publication job: its task is queued once the transaction that
    approved the batch commits."""
    return job_start(
        kind=JobKind.BATCH_PUBLISH,
        actor=actor,
        via=via,
        target=batch.pk,
        target_label=f"batch {str(batch.pk)[:8]}",
        **options,
    )
