"""Celery adapters for the collectors: ids in, one service call each."""

from __future__ import annotations

from celery import shared_task

from catalogue.collection_records import Source
from ingest.collectors.services import SourceDisabled, source_collect
from ingest.storage import stored_objects_expire as expire


@shared_task(name="ingest.collect_source", acks_late=True)
def collect_source(source_id: str) -> dict:
    source = Source.objects.get(pk=source_id)
    try:
        collected = source_collect(source=source, actor=None, triggered_by="celery", suggest=True)
    except SourceDisabled as exc:
        return {"source": source.slug, "status": "disabled", "message": str(exc)}
    run = collected.run
    outcome = {"source": source.slug, "status": run.status, "run": run.pk}
    if collected.suggest_task_id is not None:
        # The suggest task the collection queued; its id is returned so a caller can follow it.
        outcome["suggest_task"] = collected.suggest_task_id
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

    return expire()
