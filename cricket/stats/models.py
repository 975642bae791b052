"""Statistics tables of cricket: lines, versions, snapshots. App label ``cricket`` (given by the
last line of ``cricket/models.py``).

- Lines (batting, bowling, fielding per player per innings; team per innings; appearances
  per player per fixture) are derived rows, rebuilt one fixture at a time from the live
  deliveries by ``cricket.stats.engine`` and never edited. Each carries the fixture's
  scope (date, competition node, format, gender, season, super-over flag) so a scoped fold
  reads one table.
- ``FixtureLinesState`` is a fixture's input version and the version (and engine
  definition) its stored lines were built from: readers that show one fixture's lines (the
  scorecard) rebuild them first when the two differ.
- ``ParticipantStatisticsVersion`` is a participant's data version: bumped by every refresh
  touching them. Snapshots of their aggregates are valid only while the state row's data
  and definition versions match the current ones.
- ``StatisticsRefresh`` and ``StatisticsRefreshDependency`` record every refresh request and
  the scopes (fixture, season, competition, career) it affects.
- ``DatasetRelease`` is immutable once written; ``DatasetReleaseJob`` is the mutable state
  of the Celery job that builds one.
"""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import F, Q

from omnium.models import UUIDModel
from omnium.triggers import never_truncated
from sports.models import Competition, Fixture, Participant, Submission

__all__ = [
    "CricketAppearance",
    "CricketBattingLine",
    "CricketBowlingLine",
    "CricketFieldingLine",
    "CricketMatchSide",
    "CricketTeamInningsLine",
    "DatasetRelease",
    "DatasetReleaseJob",
    "FixtureLinesState",
    "ParticipantAggregateSnapshot",
    "ParticipantAggregateSnapshotState",
    "ParticipantStatisticsVersion",
    "RefreshScope",
    "RefreshStatus",
    "ReleaseJobStatus",
    "StatisticsRefresh",
    "StatisticsRefreshDependency",
]


class _FixtureScope(models.Model):
    """The fixture's scope, copied onto each line so scoped folds never join the fixture."""

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="+")
    occurred_on = models.DateField()
    competition = models.ForeignKey(
        Competition, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    format_code = models.CharField(max_length=64, blank=True)
    gender = models.CharField(max_length=16, blank=True)
    season = models.CharField(max_length=32, blank=True)
    super_over = models.BooleanField(default=False)

    class Meta:
        abstract = True


class _InningsLine(_FixtureScope):
    id = models.BigAutoField(primary_key=True)
    innings = models.ForeignKey(
        "cricket.Innings", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    innings_ordinal = models.PositiveSmallIntegerField()
    participant = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")

    class Meta:
        abstract = True


class CricketBattingLine(_InningsLine):
    """One batter's innings: present when they batted, stood at the non-striker's end or
    were the player out (a timed-out batter faces no ball).

    Besides the figures, the line carries what a scorecard prints beside them: the batting
    order, how the innings ended (the last wicket naming the batter as the player out:
    its kind, the bowler of that ball and its fielders) and, for a dismissal, the fall of
    wicket (the innings' wicket number, its score and legal balls at that ball)."""

    team = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    # 1-based order of first appearance at either end (or as the player out).
    position = models.PositiveSmallIntegerField()
    runs = models.PositiveIntegerField()
    balls_faced = models.PositiveIntegerField()
    fours = models.PositiveIntegerField()
    sixes = models.PositiveIntegerField()
    # Dismissals (kinds with is_dismissal): retired hurt / not out and absent hurt are not.
    outs = models.PositiveSmallIntegerField()
    # How the innings ended; empty for a batter never named as the player out.
    dismissal_kind = models.ForeignKey(
        "cricket.DismissalKind",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    dismissal_bowler = models.ForeignKey(
        Participant,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )
    # [{"participant": id or null, "substitute": bool}] in the wicket's order; a null
    # participant is a substitute the source did not name (the source allows that).
    dismissal_fielders = models.JSONField(default=list, blank=True)
    # The fall of wicket, for a dismissal: the nth wicket of the innings, the score (with
    # penalty runs awarded before the innings) and the legal balls bowled at that ball.
    fall_number = models.PositiveSmallIntegerField(null=True, blank=True)
    fall_runs = models.PositiveIntegerField(null=True, blank=True)
    fall_legal_balls = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["innings", "participant"], name="uq_cricket_batting_line"
            ),
            models.CheckConstraint(
                condition=Q(position__gte=1), name="cricket_batting_line_position_positive"
            ),
            models.CheckConstraint(
                condition=Q(
                    fall_number__isnull=True, fall_runs__isnull=True, fall_legal_balls__isnull=True
                )
                | Q(fall_number__gte=1, fall_runs__isnull=False, fall_legal_balls__isnull=False),
                name="cricket_batting_line_fall_all_or_none",
            ),
            models.CheckConstraint(
                condition=Q(fall_number__isnull=True) | Q(dismissal_kind__isnull=False),
                name="cricket_batting_line_fall_has_dismissal",
            ),
        ]
        indexes = [
            models.Index(fields=["participant", "occurred_on"], name="cricket_batline_player_idx"),
            models.Index(fields=["fixture"], name="cricket_batline_fixture_idx"),
            models.Index(fields=["format_code", "occurred_on"], name="cricket_batline_scope_idx"),
        ]

    def __str__(self) -> str:
        return f"innings {self.innings_ordinal}: {self.participant_id} {self.runs}"


class CricketBowlingLine(_InningsLine):
    """One bowler's spell in an innings, with the fielding side and the match's balls per
    over (an economy rate counts overs of the match's own length)."""

    # The fielding side (the fixture's other team); null only when the fixture lists one.
    team = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    balls_per_over = models.PositiveSmallIntegerField(default=6)
    # 1-based order of the bowler's first delivery in the innings.
    position = models.PositiveSmallIntegerField()
    legal_balls = models.PositiveIntegerField()
    runs_conceded = models.PositiveIntegerField()
    wickets = models.PositiveSmallIntegerField()
    maidens = models.PositiveSmallIntegerField()
    wides = models.PositiveIntegerField()
    noballs = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["innings", "participant"], name="uq_cricket_bowling_line"
            ),
            models.CheckConstraint(
                condition=Q(position__gte=1), name="cricket_bowling_line_position_positive"
            ),
        ]
        indexes = [
            models.Index(fields=["participant", "occurred_on"], name="cricket_bowline_player_idx"),
            models.Index(fields=["fixture"], name="cricket_bowline_fixture_idx"),
            models.Index(fields=["format_code", "occurred_on"], name="cricket_bowline_scope_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id}: {self.wickets}-{self.runs_conceded}"


class CricketFieldingLine(_InningsLine):
    """One fielder's dismissals in an innings. A caught-and-bowled is the bowler's catch;
    work done as a substitute is counted apart. A substitute the source left unnamed has no row."""

    # The fielding side (the fixture's other team).
    team = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    catches = models.PositiveSmallIntegerField()
    stumpings = models.PositiveSmallIntegerField()
    run_outs = models.PositiveSmallIntegerField()
    substitute_catches = models.PositiveSmallIntegerField()
    substitute_stumpings = models.PositiveSmallIntegerField()
    substitute_run_outs = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["innings", "participant"], name="uq_cricket_fielding_line"
            ),
        ]
        indexes = [
            models.Index(fields=["participant", "occurred_on"], name="cricket_fldline_player_idx"),
            models.Index(fields=["fixture"], name="cricket_fldline_fixture_idx"),
        ]

    def __str__(self) -> str:
        return f"innings {self.innings_ordinal}: {self.participant_id} fielding"


class CricketTeamInningsLine(_FixtureScope):
    """A side's innings: total (delivery totals plus innings penalty runs, on no ball), wickets
    (dismissals only) and legal balls counted, never assumed; extras in all and by type (a delivery
    may carry several types at once), delivery penalty extras apart from innings penalty runs."""

    id = models.BigAutoField(primary_key=True)
    innings = models.OneToOneField("cricket.Innings", on_delete=models.CASCADE, related_name="+")
    innings_ordinal = models.PositiveSmallIntegerField()
    team = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    total = models.PositiveIntegerField()
    wickets = models.PositiveSmallIntegerField()
    legal_balls = models.PositiveIntegerField()
    extras = models.PositiveIntegerField()
    byes = models.PositiveIntegerField()
    legbyes = models.PositiveIntegerField()
    wides = models.PositiveIntegerField()
    noballs = models.PositiveIntegerField()
    penalty_extras = models.PositiveIntegerField()
    # The innings' penalty runs (before plus after), which belong to no delivery.
    penalty_runs = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["fixture"], name="cricket_teamline_fixture_idx")]

    def __str__(self) -> str:
        return f"innings {self.innings_ordinal}: {self.total}/{self.wickets}"


class CricketAppearance(_FixtureScope):
    """A player's match: listed in a team's players, entering through a match replacement
    (``replacements.match``: a concussion, covid or impact-player substitute), or named in
    any delivery or wicket of the fixture as batter, non-striker, bowler, player out or a
    fielder who is not a substitute (a substitute fielder does not play the match).
    ``super_over`` rows record appearances inside super-over innings only (the super-over
    scope); standard rows cover the listed players and the other innings."""

    id = models.BigAutoField(primary_key=True)
    participant = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    # The side they played for: the squad's team, else the side the delivery names them for.
    team = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["fixture", "participant", "super_over"], name="uq_cricket_appearance"
            ),
        ]
        indexes = [
            models.Index(fields=["participant", "occurred_on"], name="cricket_appear_player_idx"),
            # A scoped fold's matches: the appearances of a format read from the index alone.
            models.Index(
                fields=["format_code", "occurred_on"],
                include=["participant", "fixture", "team", "super_over", "gender", "season"],
                name="cricket_appear_scope_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id} in {self.fixture_id}"


class CricketMatchSide(_FixtureScope):
    """One team's side of a fixture, with the keys the query vocabulary filters on: the
    opposition, venue, host country, home/away/neutral, result and toss from that team's
    point of view. Lines join it on (fixture, team), a unique key, rather than carrying
    these columns each (see ``cricket.stats.query``)."""

    class HomeAway(models.TextChoices):
        HOME = "home", "Home"
        AWAY = "away", "Away"
        NEUTRAL = "neutral", "Neutral"
        UNKNOWN = "", "Unknown"

    class Result(models.TextChoices):
        WON = "won", "Won"
        LOST = "lost", "Lost"
        TIED = "tied", "Tied"
        DRAWN = "drawn", "Drawn"
        NO_RESULT = "no_result", "No result"
        UNKNOWN = "", "Unknown"

    class Toss(models.TextChoices):
        WON = "won", "Won"
        LOST = "lost", "Lost"
        UNKNOWN = "", "Unknown"

    id = models.BigAutoField(primary_key=True)
    team = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    opposition = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    venue = models.ForeignKey(
        "sports.Venue", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    host_country = models.CharField(max_length=3, blank=True)
    team_type = models.CharField(max_length=16, blank=True)
    home_away = models.CharField(max_length=8, choices=HomeAway.choices, blank=True)
    result = models.CharField(max_length=16, choices=Result.choices, blank=True)
    toss = models.CharField(max_length=8, choices=Toss.choices, blank=True)
    balls_per_over = models.PositiveSmallIntegerField(default=6)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["fixture", "team"], name="uq_cricket_match_side"),
        ]
        indexes = [
            models.Index(fields=["team", "occurred_on"], name="cricket_side_team_idx"),
            models.Index(fields=["opposition"], name="cricket_side_opposition_idx"),
            models.Index(fields=["venue"], name="cricket_side_venue_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.team_id} in {self.fixture_id}"


# --- versions and snapshots: a snapshot is valid only for the data version it was built from ---


class FixtureLinesState(models.Model):
    """Whether a fixture's stored lines are current. ``data_version`` moves with every
    write to the fixture's statistic inputs (``refresh.statistics_refresh`` bumps it inside
    the write's transaction); a rebuild records the data version it read before reading the
    deliveries and the engine definition it ran (``engine.LINES_DEFINITION_VERSION``).
    The lines are current only while both match; a fixture without a row has never been
    rebuilt under this bookkeeping and counts as stale."""

    fixture = models.OneToOneField(
        Fixture, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    data_version = models.PositiveBigIntegerField(default=1)
    lines_version = models.PositiveBigIntegerField(null=True, blank=True)
    definition_version = models.PositiveIntegerField(null=True, blank=True)
    built_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(data_version__gte=1), name="fixture_lines_data_version_positive"
            ),
            models.CheckConstraint(
                condition=Q(lines_version__isnull=True) | Q(lines_version__lte=F("data_version")),
                name="fixture_lines_built_from_a_known_version",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.fixture_id} v{self.data_version} (lines v{self.lines_version})"


class ParticipantStatisticsVersion(models.Model):
    """One monotonically increasing data version per participant: the input version of
    their season, competition and career aggregates."""

    participant = models.OneToOneField(
        Participant, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    data_version = models.PositiveBigIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(data_version__gte=1), name="participant_stat_version_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id} v{self.data_version}"


class ParticipantAggregateSnapshotState(models.Model):
    """What a participant's stored snapshot rows were built from. The rows are valid only
    while ``data_version`` equals the participant's current version and
    ``definition_version`` the running definition (``aggregates.DEFINITION_VERSION``)."""

    participant = models.OneToOneField(
        Participant, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    data_version = models.PositiveBigIntegerField()
    definition_version = models.PositiveIntegerField()
    refresh_count = models.PositiveIntegerField(default=0)
    failed_attempts = models.PositiveIntegerField(default=0)
    built_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.participant_id} built from v{self.data_version}"


class ParticipantAggregateSnapshot(models.Model):
    """One stored aggregate row (batting, bowling and fielding figures as JSON) for one
    participant at one level: career per format (``format_code`` "" is every format),
    competition (an event root) or season (a season node). Disposable."""

    class Level(models.TextChoices):
        CAREER = "career", "Career"
        COMPETITION = "competition", "Competition"
        SEASON = "season", "Season"

    id = models.BigAutoField(primary_key=True)
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="+")
    level = models.CharField(max_length=16, choices=Level.choices)
    format_code = models.CharField(max_length=64, blank=True)
    competition = models.ForeignKey(
        Competition, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    super_overs = models.CharField(max_length=8, default="exclude")
    row = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["participant", "level", "format_code", "competition", "super_overs"],
                nulls_distinct=False,
                name="uq_participant_aggregate_snapshot",
            ),
        ]
        indexes = [
            models.Index(
                fields=["level", "format_code", "super_overs"], name="cricket_snapshot_level_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.level} {self.participant_id}"


# --- refresh records --------------------------------------------------------------------------


class RefreshStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class StatisticsRefresh(UUIDModel):
    """One request to refresh statistics after a write to their inputs (an import, a batch
    publication, a correction): why, who, and which submission, if any, caused it."""

    reason = models.CharField(max_length=256)
    actor = models.CharField(max_length=256)
    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    fixture_ids = models.JSONField(default=list)
    requested_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=16, choices=RefreshStatus.choices, default=RefreshStatus.PENDING
    )
    completed_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="statistics_refresh_reason"),
        ]


class RefreshScope(models.TextChoices):
    FIXTURE = "fixture", "Fixture"
    SEASON = "season", "Season"
    COMPETITION = "competition", "Competition"
    CAREER = "career", "Career"


class StatisticsRefreshDependency(models.Model):
    """A scope a refresh affects (recorded so exactly these are rebuilt): the fixture,
    its season and competition nodes, and each affected participant's career."""

    id = models.BigAutoField(primary_key=True)
    refresh = models.ForeignKey(
        StatisticsRefresh, on_delete=models.CASCADE, related_name="dependencies"
    )
    scope = models.CharField(max_length=16, choices=RefreshScope.choices)
    fixture = models.ForeignKey(
        Fixture, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    competition = models.ForeignKey(
        Competition, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    participant = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    # Career scope: the participant's data version after this refresh's bump; the run marks
    # their snapshot built from it.
    data_version = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(scope="fixture", fixture__isnull=False)
                | Q(scope__in=["season", "competition"], competition__isnull=False)
                | Q(scope="career", participant__isnull=False),
                name="refresh_dependency_names_its_scope",
            ),
        ]
        indexes = [models.Index(fields=["scope", "refresh"], name="cricket_refresh_dep_idx")]

    def __str__(self) -> str:
        return f"{self.scope} of {self.refresh_id}"


# --- dataset releases --------------------------------------------------------------------------


class DatasetRelease(UUIDModel):
    """An immutable published dataset: its scope, who asked, when, and each file's name,
    row count, SHA-256 and private storage key. Never changed or deleted (trigger)."""

    scope = models.JSONField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor = models.CharField(max_length=256)
    created_at = models.DateTimeField(auto_now_add=True)
    files = models.JSONField(help_text="[{name, rows, bytes, sha256, storage_key}]")
    manifest_sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["-created_at"]
        triggers = [
            never_truncated("dataset_release_no_truncate"),
            pgtrigger.Protect(
                name="dataset_release_immutable", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"release {self.pk} ({self.created_at:%Y-%m-%d})"


class ReleaseJobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class DatasetReleaseJob(UUIDModel):
    """The mutable state of one release build (a Celery job)."""

    scope = models.JSONField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor = models.CharField(max_length=256)
    status = models.CharField(
        max_length=16, choices=ReleaseJobStatus.choices, default=ReleaseJobStatus.QUEUED
    )
    release = models.OneToOneField(
        DatasetRelease, null=True, blank=True, on_delete=models.PROTECT, related_name="job"
    )
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
