from celery import shared_task
from django.utils import timezone

from accounts.services import (
    api_anonymous_usage_prune,
    api_usage_prune,
    jobs_dispatch_unsent,
    jobs_sweep_stale,
)


@shared_task(name="accounts.api_usage_prune")
def api_usage_prune_task() -> int:
    """Thin adapter for the scheduler: prune old per-minute API usage counters, keyed and
    anonymous (the anonymous source rows, which hold pseudonyms, within the hour)."""
    now = timezone.now()
    return api_usage_prune(now=now) + api_anonymous_usage_prune(now=now)


@shared_task(name="accounts.jobs_sweep_stale")
def jobs_sweep_stale_task() -> int:
    """The beat entry: mark failed the running jobs whose worker stopped beating."""
    return jobs_sweep_stale()


@shared_task(name="accounts.jobs_dispatch_unsent")
def jobs_dispatch_unsent_task() -> int:
    """The beat entry: send again the queued jobs whose task the broker never took."""
    return jobs_dispatch_unsent()
