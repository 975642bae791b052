"""Price alerts: who follows which product, on what terms, and every alert sent.

A ``Follow`` is one account's interest in one product: a target price in a currency, a drop
of at least some per cent from the previous price at a shop, or (with neither) any drop at
all; optionally only at some airports. It names the product as followed; a product merged
later keeps its follows, and the alert check finds them through ``merged_into``.

A ``PriceAlert`` is an alert as sent: append-only, at most one per account, product and day
(the unique constraint is the dedupe; the notification it sends carries the same key).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self
from uuid import UUID

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.expressions import RawSQL

from omnium.models import TimestampedModel, UUIDModel
from omnium.triggers import append_only

CURRENCY_SHAPE = r"^[A-Z]{3}$"

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


class FollowQuerySet(models.QuerySet):
    def of_products(self, product_ids: Iterable[UUID]) -> Self:
        """The follows of the given live products, including follows of products merged
        into them (at any depth)."""
        ids = [str(pk) for pk in product_ids]
        # The SQL is a constant; the ids are a bound parameter.
        return self.filter(product_id__in=RawSQL(_ANSWERING_TO, (ids,)))  # noqa: S611


class Follow(UUIDModel, TimestampedModel):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="product_follows"
    )
    product = models.ForeignKey(
        "catalogue.Product", on_delete=models.PROTECT, related_name="follows"
    )
    target_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    target_currency = models.CharField(max_length=3, null=True, blank=True)
    drop_percent = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    # IATA codes; empty means every airport.
    airports = ArrayField(models.CharField(max_length=3), default=list, blank=True)

    objects = FollowQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "product"], name="catalogue_follow_one_per_user"
            ),
            models.CheckConstraint(
                condition=Q(target_price__isnull=True, target_currency__isnull=True)
                | Q(target_price__gt=0, target_currency__regex=CURRENCY_SHAPE),
                name="catalogue_follow_target_has_currency",
            ),
            models.CheckConstraint(
                condition=Q(drop_percent__isnull=True)
                | Q(drop_percent__gt=0, drop_percent__lt=100),
                name="catalogue_follow_drop_percent_range",
            ),
        ]
        indexes = [models.Index(fields=["product"], name="catalogue_follow_product")]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.product_id}"


class AlertReason(models.TextChoices):
    TARGET = "target", "At or below the target price"
    DROP = "drop", "A drop from the previous price"


class PriceAlert(models.Model):
    """One alert sent: the observation that set it off, and why."""

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # The live product when the alert went out (a follow of a merged product alerts on
    # its survivor).
    product = models.ForeignKey("catalogue.Product", on_delete=models.PROTECT, related_name="+")
    day = models.DateField()
    # Kept by triggers, not a constraint: observations are partitioned by month
    # (``omnium.partitions``, catalogue migration 0016).
    observation = models.ForeignKey(
        "catalogue.PriceObservation",
        on_delete=models.PROTECT,
        related_name="+",
        db_constraint=False,
    )
    reason = models.CharField(max_length=8, choices=AlertReason.choices)
    previous_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "product", "day"], name="catalogue_pricealert_one_per_day"
            )
        ]
        triggers = append_only("price_alert")

    def __str__(self) -> str:
        return f"alert {self.pk} for {self.user_id} on {self.product_id} ({self.day})"
