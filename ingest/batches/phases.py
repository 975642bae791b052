"""What the leased phases of a batch (validation, publication) share: the name a worker
holds a lease by, and the phase's progress over the items for the job record and CLI bar."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING

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
