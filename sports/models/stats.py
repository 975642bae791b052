from __future__ import annotations

from django.db import models

from sports.models.fixtures import Fixture
from sports.models.participants import Participant
from sports.models.taxonomy import Competition, Sport


class StatLine(models.Model):
    """A derived line of numbers for one subject in one fixture (a side per half, a
    player per match). Never edited by hand: rebuilt from the log or the results.

    Sport, competition and format are copied from the fixture so a season read never joins.
    """

    id = models.BigAutoField(primary_key=True)
    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="stat_lines")
    subject = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="stat_lines")
    subject_role = models.CharField(max_length=32)
    segment = models.CharField(max_length=32, default="match")
    occurred_on = models.DateField()
    values = models.JSONField(default=dict)
    sport = models.ForeignKey(Sport, on_delete=models.PROTECT, related_name="+")
    competition = models.ForeignKey(
        Competition, null=True, on_delete=models.PROTECT, related_name="+"
    )
    format_code = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["fixture", "subject", "subject_role", "segment", "occurred_on"],
                name="uq_stat_line",
            ),
        ]
        indexes = [
            models.Index(fields=["sport", "competition", "occurred_on"], name="statline_scope_idx"),
            models.Index(fields=["subject", "occurred_on"], name="statline_subject_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.subject_role} {self.segment} {self.subject_id}"
