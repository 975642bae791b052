"""Football: a head-to-head match between a home and an away side, scored live.

The log holds the commands; everything else (scoreboard, ranks, stat lines) is a fold of it,
so replaying the log always rebuilds the same numbers.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.exceptions import ValidationError

from sports.models import FixtureCompetitor, FixtureStatus, ResultStatus
from sports.plugins.base import CompetitorOutcome, Fold, SportPlugin, StatLineSpec, uuid_schema

SIDES = ("home", "away")
_side = {"enum": list(SIDES)}
_minute = {"type": "integer", "minimum": 0, "maximum": 200}


def _command(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


class FootballPlugin(SportPlugin):
    key = "football"
    commands = {
        "start": _command({}, []),
        "goal": _command(
            {
                "side": _side,
                "player": uuid_schema(),
                "minute": _minute,
                "own_goal": {"type": "boolean"},
            },
            ["side", "minute"],
        ),
        "card": _command(
            {
                "side": _side,
                "player": uuid_schema(),
                "minute": _minute,
                "colour": {"enum": ["yellow", "red"]},
            },
            ["side", "player", "minute", "colour"],
        ),
        "end_period": _command({"period": {"enum": [1, 2]}}, ["period"]),
        "finish": _command({}, []),
    }
    meta_schema = {
        "type": "object",
        "properties": {
            "attendance": {"type": "integer", "minimum": 0},
            "match_number": {"type": "integer", "minimum": 1},
            "referee": {"type": "string"},
        },
    }
    format_schema = {
        "type": "object",
        "properties": {
            "periods": {"type": "integer", "minimum": 1},
            "period_minutes": {"type": "integer", "minimum": 1},
        },
    }

    # --- validation -----------------------------------------------------------------
    @staticmethod
    def sides(competitors: list[FixtureCompetitor]) -> dict[str, FixtureCompetitor]:
        return {c.alignment: c for c in competitors if c.parent_id is None and c.alignment in SIDES}

    def check(self, fixture, competitors, command, payload, state, status_codes) -> None:
        sides = self.sides(competitors)
        if set(sides) != set(SIDES):
            raise ValidationError("A football match needs a home and an away side before commands.")
        status = state.get("status", FixtureStatus.SCHEDULED)
        if command == "start" and status != FixtureStatus.SCHEDULED:
            raise ValidationError(f"The match cannot start: it is {status}.")
        if command in {"goal", "card", "end_period", "finish"} and status != FixtureStatus.LIVE:
            raise ValidationError(f"{command!r} needs a live match; it is {status}.")
        if command == "end_period" and payload["period"] != state.get("period"):
            raise ValidationError(
                f"Period {payload['period']} cannot end: period {state.get('period')} is in play."
            )
        if command in {"goal", "card"} and state.get("period") not in (1, 2):
            raise ValidationError(
                f"{command!r} needs a period in play; it is {state.get('period')}."
            )
        if command == "finish" and state.get("period") != "full-time":
            raise ValidationError("The match finishes after the second period has ended.")
        player = payload.get("player")
        if player is not None and command in {"goal", "card"}:
            # The scorer of an own goal plays for the other side.
            side = payload["side"]
            if payload.get("own_goal"):
                side = "away" if side == "home" else "home"
            squad = {
                str(c.participant_id)
                for c in competitors
                if c.parent_id == sides[side].pk and c.participant_id
            }
            if squad and player not in squad:
                raise ValidationError(
                    {"player": f"Player {player} is not in the {side} side's squad."}
                )

    def participants(self, competitors, command, payload):
        if payload.get("player"):
            return [(payload["player"], "scorer" if command == "goal" else "carded")]
        return []

    # --- the fold -------------------------------------------------------------------
    def fold(self, fixture, competitors, items, status_codes) -> Fold:
        state: dict[str, Any] = {
            "status": FixtureStatus.SCHEDULED,
            "period": None,
            "score": {"home": 0, "away": 0},
            "periods": {},
            "goals": [],
            "cards": [],
        }
        for item in items:
            command = item.event_type.removeprefix(f"{self.key}.")
            state = self.apply(state, command, item.payload)

        sides = self.sides(competitors)
        fold = Fold(scoreboard=state, status=state["status"])
        if not sides:
            return fold
        home, away = state["score"]["home"], state["score"]["away"]
        finished = state["status"] == FixtureStatus.COMPLETED
        ranks: dict[str, int | None] = {"home": None, "away": None}
        if finished:
            # The one draw representation: both sides rank 1 and outcome "draw".
            ranks = {
                "home": 1 if home >= away else 2,
                "away": 1 if away >= home else 2,
            }
            fold.result = {
                "outcome": "draw" if home == away else "win",
                "score": {"home": home, "away": away},
                "periods": state["periods"],
            }
        for side, competitor in sides.items():
            fold.competitors[competitor.pk] = CompetitorOutcome(
                rank=ranks[side],
                result_status=ResultStatus.FINISHED
                if finished
                else (
                    ResultStatus.ACTIVE
                    if state["status"] == FixtureStatus.LIVE
                    else ResultStatus.ENTERED
                ),
                result={"score": state["score"][side]},
            )
        fold.stat_lines = self.stat_lines(state, sides, ranks)
        return fold

    @staticmethod
    def apply(state: dict[str, Any], command: str, payload: dict[str, Any]) -> dict[str, Any]:
        if command == "start":
            state["status"] = FixtureStatus.LIVE
            state["period"] = 1
            state["periods"]["1"] = {"home": 0, "away": 0}
        elif command == "goal":
            side = payload["side"]
            state["score"][side] += 1
            state["periods"][str(state["period"])][side] += 1
            state["goals"].append({**payload, "period": state["period"]})
        elif command == "card":
            state["cards"].append({**payload, "period": state["period"]})
        elif command == "end_period":
            if payload["period"] == 1:
                state["period"] = 2
                state["periods"]["2"] = {"home": 0, "away": 0}
            else:
                state["period"] = "full-time"
        elif command == "finish":
            state["status"] = FixtureStatus.COMPLETED
        return state

    @staticmethod
    def stat_lines(state, sides, ranks) -> list[StatLineSpec]:
        lines: list[StatLineSpec] = []
        other = {"home": "away", "away": "home"}
        for side, competitor in sides.items():
            if competitor.participant_id is None:
                continue
            for period, score in sorted(state["periods"].items()):
                lines.append(
                    StatLineSpec(
                        competitor.participant_id,
                        "side",
                        f"half-{period}",
                        {"goals_for": score[side], "goals_against": score[other[side]]},
                    )
                )
            values = {
                "goals_for": state["score"][side],
                "goals_against": state["score"][other[side]],
            }
            if ranks[side] is not None:
                values["place"] = ranks[side]
                # The same line shape as imported results, so one league fold reads both.
                values["outcome"] = (
                    "draw"
                    if ranks[side] == ranks[other[side]]
                    else "win"
                    if ranks[side] == 1
                    else "loss"
                )
            lines.append(StatLineSpec(competitor.participant_id, "side", "match", values))

        goals = Counter(
            g["player"] for g in state["goals"] if g.get("player") and not g.get("own_goal")
        )
        own_goals = Counter(
            g["player"] for g in state["goals"] if g.get("player") and g.get("own_goal")
        )
        yellows = Counter(c["player"] for c in state["cards"] if c["colour"] == "yellow")
        reds = Counter(c["player"] for c in state["cards"] if c["colour"] == "red")
        for player in sorted(set(goals) | set(own_goals) | set(yellows) | set(reds)):
            lines.append(
                StatLineSpec(
                    player,
                    "player",
                    "match",
                    {
                        "goals": goals[player],
                        "own_goals": own_goals[player],
                        "yellow_cards": yellows[player],
                        "red_cards": reds[player],
                    },
                )
            )
        return lines
