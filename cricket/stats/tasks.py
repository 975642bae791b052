"""Celery tasks of cricket statistics (listed in ``CELERY_IMPORTS``)."""

from __future__ import annotations

from celery import shared_task

from accounts.services import job_execute
from cricket.stats.models import DatasetReleaseJob, RefreshScope, StatisticsRefresh
from cricket.stats.partnerships import records_rebuild_all
from cricket.stats.refresh import (
    statistics_rebuild_all,
    statistics_refresh_run,
    statistics_sweep_unrefreshed,
)
from cricket.stats.release import dataset_release_build
from omnium.progress import Progress


@shared_task(name="cricket.statistics_refresh", acks_late=True)
def statistics_refresh_task(refresh_id: str, job_id: str | None = None) -> str:
    """Run one recorded statistics refresh: its fixtures' lines, then its participants'
    snapshots; with ``job_id``, as that job (its steps and counts). Idempotent, so a
    redelivered task (or a retried job) does no harm. Returns the status."""
    outcome: dict = {}

    def work(progress: Progress) -> dict:
        refresh = statistics_refresh_run(refresh_id=refresh_id, progress=progress)
        outcome.update(
            status=refresh.status,
            refresh=str(refresh.pk),
            fixtures=len(refresh.fixture_ids),
            careers=refresh.dependencies.filter(scope=RefreshScope.CAREER).count(),
        )
        return outcome

    job_execute(job_id, work)
    if not outcome:  # the job had already finished (a redelivered message): nothing ran
        return StatisticsRefresh.objects.get(pk=refresh_id).status
    return outcome["status"]


@shared_task(name="cricket.statistics_sweep")
def statistics_sweep_task() -> str:
    """The beat entry: refresh the fixtures written without their refresh (a killed import).
    Returns the refresh's id, or "" when nothing was owed."""
    refresh = statistics_sweep_unrefreshed()
    return str(refresh.pk) if refresh else ""


class ReleaseFailed(Exception):
    """A release build that failed; its reason is kept on the release request too."""


@shared_task(name="cricket.dataset_release_build", acks_late=True)
def dataset_release_build_task(release_job_id: str, job_id: str | None = None) -> str | None:
    """Build the files of one dataset release request into private storage and write the
    immutable release record; with ``job_id``, as that job (its files as steps). Returns
    the release id (None when the build failed: the request and the job say why)."""
    built: list = []

    def work(progress: Progress) -> dict:
        release = dataset_release_build(job_id=release_job_id, progress=progress)
        if release is None:
            request = DatasetReleaseJob.objects.get(pk=release_job_id)
            raise ReleaseFailed(request.error or "the release build failed")
        built.append(release)
        return {
            "release": str(release.pk),
            **{entry["name"]: entry.get("rows", 0) for entry in release.files[:-1]},
        }

    try:
        job_execute(job_id, work)
    except ReleaseFailed:
        return None
    if not built:  # the job had already finished (a redelivered message): nothing ran
        request = DatasetReleaseJob.objects.get(pk=release_job_id)
        return str(request.release_id) if request.release_id else None
    return str(built[0].pk)


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
