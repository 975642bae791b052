"""Awards on products and the reverification records: the queue of rows to look at
again, verification runs and their checks. Registered with the app by ``catalogue.models``,
which re-exports them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from omnium.models import TimestampedModel, UUIDModel


class Award(UUIDModel, TimestampedModel):
    class Medal(models.TextChoices):
        GOLD = "gold", "Gold"
        SILVER = "silver", "Silver"
        BRONZE = "bronze", "Bronze"
        DOUBLE_GOLD = "double_gold", "Double gold"
        COMMENDED = "commended", "Commended"

    product = models.ForeignKey(
        "catalogue.Product", on_delete=models.PROTECT, related_name="awards"
    )
    competition = models.CharField(max_length=200)
    competition_slug = models.SlugField(max_length=200, blank=True)
    year = models.PositiveSmallIntegerField(null=True, blank=True)
    medal = models.CharField(max_length=16, choices=Medal.choices, blank=True)
    score = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    is_own_competition = models.BooleanField(default=False)
    source = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(year__isnull=True) | Q(year__gte=1800, year__lte=2200),
                name="catalogue_award_year_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.competition} {self.year or ''} {self.medal}".strip()


class Reverification(models.Model):
    """A product or listing queued for a fresh read because something disagreed."""

    product = models.ForeignKey(
        "catalogue.Product", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    listing = models.ForeignKey(
        "catalogue.Listing", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.CharField(max_length=200)
    score = models.FloatField(null=True, blank=True)
    queued_at = models.DateTimeField()
    done_at = models.DateTimeField(null=True, blank=True)
    result = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(product__isnull=False) | Q(listing__isnull=False),
                name="catalogue_reverification_has_subject",
            ),
            # One waiting row per subject and reason: a queue run twice queues nothing new.
            models.UniqueConstraint(
                fields=["listing", "reason"],
                condition=Q(done_at__isnull=True, listing__isnull=False),
                name="catalogue_reverification_one_waiting_per_listing",
            ),
            models.UniqueConstraint(
                fields=["product", "reason"],
                condition=Q(done_at__isnull=True, listing__isnull=True),
                name="catalogue_reverification_one_waiting_per_product",
            ),
        ]

    def __str__(self) -> str:
        return self.reason


class VerificationRun(models.Model):
    class Mode(models.TextChoices):
        SAMPLE = "sample", "Random sample"
        FULL = "full", "Every listing"
        # A person working a reverification row: one check per listing they read.
        EDITOR = "editor", "An editor's reverification"

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    seed = models.BigIntegerField(null=True, blank=True)
    n = models.PositiveIntegerField(default=0)
    per_source = models.PositiveIntegerField(null=True, blank=True)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.SAMPLE)

    def __str__(self) -> str:
        return f"verification {self.started_at:%Y-%m-%d %H:%M}"


class VerificationCheck(models.Model):
    class Verdict(models.TextChoices):
        AGREES = "agrees", "Agrees"
        PRICE_DIFFERS = "price_differs", "Price differs"
        SIZE_DIFFERS = "size_differs", "Size differs"
        GONE = "gone", "No longer listed"
        PRODUCT_DIFFERS = "product_differs", "Another product"
        ERROR = "error", "Could not read"

    run = models.ForeignKey(VerificationRun, on_delete=models.PROTECT, related_name="checks")
    listing = models.ForeignKey("catalogue.Listing", on_delete=models.PROTECT, related_name="+")
    # Price observations are partitioned by month: PostgreSQL lets a foreign key reference
    # only a unique rule holding the partition key, so this reference is kept by triggers
    # (``omnium.partitions``, migration 0016), not by a constraint.
    observation = models.ForeignKey(
        "catalogue.PriceObservation",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_constraint=False,
    )
    source = models.ForeignKey(
        "catalogue.Source", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    live_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    live_currency = models.CharField(max_length=3, blank=True)
    live_size_ml = models.DecimalField(max_digits=12, decimal_places=3, null=True, blank=True)
    live_name = models.TextField(blank=True)
    live_gtin = models.CharField(max_length=14, blank=True)
    live_in_stock = models.BooleanField(null=True)
    live_was_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    detail = models.JSONField(null=True, blank=True)
    checked_at = models.DateTimeField()
    url = models.URLField(max_length=1000, blank=True)
    cleared_at = models.DateTimeField(null=True, blank=True)
    cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    cleared_note = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(cleared_at__isnull=True) | ~Q(cleared_note=""),
                name="catalogue_verification_clear_has_note",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.listing_id}: {self.verdict}"
