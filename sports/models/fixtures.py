from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import Q

from omnium.models import TimestampedModel, UUIDModel
from omnium.triggers import never_truncated
from sports.models.enums import (
    Archetype,
    AttemptOutcome,
    CoverageTier,
    FixtureStatus,
    ResultStatus,
    WinMethod,
)
from sports.models.participants import Participant
from sports.models.taxonomy import Competition, Sport, SportDefinitionVersion, Venue
from sports.querysets import FixtureQuerySet


class Fixture(UUIDModel, TimestampedModel):
    """One contest hanging off one competition node.

    ``format`` holds rules (identical across every fixture played to them); ``meta`` holds
    this fixture's own facts (toss, attendance, match number); ``result`` is the outcome.
    Provider ids never live here: they are in ``ExternalIdMap``. ``pinned`` lists fields a
    person set by hand, which imports skip. ``last_seq`` is the log's position counter,
    taken with ``UPDATE … RETURNING`` (one row lock, gap-free).
    """

    sport = models.ForeignKey(Sport, on_delete=models.PROTECT, related_name="fixtures")
    competition = models.ForeignKey(
        Competition, null=True, blank=True, on_delete=models.PROTECT, related_name="fixtures"
    )
    venue = models.ForeignKey(
        Venue, null=True, blank=True, on_delete=models.PROTECT, related_name="fixtures"
    )
    definition_version = models.ForeignKey(
        SportDefinitionVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    code = models.CharField(max_length=64)
    name = models.CharField(max_length=256, blank=True)
    archetype = models.CharField(max_length=32, choices=Archetype.choices)
    fixture_type = models.CharField(max_length=64, null=True, blank=True)
    format_code = models.CharField(max_length=64, null=True, blank=True)
    status = models.CharField(
        max_length=32, choices=FixtureStatus.choices, default=FixtureStatus.SCHEDULED
    )
    results_official = models.BooleanField(default=False)
    coverage_tier = models.CharField(
        max_length=32, choices=CoverageTier.choices, default=CoverageTier.EOD
    )
    scheduled_start = models.DateTimeField(null=True, blank=True)
    format = models.JSONField(default=dict, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    live_state = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    pinned = models.JSONField(default=list, blank=True)
    last_seq = models.BigIntegerField(default=0)
    version = models.IntegerField(default=0)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )
    # The submission that first brought this fixture; set once, never overwritten. Public
    # reads show a fixture only when this submission is accepted.
    first_seen_in = models.ForeignKey(
        "sports.Submission", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    objects = FixtureQuerySet.as_manager()

    class Meta:
        ordering = ["scheduled_start", "code"]
        constraints = [
            models.UniqueConstraint(fields=["sport", "code"], name="uq_fixture_sport_code"),
            models.CheckConstraint(condition=Q(last_seq__gte=0), name="fixture_last_seq_positive"),
            models.CheckConstraint(
                condition=~Q(merged_into=models.F("id")), name="fixture_not_merged_into_self"
            ),
        ]
        indexes = [
            models.Index(fields=["competition", "scheduled_start"], name="fixture_comp_start_idx"),
            models.Index(fields=["sport", "status", "scheduled_start"], name="fixture_sport_idx"),
        ]

    def __str__(self) -> str:
        return self.name or self.code


class FixtureCompetitor(UUIDModel, TimestampedModel):
    """A side or an entrant; a player nests under their side through ``parent``.

    There is deliberately no unique (fixture, participant): a club enters an A and a B relay
    team. Win and loss are never stored; they come from ``rank`` (rank 1 wins, equal ranks
    are a dead heat or a draw).
    """

    fixture = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="competitors")
    participant = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="appearances"
    )
    placeholder_label = models.CharField(max_length=128, null=True, blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="members"
    )
    ordinal = models.IntegerField(null=True, blank=True)
    slot = models.CharField(max_length=64, blank=True)
    alignment = models.CharField(max_length=16, blank=True)
    result_status = models.CharField(
        max_length=32, choices=ResultStatus.choices, default=ResultStatus.ENTERED
    )
    status_code = models.CharField(max_length=64, blank=True)
    rank = models.IntegerField(null=True, blank=True)
    win_method = models.CharField(max_length=64, choices=WinMethod.choices, blank=True)
    entry = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    pinned = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["fixture", "parent_id", "ordinal"]
        constraints = [
            models.CheckConstraint(
                condition=Q(participant__isnull=True) ^ Q(placeholder_label__isnull=True),
                name="participant_xor_placeholder",
            ),
            models.CheckConstraint(
                condition=Q(rank__isnull=True) | Q(rank__gte=1), name="competitor_rank_positive"
            ),
            models.CheckConstraint(
                condition=~Q(parent=models.F("id")), name="competitor_not_own_parent"
            ),
        ]
        indexes = [
            models.Index(fields=["fixture", "parent", "ordinal"], name="competitor_ordinal_idx"),
            models.Index(fields=["participant"], name="competitor_participant_idx"),
        ]
        triggers = [
            pgtrigger.Trigger(
                name="competitor_parent_same_fixture",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.UpdateOf("parent_id", "fixture_id"),
                declare=[("parent_fixture", "uuid")],
                func="""
                  IF NEW.parent_id IS NOT NULL THEN
                    SELECT fixture_id INTO parent_fixture FROM sports_fixturecompetitor
                     WHERE id = NEW.parent_id;
                    IF parent_fixture IS DISTINCT FROM NEW.fixture_id THEN
                      RAISE EXCEPTION USING
                        ERRCODE = 'check_violation',
                        MESSAGE = 'a nested competitor must be in its parent''s fixture';
                    END IF;
                  END IF;
                  RETURN NEW;
                """,
            ),
        ]

    def __str__(self) -> str:
        return self.placeholder_label or str(self.participant_id)


class FixtureRelation(UUIDModel):
    """Parent/child fixtures: a COMPOSITE result folds its children (a tie, a best-of)."""

    parent = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="child_links")
    child = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="parent_links")
    ordinal = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["parent", "child"], name="uq_fixture_relation"),
            models.CheckConstraint(
                condition=~Q(parent=models.F("child")), name="fixture_relation_not_self"
            ),
        ]


class FixtureAttempt(UUIDModel):
    """One attempt in a SERIES fixture (a high-jump height, a lift)."""

    fixture = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="attempts")
    competitor = models.ForeignKey(
        FixtureCompetitor, on_delete=models.PROTECT, related_name="attempts"
    )
    attempt_number = models.PositiveIntegerField()
    mark = models.CharField(max_length=64, blank=True)
    outcome = models.CharField(max_length=16, choices=AttemptOutcome.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["competitor", "attempt_number"], name="uq_fixture_attempt"
            ),
        ]


class FixtureAmendment(models.Model):
    """Insert-only record of a structure edit: which field, before, after, who and why."""

    id = models.BigAutoField(primary_key=True)
    fixture = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="amendments")
    field = models.CharField(max_length=64)
    old_value = models.JSONField(null=True)
    new_value = models.JSONField(null=True)
    reason = models.TextField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["fixture", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="amendment_reason_required"),
        ]
        triggers = [
            never_truncated("amendment_no_truncate"),
            pgtrigger.Protect(
                name="amendment_insert_only",
                operation=pgtrigger.Update | pgtrigger.Delete,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.field}: {self.old_value!r} -> {self.new_value!r}"
