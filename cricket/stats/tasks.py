"""Celery tasks of cricket statistics (listed in ``CELERY_IMPORTS``)."""

from __future__ import annotations

from celery import shared_task

from cricket.stats.refresh import statistics_refresh_run
from cricket.stats.release import dataset_release_build


@shared_task(name="cricket.statistics_refresh", acks_late=True)
def statistics_refresh_task(refresh_id: str) -> str:
    """Run one recorded statistics refresh: its fixtures' lines, then its participants'
    snapshots. Idempotent, so a redelivered task does no harm. Returns the status."""
    return statistics_refresh_run(refresh_id=refresh_id).status


@shared_task(name="cricket.dataset_release_build", acks_late=True)
def dataset_release_build_task(job_id: str) -> str | None:
    """Build the files of one dataset release job into private storage and write the
    immutable release record. Returns the release id (None when the job failed)."""
    release = dataset_release_build(job_id=job_id)
    return str(release.pk) if release else None
