"""Enumerations of the sports spine: varchar columns with ``TextChoices``.

No database CHECK on these: a new value is a state-only migration, and Python enforces the
set (seed 000: "the column is a plain VARCHAR ... Python is the only guard").
"""

from django.db import models


class Archetype(models.TextChoices):
    HEAD_TO_HEAD = "HEAD_TO_HEAD", "Head to head"
    RANKED_FIELD = "RANKED_FIELD", "Ranked field"
    SERIES = "SERIES", "Series of attempts"
    COMPOSITE = "COMPOSITE", "Composite of child fixtures"


class CompetitorKind(models.TextChoices):
    PERSON = "PERSON", "Person"
    TEAM = "TEAM", "Team"
    PAIR = "PAIR", "Pair"
    COMBO = "COMBO", "Combination"
    CREW = "CREW", "Crew"


class SportStatus(models.TextChoices):
    ACTIVE = "ACTIVE", "Active"
    RETIRED = "RETIRED", "Retired"


class CompetitionStatus(models.TextChoices):
    ACTIVE = "ACTIVE", "Active"
    ARCHIVED = "ARCHIVED", "Archived"
    MERGED = "MERGED", "Merged"


class ParticipantType(models.TextChoices):
    PERSON = "PERSON", "Person"
    TEAM = "TEAM", "Team"
    PAIR = "PAIR", "Pair"
    CREW = "CREW", "Crew"
    HORSE = "HORSE", "Horse"
    COUNTRY = "COUNTRY", "Country"


class FixtureStatus(models.TextChoices):
    SCHEDULED = "SCHEDULED", "Scheduled"
    LIVE = "LIVE", "Live"
    SUSPENDED = "SUSPENDED", "Suspended"
    COMPLETED = "COMPLETED", "Completed"
    POSTPONED = "POSTPONED", "Postponed"
    CANCELLED = "CANCELLED", "Cancelled"
    ABANDONED = "ABANDONED", "Abandoned"
    VOID = "VOID", "Void"


class CoverageTier(models.TextChoices):
    LIVE = "LIVE", "Live"
    DELAYED = "DELAYED", "Delayed"
    EOD = "EOD", "End of day"


class ResultStatus(models.TextChoices):
    ENTERED = "ENTERED", "Entered"
    ACTIVE = "ACTIVE", "Active"
    FINISHED = "FINISHED", "Finished"
    DNS = "DNS", "Did not start"
    DNF = "DNF", "Did not finish"
    DSQ = "DSQ", "Disqualified"


class WinMethod(models.TextChoices):
    NORMAL = "NORMAL", "Normal"
    AWARDED = "AWARDED", "Awarded"
    PENALTIES = "PENALTIES", "Penalties"
    KO = "KO", "Knock-out"
    DLS = "DLS", "Duckworth-Lewis-Stern"


class EntityType(models.TextChoices):
    SPORT = "sport", "Sport"
    COMPETITION = "competition", "Competition"
    FIXTURE = "fixture", "Fixture"
    PARTICIPANT = "participant", "Participant"
    VENUE = "venue", "Venue"


class LinkOrigin(models.TextChoices):
    ONBOARDING = "onboarding", "Onboarding"
    INTEGRATION = "integration", "Integration"
    UPLOAD = "upload", "Upload"
    HAND = "hand", "By hand"


class TimelineStatus(models.TextChoices):
    ACTIVE = "ACTIVE", "Active"
    CORRECTED = "CORRECTED", "Correction"
    SUPERSEDED = "SUPERSEDED", "Superseded"
    VOIDED = "VOIDED", "Voided"


class SubjectKind(models.TextChoices):
    FIXTURE = "fixture", "Fixture"
    COMPETITION = "competition", "Competition"


class AttemptOutcome(models.TextChoices):
    CLEARED = "CLEARED", "Cleared"
    FAILED = "FAILED", "Failed"
    PASSED = "PASSED", "Passed"
    LIFTED = "LIFTED", "Lifted"
    SCORED = "SCORED", "Scored"
