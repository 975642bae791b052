"""Cricket's event tables: match structure (innings and side tables) and events (balls, wickets).

Identity follows the source properties, not the printed scorecard:

- a delivery is (innings, over number, position in the source array): the printed
  ball label is display text derived at ingest;
- players are ``sports.Participant`` rows found by Cricsheet registry id, never by a name;
- extras are five nullable columns (types co-occur on one ball), an explicit 0 kept as 0;
- wickets and fielders have their own tables (one ball may name several), fielder identity nullable;
- an innings count per fixture is open, overs may hold any number of legal balls (miscounts),
  and penalty runs sit on the innings, belonging to no delivery.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date
from typing import Self

import pgtrigger
from django.conf import settings
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from cricket.delivery_checks import REFERENCES_CHECK
from omnium.models import TimestampedModel, UUIDModel
from omnium.triggers import append_only, never_truncated
from sports.models import Fixture, Participant, Submission


class DismissalKind(models.Model):
    """A way of getting out. A lookup table, not an enumeration (a new kind is a row): the corpus
    holds fourteen kinds, two of them absent from an earlier subset. Whether the bowler is
    credited lives here as data, so a run out is not the bowler's wicket by rule, not code."""

    code = models.SlugField(max_length=64, unique=True)
    name = models.CharField(
        max_length=64, unique=True, help_text="The kind as Cricsheet writes it."
    )
    credits_bowler = models.BooleanField()
    # Retirements are recorded as wickets in the source but are not dismissals on the card.
    is_dismissal = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class OfficialRole(models.TextChoices):
    UMPIRE = "umpire", "Umpire"
    TV_UMPIRE = "tv_umpire", "TV umpire"
    RESERVE_UMPIRE = "reserve_umpire", "Reserve umpire"
    MATCH_REFEREE = "match_referee", "Match referee"


class FixtureOfficial(UUIDModel):
    """An official of one fixture. Officials are not promoted to participants:
    the source gives them no stable id and a name is no identity, so the row keeps the name and the
    registry id where the file's registry gives one."""

    fixture = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="officials")
    role = models.CharField(max_length=32, choices=OfficialRole.choices)
    ordinal = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=256)
    registry_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["fixture", "role", "ordinal"]
        constraints = [
            models.UniqueConstraint(
                fields=["fixture", "role", "ordinal"], name="uq_fixture_official_slot"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.name}"


class Innings(UUIDModel, TimestampedModel):
    """One innings of a fixture, in file order. Any number per fixture: Tests have up
    to four, a tied limited-overs match adds super-over innings (one IPL match has four)."""

    fixture = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="innings")
    ordinal = models.PositiveSmallIntegerField(help_text="1-based, in file order.")
    batting_team = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    super_over = models.BooleanField(default=False)
    target_runs = models.PositiveIntegerField(null=True, blank=True)
    # Overs as written (38.2 is 38 overs and 2 balls), so a decimal, not a float.
    target_overs = models.DecimalField(max_digits=6, decimal_places=1, null=True, blank=True)
    declared = models.BooleanField(default=False)
    forfeited = models.BooleanField(default=False)
    # Penalty runs awarded before or after the innings, belonging to no delivery.
    penalty_runs_pre = models.PositiveIntegerField(null=True, blank=True)
    penalty_runs_post = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["fixture", "ordinal"]
        verbose_name_plural = "innings"
        constraints = [
            models.UniqueConstraint(fields=["fixture", "ordinal"], name="uq_innings_ordinal"),
            models.CheckConstraint(condition=Q(ordinal__gte=1), name="innings_ordinal_positive"),
        ]
        # Deliveries point here without a per-row foreign key (see Delivery): an innings
        # is published structure and is never deleted.
        triggers = [
            pgtrigger.Protect(name="innings_no_delete", operation=pgtrigger.Delete),
            never_truncated("innings_no_truncate"),
        ]

    def __str__(self) -> str:
        return f"innings {self.ordinal}{' (super over)' if self.super_over else ''}"

    @property
    def penalty_runs(self) -> int:
        return (self.penalty_runs_pre or 0) + (self.penalty_runs_post or 0)


class PowerplayType(models.TextChoices):
    MANDATORY = "mandatory", "Mandatory"
    BATTING = "batting", "Batting"
    FIELDING = "fielding", "Fielding"


class InningsPowerplay(models.Model):
    innings = models.ForeignKey(Innings, on_delete=models.PROTECT, related_name="powerplays")
    ordinal = models.PositiveSmallIntegerField()
    # over.ball as written (0.1 .. 9.6); display positions, not delivery identity.
    from_over = models.DecimalField(max_digits=6, decimal_places=1)
    to_over = models.DecimalField(max_digits=6, decimal_places=1)
    type = models.CharField(max_length=32, choices=PowerplayType.choices)

    class Meta:
        ordering = ["innings", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["innings", "ordinal"], name="uq_innings_powerplay"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.from_over}-{self.to_over}"


class InningsAbsent(models.Model):
    """A player who could not bat (``absent_hurt``)."""

    innings = models.ForeignKey(Innings, on_delete=models.PROTECT, related_name="absent")
    participant = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=32, default="absent_hurt")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["innings", "participant"], name="uq_innings_absent"),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id} ({self.reason})"


class InningsMiscountedOver(models.Model):
    """An over the umpires miscounted (not six legal balls): an irregularity; legal balls are still
    counted from the delivery rows. The source gives ``balls`` as an int or as a string, so
    ingest coerces it to this typed column."""

    innings = models.ForeignKey(Innings, on_delete=models.PROTECT, related_name="miscounted_overs")
    over_number = models.PositiveSmallIntegerField()
    balls = models.PositiveSmallIntegerField()
    umpire = models.CharField(max_length=256, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["innings", "over_number"], name="uq_innings_miscounted_over"
            ),
        ]

    def __str__(self) -> str:
        return f"over {self.over_number}: {self.balls} balls"


class DeliveryQuerySet(models.QuerySet["Delivery"]):
    def current(self) -> Self:
        """The live revision of every delivery: what every derivation reads."""
        return self.filter(is_current=True)

    def in_order(self) -> Self:
        return self.order_by("innings__ordinal", "sequence")


def _extra_nonnegative(column: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{column}__isnull": True}) | Q(**{f"{column}__gte": 0}),
        name=f"delivery_{column}_nonnegative_ck",
    )


def delivery_day(fixture: Fixture) -> date:
    """``Delivery.occurred_on`` (the partition key) for the first balls of a fixture's
    innings: the day it started, UTC (today when it has no start). Later balls of an
    innings take the day of its live balls, a revision its predecessor's."""
    start = fixture.scheduled_start
    return (start or timezone.now()).astimezone(UTC).date()


def _event_rows_append_only(table: str) -> list[pgtrigger.Trigger]:
    """A delivery's wickets, fielders, review and replacements are part of its published
    content: a correction copies them to the new revision, never edits them."""
    return append_only(table)


class Delivery(models.Model):
    """One revision of one ball. Content is immutable: a correction inserts the next
    revision and marks this one superseded (the partial unique index lets exactly one live
    row stand per natural key while any number of superseded revisions sit behind it).

    Identity is (innings, over_number, position): labels repeat. ``sequence`` is the order
    within the innings, assigned at ingest and inherited by corrections, so a consumer
    paging through an innings never sees it shift; only a revised source file that adds
    or removes a ball moves the later balls' positions and sequences (each by a revision).
    """

    id = models.BigAutoField(primary_key=True)
    # The references of this table are checked per statement, not per row (see
    # ``REFERENCES_CHECK`` and Meta.triggers): db_constraint=False on each of them.
    innings = models.ForeignKey(
        Innings,
        on_delete=models.PROTECT,
        related_name="deliveries",
        db_constraint=False,
        db_index=False,  # delivery_natural_key_live leads with innings
    )
    over_number = models.PositiveSmallIntegerField()
    # Cricsheet repeats the printed ball label after wides and no-balls; identity is the
    # array position.
    position = models.PositiveSmallIntegerField(help_text="0-based index in the over's array.")
    sequence = models.PositiveIntegerField(help_text="1-based occurrence order in the innings.")
    ball_label = models.CharField(max_length=16, help_text="Printed over.ball, display only.")
    actual_delivery = models.CharField(max_length=16, blank=True, help_text="1.2.0 files only.")
    batter = models.ForeignKey(
        Participant, on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    bowler = models.ForeignKey(
        Participant, on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    non_striker = models.ForeignKey(
        Participant, on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    runs_batter = models.PositiveSmallIntegerField()
    runs_extras = models.PositiveSmallIntegerField()
    runs_total = models.PositiveSmallIntegerField()
    non_boundary = models.BooleanField(default=False)
    # Extras types co-occur on one ball, so five columns. NULL = absent from the file, 0 = an
    # explicit zero; both mean "not a wide": classify with > 0, never IS NULL.
    extra_wides = models.SmallIntegerField(null=True, blank=True)
    extra_noballs = models.SmallIntegerField(null=True, blank=True)
    extra_byes = models.SmallIntegerField(null=True, blank=True)
    extra_legbyes = models.SmallIntegerField(null=True, blank=True)
    extra_penalty = models.SmallIntegerField(null=True, blank=True)
    # Revisions: a correction inserts a row; the correction path adds behaviour here, not schema.
    revision = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    # One-to-one both ways, enforced by the partial unique constraints below (a plain
    # unique index would also index the NULL of every first revision).
    supersedes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    superseded_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    superseded_at = models.DateTimeField(null=True, blank=True)
    # A tombstone: the revision that records a ball the source no longer has. It is never
    # live (the ball leaves every derivation) and nothing supersedes it; the ball's earlier
    # revisions stay behind it. A database default, so the import's COPY need not name it.
    removed = models.BooleanField(default=False, db_default=False)
    source_event_id = models.UUIDField(
        help_text="Stable across every revision of this ball (UUIDv7: time-ordered)."
    )
    submission = models.ForeignKey(
        Submission, on_delete=models.PROTECT, related_name="+", db_constraint=False
    )
    submission_event_ordinal = models.PositiveIntegerField()
    # The partition key (the table is partitioned by its year, migration 0014): the day
    # the fixture started (``scheduled_start``, UTC) when the innings' first ball was
    # written. Every live ball of an innings and every revision of a ball keep that day
    # (checked by ``REFERENCES_CHECK`` and ``delivery_revision_lineage``).
    occurred_on = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = DeliveryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "deliveries"
        # Every unique rule holds ``occurred_on``, the partition key (PostgreSQL's rule for
        # a partitioned table); ``REFERENCES_CHECK`` makes them hold across partitions.
        constraints = [
            models.UniqueConstraint(
                fields=["innings", "over_number", "position", "occurred_on"],
                condition=Q(is_current=True),
                name="delivery_natural_key_live",
            ),
            models.UniqueConstraint(
                fields=["innings", "sequence", "occurred_on"],
                condition=Q(is_current=True),
                name="delivery_sequence_live",
            ),
            models.UniqueConstraint(
                fields=["source_event_id", "revision", "occurred_on"],
                name="delivery_event_revision",
            ),
            models.UniqueConstraint(
                fields=["supersedes", "occurred_on"],
                condition=Q(supersedes__isnull=False),
                name="delivery_supersedes_once",
            ),
            models.UniqueConstraint(
                fields=["superseded_by", "occurred_on"],
                condition=Q(superseded_by__isnull=False),
                name="delivery_superseded_by_once",
            ),
            _extra_nonnegative("extra_wides"),
            _extra_nonnegative("extra_noballs"),
            _extra_nonnegative("extra_byes"),
            _extra_nonnegative("extra_legbyes"),
            _extra_nonnegative("extra_penalty"),
            models.CheckConstraint(condition=Q(revision__gte=1), name="delivery_revision_positive"),
            models.CheckConstraint(condition=Q(sequence__gte=1), name="delivery_sequence_positive"),
            # The forward link is filled once the replacement exists (it cannot be inserted
            # while this row is still live), so only the flag and the time move together.
            models.CheckConstraint(
                condition=Q(is_current=True, superseded_at__isnull=True, superseded_by__isnull=True)
                | Q(is_current=False, superseded_at__isnull=False),
                name="delivery_superseded_all_or_none",
            ),
            models.CheckConstraint(
                condition=Q(runs_total=models.F("runs_batter") + models.F("runs_extras")),
                name="delivery_runs_total_adds_up",
            ),
            models.CheckConstraint(
                condition=Q(removed=False) | Q(is_current=False, supersedes__isnull=False),
                name="delivery_tombstone_supersedes_never_live",
            ),
        ]
        indexes = [
            models.Index(fields=["batter"], name="delivery_batter_idx"),
            models.Index(fields=["bowler"], name="delivery_bowler_idx"),
            # The revision history by time, for figures as of a moment (``stats.as_of``):
            # superseded rows by when they were superseded (live rows have no time, so
            # the index holds only the history), and every row by creation (BRIN: the
            # table is append-only, its physical order follows time).
            models.Index(
                fields=["superseded_at"],
                condition=Q(superseded_at__isnull=False),
                name="delivery_superseded_at_idx",
            ),
            BrinIndex(fields=["created_at"], name="delivery_created_brin", autosummarize=True),
        ]
        # Published content and provenance are immutable: only the controlled
        # live-to-superseded transition may touch a stored row, and none is ever deleted.
        triggers = [
            never_truncated("delivery_no_truncate"),
            pgtrigger.ReadOnly(
                name="delivery_content_read_only",
                exclude=["is_current", "superseded_by", "superseded_at"],
            ),
            # The three columns the trigger above leaves open move only forward: live to
            # superseded once (with its time), then the forward link filled once, and only
            # with the row that names this one as the revision it supersedes.
            pgtrigger.Trigger(
                name="delivery_supersede_only",
                when=pgtrigger.Before,
                operation=pgtrigger.Update,
                condition=pgtrigger.AnyChange("is_current", "superseded_by", "superseded_at"),
                func="""
                  -- A link to no row at all is a broken reference, reported as such.
                  IF NEW.superseded_by_id IS NOT NULL AND NOT EXISTS (
                       SELECT 1 FROM cricket_delivery r WHERE r.id = NEW.superseded_by_id) THEN
                    RAISE EXCEPTION USING
                      ERRCODE = 'foreign_key_violation',
                      MESSAGE = format('cricket_delivery references delivery %s which does '
                                       'not exist', NEW.superseded_by_id);
                  END IF;
                  -- Any forward link must name the row that supersedes this one.
                  IF NEW.superseded_by_id IS NOT NULL AND NOT EXISTS (
                       SELECT 1 FROM cricket_delivery r
                        WHERE r.id = NEW.superseded_by_id AND r.supersedes_id = OLD.id) THEN
                    RAISE EXCEPTION USING
                      ERRCODE = 'integrity_constraint_violation',
                      MESSAGE = format('delivery %s: only the live-to-superseded transition '
                                       'and the one-time link to its replacement may change a '
                                       'stored delivery', OLD.id);
                  END IF;
                  IF OLD.is_current AND NOT NEW.is_current AND NEW.superseded_at IS NOT NULL THEN
                    RETURN NEW;
                  END IF;
                  IF NOT OLD.is_current AND NOT NEW.is_current
                     AND NEW.superseded_at IS NOT DISTINCT FROM OLD.superseded_at
                     AND OLD.superseded_by_id IS NULL AND NEW.superseded_by_id IS NOT NULL THEN
                    RETURN NEW;
                  END IF;
                  RAISE EXCEPTION USING
                    ERRCODE = 'integrity_constraint_violation',
                    MESSAGE = format(
                      'delivery %s: only the live-to-superseded transition and the one-time '
                      'link to its replacement may change a stored delivery', OLD.id);
                """,
            ),
            # A revision after the first continues one lineage: numbered one more than the
            # revision it supersedes, in the same innings and over, with the same source
            # event, original submission and event ordinal. Its position and sequence may
            # move (a revised file added or removed a ball before it), and nothing follows
            # a tombstone. AFTER, not BEFORE: a BEFORE
            # row trigger would switch a COPY to row-at-a-time inserts; and import rows
            # (revision 1, no predecessor) fail the WHEN, so they queue nothing.
            pgtrigger.Trigger(
                name="delivery_revision_lineage",
                when=pgtrigger.After,
                operation=pgtrigger.Insert,
                condition=pgtrigger.Condition(
                    'NEW."supersedes_id" IS NOT NULL OR NEW."revision" <> 1'
                ),
                declare=[("prev", "cricket_delivery")],
                func="""
                  IF NEW.supersedes_id IS NULL THEN
                    RAISE EXCEPTION USING
                      ERRCODE = 'integrity_constraint_violation',
                      MESSAGE = format('a delivery of revision %s must name the revision it '
                                       'supersedes', NEW.revision);
                  END IF;
                  SELECT * INTO prev FROM cricket_delivery WHERE id = NEW.supersedes_id;
                  IF NOT FOUND THEN
                    RAISE EXCEPTION USING
                      ERRCODE = 'foreign_key_violation',
                      MESSAGE = format('cricket_delivery references delivery %s which does '
                                       'not exist', NEW.supersedes_id);
                  END IF;
                  IF prev.is_current OR prev.superseded_by_id IS NOT NULL OR prev.removed THEN
                    RAISE EXCEPTION USING
                      ERRCODE = 'integrity_constraint_violation',
                      MESSAGE = format('delivery %s is not a superseded revision awaiting its '
                                       'replacement', prev.id);
                  END IF;
                  IF NEW.revision <> prev.revision + 1 THEN
                    RAISE EXCEPTION USING
                      ERRCODE = 'integrity_constraint_violation',
                      MESSAGE = format('revision %s cannot follow revision %s: revisions '
                                       'increase by exactly one', NEW.revision, prev.revision);
                  END IF;
                  IF NEW.source_event_id <> prev.source_event_id
                     OR NEW.submission_id <> prev.submission_id
                     OR NEW.submission_event_ordinal <> prev.submission_event_ordinal
                     OR NEW.innings_id <> prev.innings_id
                     OR NEW.occurred_on <> prev.occurred_on
                     OR NEW.over_number <> prev.over_number THEN
                    RAISE EXCEPTION USING
                      ERRCODE = 'integrity_constraint_violation',
                      MESSAGE = format('revision %s of delivery %s must keep its innings, '
                                       'over, day, source event, original submission and '
                                       'event ordinal', NEW.revision, prev.id);
                  END IF;
                  RETURN NULL;
                """,
            ),
            pgtrigger.Protect(name="delivery_no_delete", operation=pgtrigger.Delete),
            pgtrigger.Trigger(
                name="delivery_references_insert",
                level=pgtrigger.Statement,
                when=pgtrigger.After,
                operation=pgtrigger.Insert,
                referencing=pgtrigger.Referencing(new="new_rows"),
                declare=[("missing", "text")],
                func=REFERENCES_CHECK,
            ),
            pgtrigger.Trigger(
                name="delivery_references_update",
                level=pgtrigger.Statement,
                when=pgtrigger.After,
                operation=pgtrigger.Update,
                referencing=pgtrigger.Referencing(new="new_rows"),
                declare=[("missing", "text")],
                func=REFERENCES_CHECK,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ball_label} (over {self.over_number}, position {self.position})"

    @property
    def is_wide(self) -> bool:
        return (self.extra_wides or 0) > 0

    @property
    def is_noball(self) -> bool:
        return (self.extra_noballs or 0) > 0

    @property
    def is_legal(self) -> bool:
        return not (self.is_wide or self.is_noball)


class DeliveryWicket(models.Model):
    """One wicket entry of a delivery; a delivery can carry two (caught plus a batter
    timed out)."""

    id = models.BigAutoField(primary_key=True)
    # Checked by triggers, not a foreign key: deliveries are partitioned (migration 0014).
    delivery = models.ForeignKey(
        Delivery, on_delete=models.PROTECT, related_name="wickets", db_constraint=False
    )
    ordinal = models.PositiveSmallIntegerField()
    player_out = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    kind = models.ForeignKey(DismissalKind, on_delete=models.PROTECT, related_name="+")
    kind_raw = models.CharField(max_length=64, help_text="The kind as the source wrote it.")

    class Meta:
        ordering = ["delivery", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "ordinal"], name="uq_delivery_wicket"),
        ]
        triggers = _event_rows_append_only("delivery_wicket")

    def __str__(self) -> str:
        return f"{self.kind_raw}: {self.player_out_id}"


class DeliveryWicketFielder(models.Model):
    """A fielder named in a wicket. Identity is nullable: the source marks some substitutes
    with no name at all."""

    id = models.BigAutoField(primary_key=True)
    wicket = models.ForeignKey(DeliveryWicket, on_delete=models.PROTECT, related_name="fielders")
    ordinal = models.PositiveSmallIntegerField()
    participant = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    substitute = models.BooleanField(default=False)

    class Meta:
        ordering = ["wicket", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["wicket", "ordinal"], name="uq_wicket_fielder"),
        ]
        triggers = _event_rows_append_only("delivery_wicket_fielder")

    def __str__(self) -> str:
        return f"fielder {self.ordinal}{' (sub)' if self.substitute else ''}"


class DeliveryReview(models.Model):
    """A player review (DRS) taken on a delivery."""

    id = models.BigAutoField(primary_key=True)
    # Checked by triggers, not a foreign key: deliveries are partitioned (migration 0014).
    delivery = models.OneToOneField(
        Delivery, on_delete=models.PROTECT, related_name="review", db_constraint=False
    )
    by_team = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    batter = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    umpire = models.CharField(max_length=256, blank=True)
    decision = models.CharField(max_length=32)
    type = models.CharField(max_length=32, blank=True)
    umpires_call = models.BooleanField(null=True, blank=True)

    class Meta:
        triggers = _event_rows_append_only("delivery_review")

    def __str__(self) -> str:
        return f"review by {self.by_team_id}: {self.decision}"


class ReplacementKind(models.TextChoices):
    MATCH = "match", "Replaces a player in the match"
    ROLE = "role", "Replaces a player in a role"


class DeliveryReplacement(models.Model):
    """A substitution recorded on the delivery it came into effect on: a match replacement
    (concussion, impact player, supersub) or a role one (a bowler finishing an over)."""

    id = models.BigAutoField(primary_key=True)
    # Checked by triggers, not a foreign key: deliveries are partitioned (migration 0014).
    delivery = models.ForeignKey(
        Delivery, on_delete=models.PROTECT, related_name="replacements", db_constraint=False
    )
    kind = models.CharField(max_length=16, choices=ReplacementKind.choices)
    ordinal = models.PositiveSmallIntegerField()
    team = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player_in = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    player_out = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    role = models.CharField(max_length=32, blank=True)
    reason = models.CharField(max_length=128, blank=True)

    class Meta:
        ordering = ["delivery", "kind", "ordinal"]
        constraints = [
            models.UniqueConstraint(
                fields=["delivery", "kind", "ordinal"], name="uq_delivery_replacement"
            ),
        ]
        triggers = _event_rows_append_only("delivery_replacement")

    def __str__(self) -> str:
        return f"{self.kind}: {self.player_in_id} for {self.player_out_id}"


class ReviewDecision(models.TextChoices):
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class DeliveryCorrectionHistoryQuerySet(models.QuerySet["DeliveryCorrectionHistory"]):
    def of_lineage(self, source_event_id: uuid.UUID | str) -> Self:
        """Every correction of one ball, oldest first."""
        return self.filter(source_event_id=source_event_id).order_by("requested_at", "id")


class DeliveryCorrectionHistory(models.Model):
    """One accepted correction of one delivery (both snapshots, who and why), append-only.

    Holds who asked and when (the database's clock, not the caller's), why, the complete
    content before and after (wickets and fielders included), the two revisions it links,
    and the original submission the ball came from; ``correction_submission`` is the
    submission that carried the correction, when one did (a revised source file). The
    review fields are for a reviewed correction and are all set or all empty.
    """

    id = models.BigAutoField(primary_key=True)
    # Both checked by triggers, not foreign keys: deliveries are partitioned (migration 0014).
    previous_delivery = models.OneToOneField(
        Delivery, on_delete=models.PROTECT, related_name="correction_made", db_constraint=False
    )
    resulting_delivery = models.OneToOneField(
        Delivery, on_delete=models.PROTECT, related_name="correction_record", db_constraint=False
    )
    source_event_id = models.UUIDField(help_text="The ball's stable source event.")
    fixture = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="+")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Empty for an automated writer; requested_by_label names it.",
    )
    requested_by_label = models.CharField(max_length=150)
    requested_at = models.DateTimeField(db_default=Now())
    reason = models.TextField()
    previous_snapshot = models.JSONField()
    resulting_snapshot = models.JSONField()
    original_submission = models.ForeignKey(Submission, on_delete=models.PROTECT, related_name="+")
    correction_submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    review_decision = models.CharField(max_length=16, choices=ReviewDecision.choices, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_reason = models.TextField(blank=True)

    objects = DeliveryCorrectionHistoryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "delivery correction history"
        ordering = ["requested_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(reason__regex=r"^\s*$"), name="delivery_correction_reason_required"
            ),
            models.CheckConstraint(
                condition=~Q(previous_delivery=models.F("resulting_delivery")),
                name="delivery_correction_two_revisions",
            ),
            models.CheckConstraint(
                condition=Q(
                    reviewed_by__isnull=True,
                    review_decision="",
                    reviewed_at__isnull=True,
                    review_reason="",
                )
                | (
                    Q(
                        reviewed_by__isnull=False,
                        reviewed_at__isnull=False,
                        review_decision__in=ReviewDecision.values,
                    )
                    & ~Q(review_reason="")
                ),
                name="delivery_correction_review_all_or_none",
            ),
        ]
        indexes = [
            models.Index(fields=["source_event_id"], name="correction_lineage_idx"),
            models.Index(fields=["fixture"], name="correction_fixture_idx"),
        ]
        triggers = [
            never_truncated("delivery_correction_no_truncate"),
            # The time is the database's: whatever the insert says is replaced.
            pgtrigger.Trigger(
                name="delivery_correction_db_time",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert,
                func="NEW.requested_at := now(); RETURN NEW;",
            ),
            pgtrigger.Protect(
                name="delivery_correction_append_only",
                operation=pgtrigger.Update | pgtrigger.Delete,
            ),
        ]

    def __str__(self) -> str:
        return f"correction of delivery {self.previous_delivery_id}: {self.reason[:60]}"


from cricket.stats.models import *  # noqa: E402,F403
from cricket.stats.records_models import *  # noqa: E402,F403
