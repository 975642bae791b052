from __future__ import annotations

import pgtrigger
from django.db import models

from omnium.models import UUIDModel
from omnium.triggers import never_truncated
from sports.models.enums import SubjectKind, TimelineStatus
from sports.models.fixtures import Fixture
from sports.models.participants import Participant


class LedgerStream(UUIDModel):
    """One ordered, append-only log per subject (a fixture or a competition).

    A fixture counts its positions in ``Fixture.last_seq``; a competition counts here.
    """

    subject_kind = models.CharField(max_length=16, choices=SubjectKind.choices)
    subject_id = models.UUIDField()
    last_seq = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["subject_kind", "subject_id"], name="uq_ledger_stream_subject"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject_kind}:{self.subject_id}"


class TimelineItem(models.Model):
    """An entry in a subject's log. APPEND-ONLY (database trigger): content is never
    updated and rows are never deleted. A correction is a new item (status CORRECTED)
    pointing at the one it revises, which flips to SUPERSEDED; a deletion flips a live item
    (ACTIVE or CORRECTED) to VOIDED. Those two flips of a live item are the only updates
    the trigger lets through.
    """

    id = models.BigAutoField(primary_key=True)
    stream = models.ForeignKey(LedgerStream, on_delete=models.PROTECT, related_name="items")
    fixture = models.ForeignKey(
        Fixture, null=True, blank=True, on_delete=models.PROTECT, related_name="timeline"
    )
    actor = models.CharField(max_length=256, blank=True)
    source_code = models.CharField(max_length=64, null=True, blank=True)
    event_type = models.CharField(max_length=64)
    unit = models.CharField(max_length=16, default="event")
    seq = models.BigIntegerField()
    payload = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=TimelineStatus.choices, default=TimelineStatus.ACTIVE
    )
    # Items are partitioned by stream (sports migration 0009): a reference to an item is kept
    # by triggers, not a constraint (``omnium.partitions``).
    supersedes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded_by",
        db_constraint=False,
    )
    idempotency_key = models.CharField(max_length=128, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["stream", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["stream", "source_code", "unit", "seq"],
                name="uq_timeline_item_stream_seq",
                nulls_distinct=False,
            ),
            models.UniqueConstraint(
                fields=["stream", "source_code", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="uq_timeline_item_idempotency",
                nulls_distinct=False,
            ),
        ]
        indexes = [models.Index(fields=["fixture", "seq"], name="timeline_fixture_seq_idx")]
        triggers = [
            never_truncated("timeline_item_no_truncate"),
            pgtrigger.Protect(name="timeline_item_no_delete", operation=pgtrigger.Delete),
            pgtrigger.ReadOnly(name="timeline_item_content_read_only", exclude=["status"]),
            pgtrigger.FSM(
                name="timeline_item_status_flip",
                field="status",
                transitions=[
                    (TimelineStatus.ACTIVE, TimelineStatus.VOIDED),
                    (TimelineStatus.ACTIVE, TimelineStatus.SUPERSEDED),
                    (TimelineStatus.CORRECTED, TimelineStatus.VOIDED),
                    (TimelineStatus.CORRECTED, TimelineStatus.SUPERSEDED),
                ],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} #{self.seq}"


class TimelineActor(models.Model):
    """Links a log item to the participants in it, so "every goal by X" needs no JSON search."""

    # Kept by triggers (items are partitioned by stream: ``omnium.partitions``).
    item = models.ForeignKey(
        TimelineItem, on_delete=models.PROTECT, related_name="actors", db_constraint=False
    )
    participant = models.ForeignKey(
        Participant, on_delete=models.PROTECT, related_name="timeline_links"
    )
    role = models.CharField(max_length=32)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["item", "participant", "role"], name="uq_timeline_actor"
            ),
        ]
        triggers = [
            never_truncated("timeline_actor_no_truncate"),
            pgtrigger.Protect(
                name="timeline_actor_insert_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.participant_id}"


class Scoreboard(models.Model):
    """The headline of a fixture: a cache rebuilt only by folding its log."""

    fixture = models.OneToOneField(
        Fixture, primary_key=True, on_delete=models.CASCADE, related_name="scoreboard"
    )
    state = models.JSONField(default=dict)
    seq = models.BigIntegerField(default=0, help_text="The last log position folded in.")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"scoreboard of {self.fixture_id}"
