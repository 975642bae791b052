"""The collection records: where catalogue rows came from.

A ``Source`` is one retailer feed with its kill switch; each ``CollectionRun`` accounts for
one collection of it; a ``RawRecord`` keeps the parsed fragment a listing's listed layer was
read from; a ``RejectedObservation`` keeps a row that was refused, with why. The catalogue
owns them because its listings and prices point at them (and it writes the raw record of a
sighting itself); the collectors in ``ingest`` create sources, runs and rejections.

They began in the ``ingest`` app and moved here without touching the database: every table,
column, constraint and index keeps its ``ingest_`` name.
"""

from __future__ import annotations

import pgtrigger
from django.db import models
from django.db.models import Q

from omnium.models import TimestampedModel, UUIDModel
from omnium.triggers import append_only, never_truncated


class IdentityMode(models.TextChoices):
    """How far a source's rows may be joined to other shops' products."""

    GTIN_THEN_KEY = "gtin_then_key", "Barcode, then match key"
    KEY_ONLY = "key_only", "Match key only (the source's barcodes are not trusted)"
    OWN_ONLY = "own_only", "Own products only (never joined to another shop)"


class FeedFormat(models.TextChoices):
    RS_MAXI = "rs_maxi", "Serbian retailer product list (CSV)"
    EBAY_PERFUME = "ebay_perfume", "eBay perfume listings (CSV)"
    ALKO = "alko", "Alko price list (CSV)"
    GENERIC_CSV = "generic_csv", "Generic CSV with a column mapping"
    GENERIC_JSON = "generic_json", "Generic JSON with a field mapping"


class Source(UUIDModel, TimestampedModel):
    """A collector definition: configuration with a kill switch and politeness caps."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    enabled = models.BooleanField(default=True)
    feed_format = models.CharField(max_length=16, choices=FeedFormat.choices)
    location = models.ForeignKey(
        "catalogue.Location", on_delete=models.PROTECT, related_name="sources"
    )
    # The file a scheduled run reads, relative to the repository root unless absolute.
    feed_path = models.CharField(max_length=500, blank=True)
    mapping = models.JSONField(default=dict, blank=True)
    delay_seconds = models.DecimalField(max_digits=6, decimal_places=2, default=1)
    max_concurrency = models.PositiveSmallIntegerField(default=1)
    notes = models.TextField(blank=True)
    identity_mode = models.CharField(
        max_length=16, choices=IdentityMode.choices, default=IdentityMode.GTIN_THEN_KEY
    )
    permission_record = models.TextField(blank=True)

    class Meta:
        db_table = "ingest_source"
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(delay_seconds__gte=0), name="ingest_source_delay_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(max_concurrency__gte=1), name="ingest_source_concurrency_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.slug


class RunStatus(models.TextChoices):
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class CollectionRun(models.Model):
    """One collection of one source, and an honest account of what it wrote."""

    id = models.BigAutoField(primary_key=True)
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="runs")
    file_name = models.CharField(max_length=500, blank=True)
    file_sha256 = models.CharField(max_length=64, blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.RUNNING)
    rows_read = models.PositiveIntegerField(default=0)
    products_seen = models.PositiveIntegerField(default=0)
    listings_created = models.PositiveIntegerField(default=0)
    products_created = models.PositiveIntegerField(default=0)
    prices_written = models.PositiveIntegerField(default=0)
    prices_already_known = models.PositiveIntegerField(default=0)
    skipped_no_price = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    # Rows kept as listings whose price was refused (e.g. no time to date it by): each has
    # a RejectedObservation too, but the row itself was not rejected.
    prices_rejected = models.PositiveIntegerField(default=0, db_default=0)
    skip_counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    fx_source = models.CharField(max_length=200, blank=True)
    fx_fetched_at = models.DateTimeField(null=True, blank=True)
    triggered_by = models.CharField(max_length=200, blank=True)

    class Meta:
        db_table = "ingest_collectionrun"
        ordering = ["-started_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True) | Q(finished_at__gte=models.F("started_at")),
                name="ingest_run_finishes_after_start",
            ),
            models.CheckConstraint(
                condition=~Q(status="failed") | ~Q(error=""),
                name="ingest_run_failure_has_error",
            ),
            # Every row read is accounted for: it became a sighting or a rejection.
            models.CheckConstraint(
                condition=Q(status="running")
                | Q(rows_read=models.F("products_seen") + models.F("rejected")),
                name="ingest_run_counts_add_up",
            ),
        ]
        indexes = [models.Index(fields=["source", "-started_at"], name="ingest_run_source")]
        triggers = [
            pgtrigger.Protect(name="collection_run_never_deleted", operation=pgtrigger.Delete),
            never_truncated("collection_run_no_truncate"),
            # A run starts running and finishes once; its account is then final.
            pgtrigger.Trigger(
                name="collection_run_finishes_once",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.Update,
                func="""
                IF TG_OP = 'INSERT' THEN
                    IF NEW.status <> 'running' THEN
                        RAISE EXCEPTION 'collection run %: a run starts running, not %',
                            NEW.id, NEW.status USING ERRCODE = 'check_violation';
                    END IF;
                    RETURN NEW;
                END IF;
                IF OLD.status <> 'running' THEN
                    RAISE EXCEPTION 'collection run %: finished (%), its account is final',
                        OLD.id, OLD.status USING ERRCODE = 'check_violation';
                END IF;
                IF NEW.source_id <> OLD.source_id OR NEW.started_at <> OLD.started_at
                   OR NEW.file_sha256 <> OLD.file_sha256 THEN
                    RAISE EXCEPTION 'collection run %: its source, file and start are fixed',
                        OLD.id USING ERRCODE = 'check_violation';
                END IF;
                RETURN NEW;
                """,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} run {self.pk}"


class RawRecord(models.Model):
    """The parsed fragment a listing was derived from, kept per run."""

    id = models.BigAutoField(primary_key=True)
    listing = models.ForeignKey(
        "catalogue.Listing", on_delete=models.PROTECT, related_name="raw_records"
    )
    run = models.ForeignKey(
        CollectionRun, null=True, blank=True, on_delete=models.PROTECT, related_name="raw_records"
    )
    row_number = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField()
    parser_version = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "ingest_rawrecord"
        indexes = [models.Index(fields=["listing", "-created_at"], name="ingest_raw_listing")]
        triggers = append_only("raw_record")

    def __str__(self) -> str:
        return f"raw {self.pk}"


class RejectionStage(models.TextChoices):
    COLLECT = "collect", "Reading the feed"
    INGEST = "ingest", "Writing the catalogue"


class RejectedObservation(models.Model):
    """A row refused at the collector or at ingest, with why and what it was."""

    id = models.BigAutoField(primary_key=True)
    stage = models.CharField(max_length=16, choices=RejectionStage.choices)
    reason = models.CharField(max_length=64)
    message = models.TextField()
    source_sku = models.CharField(max_length=200, blank=True)
    url = models.URLField(max_length=1000, blank=True)
    row_number = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField(null=True, blank=True)
    run = models.ForeignKey(
        CollectionRun, null=True, blank=True, on_delete=models.PROTECT, related_name="rejections"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "ingest_rejectedobservation"
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="ingest_rejection_has_reason"),
        ]
        indexes = [models.Index(fields=["run", "reason"], name="ingest_rejection_run_reason")]
        triggers = append_only("rejected_observation")

    def __str__(self) -> str:
        return f"{self.reason}: {self.source_sku or self.row_number}"
