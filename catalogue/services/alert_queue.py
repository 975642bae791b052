"""Queueing the alert check of a new price.

Apart from ``alerts`` so the price writer can call it: the check itself reads rates through
the price module.
"""

from __future__ import annotations

from uuid import UUID

from django.conf import settings
from django.db import connection

from accounts.services import task_enqueue

# Whether anyone follows a product or one merged into it (at any depth): the same chain as
# ``FollowQuerySet.of_products``, as one plain statement. Every new price runs it, and the
# ORM's cost of building a query is five times that of running this one.
_FOLLOWED = """
    WITH RECURSIVE chain(id) AS (
        SELECT %s::uuid
        UNION
        SELECT p.id FROM catalogue_product p JOIN chain c ON p.merged_into_id = c.id
    )
    SELECT EXISTS (SELECT 1 FROM catalogue_follow f JOIN chain c ON f.product_id = c.id)
"""


def product_followed(product_id: UUID) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_FOLLOWED, [str(product_id)])
        row = cursor.fetchone()
    return bool(row and row[0])


def alert_check_after_commit(observation_id: int, product_id: UUID) -> None:
    """Queue the alert check of a new observation of ``product_id`` for when the writing
    transaction commits, if anyone follows the product: a collection run writes thousands
    of observations, and only followed products need a task."""
    if not product_followed(product_id):
        return
    # In the observation's transaction (the outbox: sent after the commit, or by the
    # dispatcher when the broker is down).
    queue = getattr(settings, "PRICE_ALERT_QUEUE", None)
    task_enqueue("catalogue.price_alerts_check", args=[[observation_id]], queue=queue)
