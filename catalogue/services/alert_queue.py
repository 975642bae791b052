"""Queueing the alert check of a new price.

Apart from ``alerts`` so the price writer can call it: the check itself reads rates through
the price module.
"""

from __future__ import annotations

from uuid import UUID

from django.conf import settings
from django.db import transaction

from catalogue.alert_records import Follow


def alert_check_after_commit(observation_id: int, product_id: UUID) -> None:
    """Queue the alert check of a new observation of ``product_id`` for when the writing
    transaction commits, if anyone follows the product: a collection run writes thousands
    of observations, and only followed products need a task."""
    if not Follow.objects.of_products([product_id]).exists():
        return
    transaction.on_commit(lambda: _enqueue([observation_id]))


def _enqueue(observation_ids: list[int]) -> None:
    # Celery task lookup at call time: the task module imports the alert services, which
    # import the price writer that calls this.
    from catalogue.tasks import price_alerts_check

    queue = getattr(settings, "PRICE_ALERT_QUEUE", None)
    options = {"queue": queue} if queue else {}
    price_alerts_check.apply_async(args=(observation_ids,), **options)
