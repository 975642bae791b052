from celery import shared_task
from django.utils import timezone

from accounts.services import api_anonymous_usage_prune, api_usage_prune


@shared_task(name="accounts.api_usage_prune")
def api_usage_prune_task() -> int:
    """Thin adapter for the scheduler: prune old per-minute API usage counters, keyed and
    anonymous (the anonymous source rows, which hold pseudonyms, within the hour)."""
    now = timezone.now()
    return api_usage_prune(now=now) + api_anonymous_usage_prune(now=now)
