"""Celery adapters for the collectors: ids in, one service call each."""

from __future__ import annotations

from celery import shared_task

from curation.tasks import suggest_candidates
from ingest.collectors.services import SourceDisabled, source_collect
from ingest.models import RunStatus, Source


@shared_task(name="ingest.collect_source", acks_late=True)
def collect_source(source_id: str) -> dict:
    source = Source.objects.get(pk=source_id)
    try:
        run = source_collect(source=source, triggered_by="celery")
    except SourceDisabled as exc:
        return {"source": source.slug, "status": "disabled", "message": str(exc)}
    outcome = {"source": source.slug, "status": run.status, "run": run.pk}
    if run.status == RunStatus.SUCCEEDED:
        # What the new rows suggest waits for a person; its own task, so a slow or failed
        # suggest never fails the collection. Its id is returned so a caller can follow it.
        outcome["suggest_task"] = suggest_candidates.delay().id
    return outcome


@shared_task(name="ingest.collect_enabled_sources")
def collect_enabled_sources() -> list[str]:
    """The beat entry: enqueue a collection for every enabled source that has a feed file."""
    slugs = []
    for source in Source.objects.filter(enabled=True).exclude(feed_path=""):
        collect_source.delay(str(source.pk))
        slugs.append(source.slug)
    return slugs


@shared_task(name="ingest.stored_objects_expire")
def stored_objects_expire() -> int:
    """The beat entry: delete the bytes of expired stored objects, keep their rows."""
    from ingest.storage import stored_objects_expire as expire

    return expire()
