"""Celery adapters for the catalogue: one service call each."""

from __future__ import annotations

from celery import shared_task

from catalogue.services import candidates_suggest


@shared_task(name="catalogue.suggest_candidates", acks_late=True)
def suggest_candidates() -> dict:
    """Run after each collection: queue what the new rows suggest for a person."""
    report = candidates_suggest()
    return {"proposed": report.proposed, "superseded": report.superseded, "line": report.line()}
