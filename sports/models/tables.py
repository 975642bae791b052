from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from omnium.models import UUIDModel
from sports.models.participants import Participant
from sports.models.taxonomy import Competition


class TableKind(models.TextChoices):
    STANDINGS = "standings", "League table"
    MEDALS = "medals", "Medal table"


class StatTable(models.Model):
    """A folded table (league or medal) for one competition node: a disposable cache of a
    fold over the node's stat lines. Recording a result deletes the tables of every node
    above the fixture; the next read rebuilds them. Nothing in it is typed by hand."""

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="stat_tables"
    )
    kind = models.CharField(max_length=16, choices=TableKind.choices)
    rows = models.JSONField(default=list)
    built_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["competition", "kind"], name="uq_stat_table"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.competition_id}"


class PointsAdjustment(UUIDModel):
    """A deduction or award of league points, decided by a person, with the reason."""

    competition = models.ForeignKey(
        Competition, on_delete=models.PROTECT, related_name="points_adjustments"
    )
    participant = models.ForeignKey(
        Participant, on_delete=models.PROTECT, related_name="points_adjustments"
    )
    points = models.IntegerField(help_text="Negative for a deduction.")
    reason = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(points=0), name="adjustment_not_zero"),
            models.CheckConstraint(condition=~Q(reason=""), name="adjustment_reason_required"),
        ]

    def __str__(self) -> str:
        return f"{self.points:+d} for {self.participant_id}"
