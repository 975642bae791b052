from __future__ import annotations

from django.db import models

from omnium.models import TimestampedModel, UUIDModel
from omnium.triggers import append_only
from sports.models.enums import EntityType, LinkOrigin


class ExternalIdMap(UUIDModel, TimestampedModel):
    """(source, entity type, their id) -> our id. The only place provider ids live.

    No foreign key on ``internal_id``: the map is polymorphic across entity types, so the
    target is resolved by ``entity_type``; ``manage.py dangling_external_ids`` reports rows
    whose target is gone. A merged target stays valid: readers follow ``merged_into``.
    """

    source_code = models.CharField(max_length=64)
    entity_type = models.CharField(max_length=32, choices=EntityType.choices)
    external_id = models.CharField(max_length=256)
    internal_id = models.UUIDField()
    origin = models.CharField(max_length=16, choices=LinkOrigin.choices, null=True, blank=True)
    created_by = models.CharField(max_length=256, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source_code", "entity_type", "external_id"], name="uq_external_id"
            ),
        ]
        indexes = [
            models.Index(fields=["entity_type", "internal_id"], name="external_id_reverse_idx"),
        ]
        # One outside id, one row, for good: a merged target stays valid (readers follow
        # merged_into), so a link never needs to move or go.
        triggers = append_only("external_id")

    def __str__(self) -> str:
        return f"{self.source_code}:{self.entity_type}:{self.external_id}"


class UnmatchedRow(UUIDModel, TimestampedModel):
    """An outside row the resolver could not match, kept with the sentence saying why.

    Nothing is dropped and nothing is guessed: an operator reviews these before turning a
    feed on, and links or creates the record by hand.
    """

    source_code = models.CharField(max_length=64)
    entity_type = models.CharField(max_length=32, choices=EntityType.choices)
    batch = models.CharField(max_length=128, help_text="Which run or file the row came from.")
    external_id = models.CharField(max_length=256, blank=True)
    name = models.CharField(max_length=256, blank=True)
    country = models.CharField(max_length=8, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    reason = models.TextField()
    resolved_internal_id = models.UUIDField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["source_code", "entity_type", "batch", "external_id", "name"],
                name="uq_unmatched_row",
            ),
            models.CheckConstraint(
                condition=models.Q(resolved_at__isnull=True, resolved_internal_id__isnull=True)
                | models.Q(resolved_at__isnull=False, resolved_internal_id__isnull=False),
                name="unmatched_resolution_all_or_none",
            ),
        ]
