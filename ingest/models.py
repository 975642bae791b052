from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from omnium.models import UUIDModel
from omnium.triggers import never_truncated

# --- Stored objects: private uploaded bytes ----------------------------------------------
# Written only by ``ingest.storage``. The bytes live behind the "stored_objects" storage
# (never under MEDIA_ROOT or static files); this row is their provenance and outlives them.


class RetentionState(models.TextChoices):
    RETAINED = "retained", "Retained (bytes kept)"
    EXPIRED = "expired", "Expired (bytes deleted, metadata kept)"


class StoredObject(UUIDModel):
    """One uploaded file: who sent it, what it was, its checksum, and whether its bytes are
    still kept. The row is never deleted, and what it says of the bytes never changes, so a
    batch still traces to its source checksum after the bytes expire."""

    key = models.CharField(
        max_length=80, unique=True, help_text="Server-generated storage key; never a user's name."
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="stored_objects"
    )
    original_name = models.CharField(max_length=255)
    media_type = models.CharField(max_length=127)
    byte_size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    retention_state = models.CharField(
        max_length=16, choices=RetentionState.choices, default=RetentionState.RETAINED
    )
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "stored object"
        constraints = [
            models.CheckConstraint(
                condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="ingest_storedobject_sha256"
            ),
            models.CheckConstraint(
                condition=Q(byte_size__gte=0), name="ingest_storedobject_size_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(expires_at__gt=models.F("created_at")),
                name="ingest_storedobject_expires_after_creation",
            ),
            models.CheckConstraint(
                condition=Q(retention_state=RetentionState.RETAINED, deleted_at__isnull=True)
                | Q(retention_state=RetentionState.EXPIRED, deleted_at__isnull=False),
                name="ingest_storedobject_deleted_iff_expired",
            ),
            models.CheckConstraint(
                condition=~Q(original_name="") & ~Q(media_type=""),
                name="ingest_storedobject_named_and_typed",
            ),
        ]
        indexes = [
            # The expiry task's scan: retained rows by expiry.
            models.Index(
                fields=["expires_at"],
                condition=Q(retention_state=RetentionState.RETAINED),
                name="ingest_storedobject_due",
            ),
            models.Index(fields=["owner", "-created_at"], name="ingest_storedobject_owner"),
        ]
        triggers = [
            never_truncated("stored_object_no_truncate"),
            pgtrigger.Protect(name="stored_object_not_deletable", operation=pgtrigger.Delete),
            pgtrigger.ReadOnly(
                name="stored_object_identity_read_only",
                fields=[
                    "id",
                    "key",
                    "owner",
                    "original_name",
                    "media_type",
                    "byte_size",
                    "sha256",
                    "created_at",
                ],
            ),
            # Expiry is one-way: deleted bytes cannot be declared retained again.
            pgtrigger.Protect(
                name="stored_object_expiry_one_way",
                operation=pgtrigger.Update,
                condition=pgtrigger.Q(
                    old__retention_state=RetentionState.EXPIRED,
                    new__retention_state__df=pgtrigger.F("old__retention_state"),
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.sha256[:12]}…)"


# --- Staged batches (held, validated, reviewed): the tables live in ingest/batches/models.py ---
from ingest.batches.models import (  # noqa: E402, F401
    Batch,
    BatchCheckpoint,
    BatchItem,
    BatchParticipantOnboardingTask,
    BatchReviewDecision,
    BatchState,
    BatchStateTransition,
    BatchValidationResult,
)
