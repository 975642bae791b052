"""What the leased phases of a batch (validation, publication) share: the name a worker
holds a lease by, the lease itself, and the phase's progress over the items for the job
record and CLI bar."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils import timezone

if TYPE_CHECKING:
    from ingest.batches.models import Batch, BatchCheckpoint
    from omnium.progress import ProgressCallback


def local_worker() -> str:
    """A lease holder's name for work run outside Celery (a command, a test)."""
    return f"{socket.gethostname()}:{os.getpid()}"


class ItemProgress:
    """A phase's progress over a batch's items: those before the checkpoint count as done
    (a resumed phase starts where the last worker stopped). Two queries when asked."""

    def __init__(
        self,
        batch: Batch,
        checkpoint: BatchCheckpoint,
        progress: ProgressCallback | None,
        step: str,
    ) -> None:
        self.progress = progress
        if progress is None:
            return
        self.total = batch.items.count()
        self.done = batch.items.filter(ordinal__lte=checkpoint.ordinal).count()
        progress(self.done, total=self.total, step=f"{step} items")

    def one(self) -> None:
        """One more item done."""
        if self.progress is not None:
            self.done += 1
            self.progress(self.done)


class BatchLeaseHeld(RuntimeError):
    """Another worker holds the phase's lease and it has not expired; ``expires_at`` says
    when it will have."""

    def __init__(self, message: str, *, expires_at: datetime) -> None:
        super().__init__(message)
        self.expires_at = expires_at

    def seconds_left(self) -> float:
        return max(0.0, (self.expires_at - timezone.now()).total_seconds())


def lease_default() -> timedelta:
    """How long a phase's lease lasts past its last renewal (``BATCH_LEASE_SECONDS``). The
    worker renews it as each item begins, holding the checkpoint's row lock while the item
    is written, so a live worker never loses it; a dead one's is taken over this long after
    its last item began."""
    return timedelta(seconds=settings.BATCH_LEASE_SECONDS)


def take_lease(checkpoint: BatchCheckpoint, *, worker: str, lease: timedelta | None) -> None:
    """Take or renew the phase's lease on ``checkpoint`` (locked by the caller) for
    ``worker``; refuse with ``BatchLeaseHeld`` while another worker's is live."""
    now = timezone.now()
    if (
        checkpoint.lease_owner
        and checkpoint.lease_owner != worker
        and checkpoint.lease_expires_at is not None
        and checkpoint.lease_expires_at > now
    ):
        raise BatchLeaseHeld(
            f"batch {checkpoint.batch_id} {checkpoint.phase} is held by "
            f"{checkpoint.lease_owner} until {checkpoint.lease_expires_at:%Y-%m-%d %H:%M:%S}",
            expires_at=checkpoint.lease_expires_at,
        )
    checkpoint.lease_owner = worker
    checkpoint.lease_expires_at = now + (lease or lease_default())
