from celery import shared_task


@shared_task(name="omnium.ping")
def ping(value: str) -> dict[str, str]:
    """Round-trip check for a worker: echoes ``value`` with the worker's host name."""
    import socket

    return {"echo": value, "worker": socket.gethostname()}
