from sports.models.enums import (
    Archetype,
    AttemptOutcome,
    CompetitionStatus,
    CompetitorKind,
    CoverageTier,
    EntityType,
    FixtureStatus,
    LinkOrigin,
    ParticipantType,
    ResultStatus,
    SportStatus,
    SubjectKind,
    TimelineStatus,
    WinMethod,
)
from sports.models.external import ExternalIdMap, UnmatchedRow
from sports.models.fixtures import (
    Fixture,
    FixtureAmendment,
    FixtureAttempt,
    FixtureCompetitor,
    FixtureRelation,
)
from sports.models.participants import (
    CompetitionEntry,
    Membership,
    Participant,
    ParticipantAlias,
    ParticipantSport,
)
from sports.models.provenance import Submission, SubmissionKind
from sports.models.stats import StatLine
from sports.models.tables import PointsAdjustment, StatTable, TableKind
from sports.models.taxonomy import Competition, Sport, SportDefinitionVersion, Venue
from sports.models.timeline import LedgerStream, Scoreboard, TimelineActor, TimelineItem

__all__ = [
    "Archetype",
    "AttemptOutcome",
    "Competition",
    "CompetitionEntry",
    "CompetitionStatus",
    "CompetitorKind",
    "CoverageTier",
    "EntityType",
    "ExternalIdMap",
    "Fixture",
    "FixtureAmendment",
    "FixtureAttempt",
    "FixtureCompetitor",
    "FixtureRelation",
    "FixtureStatus",
    "LedgerStream",
    "LinkOrigin",
    "Membership",
    "Participant",
    "ParticipantAlias",
    "ParticipantSport",
    "ParticipantType",
    "PointsAdjustment",
    "ResultStatus",
    "Scoreboard",
    "Sport",
    "SportDefinitionVersion",
    "SportStatus",
    "StatLine",
    "StatTable",
    "SubjectKind",
    "Submission",
    "SubmissionKind",
    "TableKind",
    "TimelineActor",
    "TimelineItem",
    "TimelineStatus",
    "UnmatchedRow",
    "Venue",
    "WinMethod",
]
