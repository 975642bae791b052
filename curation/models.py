"""The merge-candidate queue: pairs of rows a rule suspects are one, waiting for a person.

The queue knows levels by name only. Which table a level's ids point into, and what
accepting a pair does, is registered by the app that owns those rows
(``curation.registry``); the table keeps its original name from when it lived in the
catalogue (``catalogue_mergecandidate``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from omnium.models import UUIDModel


class MergeLevel(models.TextChoices):
    BRAND = "brand", "Brand"
    LINE = "line", "Line"
    PRODUCT = "product", "Product"
    # The same queue and console serve the sports spine's participants.
    PARTICIPANT = "participant", "Sports participant"


CANDIDATE_OPEN = Q(status="open", decided_at__isnull=True, decided_by__isnull=True)
CANDIDATE_DECIDED = Q(
    status__in=["accepted", "rejected"], decided_at__isnull=False, decided_by__isnull=False
) & ~Q(decision_note="")
CANDIDATE_SUPERSEDED = Q(status="superseded", decided_at__isnull=False)


class MergeCandidate(UUIDModel):
    """Two brands, lines, products or participants the rules suspect are one, queued for a
    person.

    The pair is stored ordered (``left_id`` < ``right_id``) and unique per level, so once
    a person has decided it no rule can queue it again: a rejection never resurfaces.
    """

    class Status(models.TextChoices):
        OPEN = "open", "Waiting for a person"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"
        SUPERSEDED = "superseded", "Superseded (one side merged or aliased away)"

    level = models.CharField(max_length=16, choices=MergeLevel.choices)
    # Keys of Brand, ProductLine, Product or sports Participant rows by ``level``: one table
    # for every queue.
    left_id = models.UUIDField()
    right_id = models.UUIDField()
    score = models.FloatField(null=True, blank=True)
    why = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    detected_at = models.DateTimeField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True)

    class Meta:
        # The table, constraints and index keep the names they had in the catalogue: the
        # move between apps changed no schema.
        db_table = "catalogue_mergecandidate"
        ordering = ["-score", "detected_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["level", "left_id", "right_id"], name="catalogue_candidate_unique_pair"
            ),
            # One spelling of each pair, so (a, b) and (b, a) cannot both be queued.
            models.CheckConstraint(
                condition=Q(left_id__lt=F("right_id")), name="catalogue_candidate_ordered_pair"
            ),
            models.CheckConstraint(condition=~Q(why=""), name="catalogue_candidate_says_why"),
            # Open means undecided; accepted and rejected name the person and their note;
            # superseded is closed by a rule when one side went away, so it names no one.
            models.CheckConstraint(
                condition=CANDIDATE_OPEN | CANDIDATE_DECIDED | CANDIDATE_SUPERSEDED,
                name="catalogue_candidate_decision_is_complete",
            ),
        ]
        indexes = [
            models.Index(
                "level",
                F("score").desc(nulls_last=True),
                condition=Q(status="open"),
                name="catalogue_candidate_queue",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.level}: {self.left_id} ~ {self.right_id}"
