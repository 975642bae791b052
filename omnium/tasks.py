from celery import shared_task
from django.utils import timezone

from omnium.partitions import ensure

# A held ping is for checking queue separation (a long job on one queue, a ping on another).
PING_HOLD_MAX_SECONDS = 30


@shared_task(name="omnium.ping")
def ping(value: str, hold_seconds: float = 0) -> dict[str, str]:
    """Round-trip check for a worker: echoes ``value`` with the worker's host name, after
    holding the worker for ``hold_seconds`` (at most 30)."""
    import socket
    import time

    if hold_seconds:
        time.sleep(min(max(hold_seconds, 0), PING_HOLD_MAX_SECONDS))
    return {"echo": value, "worker": socket.gethostname()}


@shared_task(name="omnium.partitions_ensure")
def partitions_ensure_task(months_ahead: int = 3) -> int:
    """The beat entry: the partitioned logs' partitions for the months to come (how many
    were created)."""
    return sum(made for _, made in ensure(now=timezone.now(), months_ahead=months_ahead))
