"""Which products are followed, and queueing the alert check of a new price.

Apart from ``alerts`` so the price writer can call it: the check itself reads rates through
the price module.
"""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from catalogue.alert_records import Follow

# Every product that answers to one of the given live products: the products themselves
# and, transitively, every product merged into them (a merge never flattens a chain).
_ANSWERING_TO = """
    WITH RECURSIVE chain(id) AS (
        SELECT unnest(%s::uuid[])
        UNION
        SELECT p.id FROM catalogue_product p JOIN chain c ON p.merged_into_id = c.id
    )
    SELECT id FROM chain
"""


def follows_of(product_ids: Iterable[UUID]) -> QuerySet[Follow]:
    """The follows of the given live products, including follows of products merged into
    them (at any depth)."""
    ids = [str(pk) for pk in product_ids]
    # The SQL is a constant; the ids are a bound parameter.
    return Follow.objects.filter(product_id__in=RawSQL(_ANSWERING_TO, (ids,)))  # noqa: S611


def alert_check_after_commit(observation_id: int, product_id: UUID) -> None:
    """Queue the alert check of a new observation of ``product_id`` for when the writing
    transaction commits, if anyone follows the product: a collection run writes thousands
    of observations, and only followed products need a task."""
    if not follows_of([product_id]).exists():
        return
    transaction.on_commit(lambda: _enqueue([observation_id]))


def _enqueue(observation_ids: list[int]) -> None:
    # Celery task lookup at call time: the task module imports the alert services, which
    # import the price writer that calls this.
    from catalogue.tasks import price_alerts_check

    queue = getattr(settings, "PRICE_ALERT_QUEUE", None)
    options = {"queue": queue} if queue else {}
    price_alerts_check.apply_async(args=(observation_ids,), **options)
