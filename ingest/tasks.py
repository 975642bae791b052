"""Celery adapters for the collectors: ids in, one service call each, its progress on the
job that asked for it (``accounts.services.jobs``)."""

from __future__ import annotations

from celery import shared_task

from accounts.models import JobKind
from accounts.services import job_execute, job_start
from catalogue.collection_records import CollectionRun, Source
from ingest.collectors.politeness import collection_runs_sweep_stale
from ingest.collectors.services import SourceBusy, SourceDisabled, source_collect
from ingest.storage import stored_objects_expire as expire
from omnium.progress import Progress


def run_counts(run: CollectionRun) -> dict:
    """A collection run's status and counts, as a job's result shows them."""
    return {
        "status": run.status,
        "run": run.pk,
        "rows_read": run.rows_read,
        "listings_seen": run.products_seen,
        "listings_created": run.listings_created,
        "products_created": run.products_created,
        "prices_written": run.prices_written,
        "prices_already_known": run.prices_already_known,
        "rejected": run.rejected,
    }


def collect_outcome(source: Source, *, triggered_by: str, progress: Progress | None) -> dict:
    """Collect ``source`` and say how it went: the run's status and counts (a job's result)."""
    try:
        collected = source_collect(
            source=source, actor=None, triggered_by=triggered_by, suggest=True, progress=progress
        )
    except SourceDisabled as exc:
        return {"source": source.slug, "status": "disabled", "message": str(exc)}
    except SourceBusy as exc:  # the next scheduled run collects it
        return {"source": source.slug, "status": "busy", "message": str(exc)}
    outcome = {"source": source.slug, **run_counts(collected.run)}
    if collected.suggest_task_id is not None:
        # The suggest task the collection queued; its id is returned so a caller can follow it.
        outcome["suggest_task"] = collected.suggest_task_id
    return outcome


@shared_task(name="ingest.collect_source", acks_late=True)
def collect_source(source_id: str, job_id: str | None = None) -> dict:
    """Collect one source; with ``job_id``, as that job (its progress and result)."""
    source = Source.objects.get(pk=source_id)
    outcome: dict = {}

    def work(progress: Progress) -> dict:
        outcome.update(collect_outcome(source, triggered_by="celery", progress=progress))
        return outcome

    job_execute(job_id, work)
    return outcome


@shared_task(name="ingest.collect_enabled_sources")
def collect_enabled_sources() -> list[str]:
    """The beat entry: start a collection job for every enabled source that has a feed file."""
    slugs = []
    for source in Source.objects.filter(enabled=True).exclude(feed_path=""):
        job_start(
            kind=JobKind.COLLECT,
            actor=None,
            via="beat",
            target=source.pk,
            target_label=source.slug,
        )
        slugs.append(source.slug)
    return slugs


@shared_task(name="ingest.collection_runs_sweep_stale")
def collection_runs_sweep_stale_task() -> int:
    """The beat entry: mark failed the collection runs whose worker was killed."""
    return collection_runs_sweep_stale()


@shared_task(name="ingest.stored_objects_expire")
def stored_objects_expire() -> int:
    """The beat entry: delete the bytes of expired stored objects, keep their rows."""

    return expire()
