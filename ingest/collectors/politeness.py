"""How every collector treats a retailer's source: at most ``max_concurrency`` runs of it at
once, and at least ``delay_seconds`` between the starts of two of its runs (the source's own
settings, kept by people in the console). ``run_start`` is where a collection run begins.

A run killed without finishing stays "running" (its rows rolled back with it); one started
more than ``COLLECT_RUN_STALE_SECONDS`` ago no longer counts against the limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from catalogue.collection_records import CollectionRun, RunStatus, Source


class SourceBusy(Exception):
    """The source already has as many runs in progress as its ``max_concurrency``."""

    def __init__(self, source: Source, running: int) -> None:
        self.source = source
        super().__init__(
            f"source {source.slug} has {running} run(s) in progress and allows "
            f"max_concurrency = {source.max_concurrency}: nothing collected; try again later"
        )


def run_start(
    *,
    source: Source,
    now: Callable[[], datetime] = timezone.now,
    sleep: Callable[[float], Any] = time.sleep,
    **fields: Any,
) -> CollectionRun:
    """Begin a run of ``source`` (``fields`` for the run row) once its politeness allows:
    refused (``SourceBusy``) while ``max_concurrency`` runs are in progress; otherwise it
    waits out what remains of ``delay_seconds`` since the last run began, holding the
    source's row lock so two starting runs are spaced too. ``now`` and ``sleep`` are the
    clock (a test passes a fake one)."""
    with transaction.atomic():
        locked = Source.objects.select_for_update().get(pk=source.pk)
        stale = now() - timedelta(seconds=settings.COLLECT_RUN_STALE_SECONDS)
        runs = CollectionRun.objects.filter(source=locked)
        running = runs.filter(status=RunStatus.RUNNING, started_at__gte=stale).count()
        if running >= locked.max_concurrency:
            raise SourceBusy(locked, running)
        last = runs.order_by("-started_at").values_list("started_at", flat=True).first()
        if last is not None:
            wait = (last + timedelta(seconds=float(locked.delay_seconds)) - now()).total_seconds()
            if wait > 0:
                sleep(wait)
        return CollectionRun.objects.create(source=locked, started_at=now(), **fields)


def collection_runs_sweep_stale(*, now: datetime | None = None) -> int:
    """Mark failed every run still "running" ``COLLECT_RUN_STALE_SECONDS`` after it began:
    its worker was killed, and its rows were rolled back with it (a run is one
    transaction). The beat task ``ingest.collection_runs_sweep_stale`` runs it. Returns how
    many were marked."""
    now = now or timezone.now()
    stale = timedelta(seconds=settings.COLLECT_RUN_STALE_SECONDS)
    return CollectionRun.objects.filter(
        status=RunStatus.RUNNING, started_at__lt=now - stale
    ).update(
        status=RunStatus.FAILED,
        finished_at=now,
        error=f"worker lost: still running {int(stale.total_seconds())} s after it began; "
        "none of its rows was kept",
    )
