"""Celery adapters for the merge-candidate queue: one service call each."""

from __future__ import annotations

from celery import shared_task

from curation.services import candidates_suggest


# The registered name predates this app: ingest sends it after every collection, and a
# message already waiting in the broker names the task by it.
@shared_task(name="catalogue.suggest_candidates", acks_late=True)
def suggest_candidates() -> dict:
    """Run after each collection: queue what the new rows suggest for a person, at every
    level."""
    report = candidates_suggest()
    return {"proposed": report.proposed, "superseded": report.superseded, "line": report.line()}
