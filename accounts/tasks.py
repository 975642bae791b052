from celery import shared_task
from django.utils import timezone

from accounts.services import api_usage_prune


@shared_task(name="accounts.api_usage_prune")
def api_usage_prune_task() -> int:
    """Thin adapter for the scheduler: prune old per-minute API usage counters."""
    return api_usage_prune(now=timezone.now())
