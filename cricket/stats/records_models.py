"""Derived tables behind the records that need the ball order: partnerships and the balls a
batter took to reach fifty and a hundred. App label ``cricket`` (imported by the last line
of ``cricket/models.py``).

Like the statistic lines they are rebuilt per fixture from the live deliveries
(``cricket.stats.partnerships.records_rebuild``) and never edited. Each row carries the
fixture's scope and the keys the records filter on (venue, batting team, opposition), so a
filtered record reads one table.

``CricketRecordsState`` says which input version of a fixture the rows were built from
(the fixture's ``FixtureLinesState.data_version``, which every write to its deliveries
bumps) and under which definition; a reader rebuilds any fixture where either differs.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from sports.models import Competition, Fixture, Participant, Venue

__all__ = ["CricketBattingMilestone", "CricketPartnership", "CricketRecordsState"]


class PartnershipEnd(models.TextChoices):
    WICKET = "wicket", "A batter was dismissed"
    RETIRED = "retired", "A batter retired (no wicket fell)"
    INNINGS_END = "innings_end", "The innings ended with both batters in"
    PAIR_CHANGED = "pair_changed", "The pair changed with no wicket recorded"


class _RecordScope(models.Model):
    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="+")
    innings = models.ForeignKey(
        "cricket.Innings", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    innings_ordinal = models.PositiveSmallIntegerField()
    occurred_on = models.DateField()
    competition = models.ForeignKey(
        Competition, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    format_code = models.CharField(max_length=64, blank=True)
    gender = models.CharField(max_length=16, blank=True)
    season = models.CharField(max_length=32, blank=True)
    super_over = models.BooleanField(default=False)
    venue = models.ForeignKey(
        Venue, null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    # The batting side and the side it batted against (null if the file names one side).
    team = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    opposition = models.ForeignKey(
        Participant, null=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )

    class Meta:
        abstract = True


class CricketPartnership(_RecordScope):
    """Two batters together at the crease: a maximal run of consecutive live deliveries of
    an innings with the same pair (striker and non-striker in either order).

    ``wicket`` is the number of dismissals before its first ball plus one, so the stand
    after a batter retires is for the same wicket as the stand before. Runs are every run
    of its deliveries (extras included); balls are deliveries that were not wides; each
    batter's runs and balls are their own off the bat. ``unbroken`` unless a dismissal of
    one of the two ended it; ``ended_by`` says how it ended."""

    id = models.BigAutoField(primary_key=True)
    # 1-based order of the stand within its innings.
    ordinal = models.PositiveSmallIntegerField()
    wicket = models.PositiveSmallIntegerField()
    # batter_one came in first (first named at either end earlier in the innings).
    batter_one = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    batter_two = models.ForeignKey(
        Participant, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    runs = models.PositiveIntegerField()
    balls = models.PositiveIntegerField()
    batter_one_runs = models.PositiveIntegerField()
    batter_one_balls = models.PositiveIntegerField()
    batter_two_runs = models.PositiveIntegerField()
    batter_two_balls = models.PositiveIntegerField()
    unbroken = models.BooleanField()
    ended_by = models.CharField(max_length=16, choices=PartnershipEnd.choices)
    first_sequence = models.PositiveIntegerField()
    last_sequence = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["innings", "ordinal"], name="uq_cricket_partnership"),
            models.CheckConstraint(condition=Q(wicket__gte=1), name="partnership_wicket_positive"),
            models.CheckConstraint(
                condition=Q(unbroken=True) | Q(ended_by="wicket"),
                name="partnership_broken_by_a_wicket",
            ),
        ]
        indexes = [
            models.Index(fields=["wicket", "runs"], name="cricket_partnership_wkt_idx"),
            models.Index(fields=["format_code", "runs"], name="cricket_partnership_fmt_idx"),
            models.Index(fields=["fixture"], name="cricket_partnership_fix_idx"),
        ]

    def __str__(self) -> str:
        return f"wicket {self.wicket}: {self.runs}{'*' if self.unbroken else ''}"


class CricketBattingMilestone(_RecordScope):
    """A batting innings of 50 or more: the balls faced (not wides) at the delivery that
    took the batter to 50 and to 100 (empty if they never got there)."""

    id = models.BigAutoField(primary_key=True)
    participant = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    runs = models.PositiveIntegerField()
    balls = models.PositiveIntegerField()
    not_out = models.BooleanField()
    balls_to_fifty = models.PositiveIntegerField()
    balls_to_hundred = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["innings", "participant"], name="uq_cricket_batting_milestone"
            ),
            models.CheckConstraint(condition=Q(runs__gte=50), name="milestone_at_least_fifty"),
        ]
        indexes = [
            models.Index(fields=["balls_to_fifty"], name="cricket_milestone_50_idx"),
            models.Index(fields=["balls_to_hundred"], name="cricket_milestone_100_idx"),
            models.Index(fields=["fixture"], name="cricket_milestone_fix_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id}: 50 off {self.balls_to_fifty}"


class CricketRecordsState(models.Model):
    """Which input version (the fixture's ``FixtureLinesState.data_version``, 1 before
    any) and records definition a fixture's partnership and milestone rows were built
    from. A fixture without a row has never been built and counts as stale."""

    fixture = models.OneToOneField(
        Fixture, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    data_version = models.PositiveBigIntegerField()
    definition_version = models.PositiveIntegerField()
    built_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.fixture_id} records v{self.data_version}"
