"""Cricket in the sports plugin registry (``settings.SPORT_PLUGINS["cricket"]``).

A cricket match is not scored by commands folded from its log: its deliveries, innings and
results have their own tables, written by the Cricsheet import (``cricket.loading``,
``cricket.source_revisions``) and changed by corrections (``cricket.corrections``). The log
records those writes, and this plugin declares their shape: the commands are the import of
a file and the corrections of a delivery or of a match's facts. The writers check each log
payload against them (``cricket_log_check``), and the generic command path refuses them,
since replaying the log would not rebuild a scorecard.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from cricket.stats.models import CricketAppearance, ParticipantStatisticsVersion
from cricket.stats.refresh import statistics_refresh
from sports.models import Participant
from sports.plugins.base import Fold, SportPlugin
from sports.plugins.registry import get_plugin

KEY = "cricket"
NOT_BY_LOG = (
    "A cricket match is not scored through its log: its scorecard lives in its deliveries. "
    "Import its Cricsheet file, or correct a delivery (correct_delivery); its log items are "
    "not commanded, voided or corrected one by one."
)

_sha256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_uuid_text = {"type": "string", "pattern": "^[0-9a-fA-F-]{36}$"}
_count = {"type": "integer", "minimum": 0}
_reason = {"type": "string", "minLength": 1}
_submission = {"anyOf": [_uuid_text, {"type": "null"}]}
_ball = {
    "innings": {"type": "integer", "minimum": 1},
    "over": _count,
    "position": _count,
    "reason": _reason,
    "submission": _submission,
}


def _command(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


class CricketPlugin(SportPlugin):
    key = KEY
    commands = {
        # A Cricsheet file imported: a new match, or a revision of a known one.
        "import": _command(
            {
                "submission": _uuid_text,
                "sha256": _sha256,
                "data_version": {"type": "string", "minLength": 1},
                "revision": {"anyOf": [_count, {"type": "null"}]},
                "innings": _count,
                "deliveries": _count,
                "corrections": _count,
                "added": _count,
                "removed": _count,
                "changes": {"type": "array", "items": {"type": "string"}},
            },
            ["submission", "sha256", "data_version"],
        ),
        # A delivery corrected by hand or from a source: a new revision of the ball.
        "delivery.corrected": _command(
            {
                **_ball,
                "delivery": _count,
                "previous": _count,
                "revision": _count,
                "changed": {"type": "array", "items": {"type": "string"}},
            },
            ["delivery", "previous", "innings", "reason"],
        ),
        # A revised file's ball that was not there before, or that is gone from it.
        "delivery.added": _command(
            {**_ball, "delivery": _count, "ball_label": {"type": "string"}},
            ["delivery", "innings", "reason"],
        ),
        "delivery.removed": _command(
            {**_ball, "previous": _count, "tombstone": _count, "ball_label": {"type": "string"}},
            ["previous", "tombstone", "innings", "reason"],
        ),
        # Innings or match facts revised from a source file (penalty runs, the outcome...).
        "facts.revised": _command(
            {"reason": _reason, "submission": _submission, "changes": {"type": "array"}},
            ["reason", "changes"],
        ),
    }

    def check(self, fixture, competitors, command, payload, state, status_codes) -> None:
        raise ValidationError({"command": NOT_BY_LOG})

    def fold(self, fixture, competitors, items, status_codes) -> Fold:
        # Reached first by every generic write (a command, a void, a correction of an item):
        # each would replay the log, which holds no scorecard to rebuild.
        raise ValidationError(NOT_BY_LOG)

    def participants_merged(self, *, loser: Participant, survivor: Participant, actor) -> None:
        """A merge moves the loser's lines to the survivor's career (the folds follow
        ``merged_into``), so both careers are refreshed as any other write to statistic
        inputs is: a recorded refresh in the merge's transaction (the survivor's data
        version bumped, so its snapshot is stale at once and reads fold it live or say it
        is stale), run on commit. Its run rebuilds the survivor's snapshot over both
        players' lines and drops the loser's own rows. A pair with no cricket figures (two
        football clubs in the Commons) queues nothing."""
        pair = [loser.pk, survivor.pk]
        if not (
            ParticipantStatisticsVersion.objects.filter(participant_id__in=pair).exists()
            or CricketAppearance.objects.filter(participant_id__in=pair).exists()
        ):
            return
        statistics_refresh(
            fixture_ids=[],
            participant_ids=pair,
            reason=f"participant merge: {loser.name} into {survivor.name}",
            actor=actor,
        )


def cricket_log_check(event_type: str, payload: dict[str, Any]) -> None:
    """Refuse a cricket log payload (``event_type`` "cricket.<command>") that is not the
    shape its command declares, naming the command and the field."""
    plugin = get_plugin(KEY)
    plugin.validate_payload(event_type.removeprefix(f"{KEY}."), payload)
