"""How every collector treats a retailer's source: at most ``max_concurrency`` runs of it at
once, and at least ``delay_seconds`` between the starts of two of its runs (the source's own
settings, kept by people in the console). ``run_start`` is where a collection run begins.

A run in progress holds a session-level advisory lock on its id (``run_hold``) until it
ends (``run_release``), and PostgreSQL drops the lock with the connection of a killed
worker: a run still marked "running" whose lock nobody holds is dead and does not count
against the limit (``collection_runs_sweep_stale`` marks it failed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from catalogue.collection_records import CollectionRun, RunStatus, Source

# The advisory-lock class of collection runs (the second key is the run's id).
_LOCK_CLASS = 0x636F6C6C  # "coll"
_HELD = """
SELECT r.id FROM unnest(%s::bigint[]) AS r(id)
 WHERE EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
                  AND l.classid::bigint = %s AND l.objid::bigint = r.id %% 2147483648
                  AND l.objsubid = 2)
"""


def _held(run_ids: list[int]) -> set[int]:
    """Which of these runs a live session (this one included) is still collecting."""
    if not run_ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(_HELD, [run_ids, _LOCK_CLASS])
        return {row[0] for row in cursor.fetchall()}


def run_hold(run: CollectionRun) -> None:
    """Mark ``run`` as in progress for as long as this session lives (or ``run_release``)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", [_LOCK_CLASS, run.pk % 2147483648])


def run_release(run: CollectionRun) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_CLASS, run.pk % 2147483648])


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
        runs = CollectionRun.objects.filter(source=locked)
        marked = list(runs.filter(status=RunStatus.RUNNING).values_list("pk", flat=True))
        running = len(_held(marked))  # a killed worker's run holds no lock
        if running >= locked.max_concurrency:
            raise SourceBusy(locked, running)
        last = runs.order_by("-started_at").values_list("started_at", flat=True).first()
        if last is not None:
            wait = (last + timedelta(seconds=float(locked.delay_seconds)) - now()).total_seconds()
            if wait > 0:
                sleep(wait)
        run = CollectionRun.objects.create(source=locked, started_at=now(), **fields)
        run_hold(run)
        return run


def collection_runs_sweep_stale(*, now: datetime | None = None) -> int:
    """Mark failed every run still "running" that no live session is collecting (its worker
    was killed; its rows were rolled back with it, a run being one transaction) and that
    began more than ``COLLECT_RUN_STALE_SECONDS`` ago. The beat task
    ``ingest.collection_runs_sweep_stale`` runs it. Returns how many were marked."""
    now = now or timezone.now()
    stale = timedelta(seconds=settings.COLLECT_RUN_STALE_SECONDS)
    old = list(
        CollectionRun.objects.filter(
            status=RunStatus.RUNNING, started_at__lt=now - stale
        ).values_list("pk", flat=True)
    )
    dead = sorted(set(old) - _held(old))
    return CollectionRun.objects.filter(pk__in=dead, status=RunStatus.RUNNING).update(
        status=RunStatus.FAILED,
        finished_at=now,
        error="worker lost: its session ended before the run did; none of its rows was kept",
    )
