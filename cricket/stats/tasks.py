"""Celery tasks of cricket statistics (listed in ``CELERY_IMPORTS``)."""

from __future__ import annotations

from celery import shared_task

from accounts.services import job_execute
from cricket.stats.partnerships import records_rebuild_all
from cricket.stats.refresh import statistics_rebuild_all, statistics_refresh_run
from cricket.stats.release import dataset_release_build
from omnium.progress import Progress


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


def statistics_rebuild_everything(*, reason: str, actor: str, progress: Progress) -> dict:
    """Every line and snapshot, then the partnership and milestone records: the command
    line's rebuild and the job's, in three steps. Returns the row counts."""
    progress(0, total=3, step="lines and snapshots")
    lines, snapshots = statistics_rebuild_all(
        reason=reason,
        actor=actor,
        # Its two steps are the first two of these three.
        progress=lambda done, total=None, step=None: progress(done, total=3, step=step),
    )
    progress(2, total=3, step="partnerships and milestones")
    records = records_rebuild_all()
    progress(3, total=3, step="done")
    return {"lines": lines, "snapshots": snapshots, "records": records}


@shared_task(name="cricket.statistics_rebuild", acks_late=True)
def statistics_rebuild_task(job_id: str | None = None) -> dict:
    """Rebuild every cricket statistic (a console button's job, or the scheduler's)."""
    outcome: dict = {}

    def work(progress: Progress) -> dict:
        outcome.update(
            statistics_rebuild_everything(
                reason="statistics rebuild job", actor="integration:jobs", progress=progress
            )
        )
        return outcome

    job_execute(job_id, work)
    return outcome
