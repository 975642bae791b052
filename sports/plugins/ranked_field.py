"""Ranked field: any number of entrants, each with a mark, a finishing place and, when they
did not finish normally, an IRM code (DNS, DNF, DSQ and each sport's own words)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from sports.models import FixtureStatus, ResultStatus
from sports.plugins.base import CompetitorOutcome, Fold, SportPlugin, StatLineSpec, uuid_schema

# IRM codes every ranked sport understands; a definition adds its own (DQ, BFD, NM, …).
CANONICAL_CODES = {"DNS": ResultStatus.DNS, "DNF": ResultStatus.DNF, "DSQ": ResultStatus.DSQ}


class RankedFieldPlugin(SportPlugin):
    key = "ranked_field"
    commands = {
        "start": {"type": "object", "additionalProperties": False},
        "record": {
            "type": "object",
            "properties": {
                "competitor": uuid_schema(),
                "mark": {"type": "string", "maxLength": 64},
                "rank": {"type": "integer", "minimum": 1},
                "irm": {"type": "string", "pattern": "^[A-Z]{1,8}$"},
            },
            "required": ["competitor"],
            "additionalProperties": False,
        },
        "finish": {
            "type": "object",
            "properties": {"official": {"type": "boolean"}},
            "additionalProperties": False,
        },
    }
    status_codes = dict(CANONICAL_CODES)

    def check(self, fixture, competitors, command, payload, state, status_codes) -> None:
        status = state.get("status", FixtureStatus.SCHEDULED)
        if command == "start" and status != FixtureStatus.SCHEDULED:
            raise ValidationError(f"The event cannot start: it is {status}.")
        if command == "record":
            if status == FixtureStatus.SCHEDULED:
                raise ValidationError("Results are recorded once the event has started.")
            entrants = {str(c.pk) for c in competitors if c.parent_id is None}
            if payload["competitor"] not in entrants:
                raise ValidationError({"competitor": "Not an entrant of this fixture."})
            irm = payload.get("irm")
            codes = {**CANONICAL_CODES, **status_codes}
            if irm is not None and irm not in codes:
                raise ValidationError(
                    {
                        "irm": f"{irm!r} is not a status code of this sport "
                        f"({', '.join(sorted(codes))})."
                    }
                )
            if irm is None and "rank" not in payload and "mark" not in payload:
                raise ValidationError("A result needs a rank, a mark or an IRM code.")

    def fold(self, fixture, competitors, items, status_codes) -> Fold:
        codes = {**CANONICAL_CODES, **status_codes}
        state: dict[str, Any] = {"status": FixtureStatus.SCHEDULED, "results": {}}
        official = None
        for item in items:
            command = item.event_type.removeprefix(f"{self.key}.")
            if command == "start":
                state["status"] = FixtureStatus.LIVE
            elif command == "record":
                # A later record for the same entrant replaces the earlier one.
                state["results"][item.payload["competitor"]] = {
                    k: v for k, v in item.payload.items() if k != "competitor"
                }
            elif command == "finish":
                state["status"] = FixtureStatus.COMPLETED
                official = item.payload.get("official", False)

        fold = Fold(scoreboard=state, status=state["status"], results_official=official)
        finished = state["status"] == FixtureStatus.COMPLETED
        for competitor in competitors:
            if competitor.parent_id is not None:
                continue
            recorded = state["results"].get(str(competitor.pk), {})
            irm = recorded.get("irm")
            if irm:
                result_status = codes[irm]
            elif recorded:
                result_status = ResultStatus.FINISHED if finished else ResultStatus.ACTIVE
            else:
                result_status = (
                    ResultStatus.ACTIVE
                    if state["status"] == FixtureStatus.LIVE
                    else ResultStatus.ENTERED
                )
            outcome = CompetitorOutcome(
                rank=recorded.get("rank"),
                result_status=result_status,
                status_code=irm or "",
                result={"mark": recorded["mark"]} if "mark" in recorded else {},
            )
            fold.competitors[competitor.pk] = outcome
            if recorded and competitor.participant_id:
                values = {"place": outcome.rank, "mark": recorded.get("mark"), "status_code": irm}
                fold.stat_lines.append(
                    StatLineSpec(
                        competitor.participant_id,
                        "entrant",
                        "match",
                        {k: v for k, v in values.items() if v is not None},
                    )
                )
        if finished:
            fold.result = {"outcome": "ranked", "entrants": len(fold.competitors)}
        return fold
