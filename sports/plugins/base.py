from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from jsonschema import Draft202012Validator

from sports.models import Fixture, FixtureCompetitor, Participant, TimelineItem


@dataclass
class CompetitorOutcome:
    rank: int | None = None
    result_status: str | None = None
    status_code: str | None = None
    result: dict[str, Any] = field(default_factory=dict)


@dataclass
class StatLineSpec:
    subject_id: Any
    subject_role: str
    segment: str
    values: dict[str, Any]


@dataclass
class Fold:
    """Everything derived from one fixture's log."""

    scoreboard: dict[str, Any]
    status: str | None = None
    results_official: bool | None = None
    result: dict[str, Any] | None = None
    competitors: dict[Any, CompetitorOutcome] = field(default_factory=dict)
    stat_lines: list[StatLineSpec] = field(default_factory=list)


class SportPlugin:
    """Base of every plugin. ``commands`` maps a command name to the JSON Schema of its
    payload; ``check`` adds the rules a schema cannot say; ``fold`` replays the log."""

    key: ClassVar[str]
    commands: ClassVar[dict[str, dict[str, Any]]]
    meta_schema: ClassVar[dict[str, Any]] = {"type": "object"}
    format_schema: ClassVar[dict[str, Any]] = {"type": "object"}
    status_codes: ClassVar[dict[str, str]] = {}

    def validate_payload(self, command: str, payload: dict[str, Any]) -> None:
        if command not in self.commands:
            raise ValidationError(
                {
                    "command": f"{self.key} has no command {command!r}; it has "
                    f"{', '.join(sorted(self.commands))}."
                }
            )
        validator = Draft202012Validator(self.commands[command])
        problems = [
            f"{'/'.join(str(p) for p in error.absolute_path) or '(payload)'}: {error.message}"
            for error in sorted(validator.iter_errors(payload), key=lambda e: list(e.path))
        ]
        if problems:
            raise ValidationError({"payload": problems})

    def check(
        self,
        fixture: Fixture,
        competitors: list[FixtureCompetitor],
        command: str,
        payload: dict[str, Any],
        state: dict[str, Any],
        status_codes: dict[str, str],
    ) -> None:
        """Raise ``ValidationError`` when the command cannot apply now."""

    def participants(
        self, competitors: list[FixtureCompetitor], command: str, payload: dict[str, Any]
    ) -> list[tuple[Any, str]]:
        """(participant id, role) pairs the log item should be linked to."""
        return []

    def fold(
        self,
        fixture: Fixture,
        competitors: list[FixtureCompetitor],
        items: list[TimelineItem],
        status_codes: dict[str, str],
    ) -> Fold:
        raise NotImplementedError

    def participants_merged(self, *, loser: Participant, survivor: Participant, actor: Any) -> None:
        """Called by ``participant_merge`` inside its transaction, after the merge is written
        (the loser's ``merged_into`` set, its lines moved): what this sport derives from
        either participant must not go on reading as before. A sport that keeps figures of
        its own (cricket's careers) queues their refresh here; the default has none."""


def fixture_day(fixture: Fixture) -> date:
    """The date a fixture's stat lines are filed under."""
    when = fixture.scheduled_start or fixture.created_at
    return when.date()


def uuid_schema() -> dict[str, Any]:
    return {"type": "string", "format": "uuid", "pattern": "^[0-9a-fA-F-]{36}$"}
