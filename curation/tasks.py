"""Celery adapters for the merge-candidate queue: one service call each."""

from __future__ import annotations

from celery import shared_task

from accounts.services import job_execute
from curation.services import SuggestReport, candidates_suggest
from omnium.progress import Progress


def suggest_outcome(report: SuggestReport) -> dict:
    """A suggest run's counts, as the task and a job's result show them."""
    return {
        "proposed": report.proposed,
        "superseded": report.superseded,
        "refreshed": report.refreshed,
        "already_decided": report.already_decided,
        "line": report.line(),
    }


# The registered name predates this app: ingest sends it after every collection, and a
# message already waiting in the broker names the task by it.
@shared_task(name="catalogue.suggest_candidates", acks_late=True)
def suggest_candidates(job_id: str | None = None) -> dict:
    """Run after each collection (and as a job from the console): queue what the new rows
    suggest for a person, at every level."""
    outcome: dict = {}

    def work(progress: Progress) -> dict:
        outcome.update(suggest_outcome(candidates_suggest(progress=progress)))
        return outcome

    job_execute(job_id, work)
    return outcome
