"""The innings and match facts of a revised Cricsheet file against a fixture's live state.

Besides its balls, a revised file may change what an innings records beside them (penalty
runs before or after it, a declaration or forfeit, the target, the overs the umpires
miscounted) or what the match records (the outcome and its margin, the toss, the player of
the match and the rest of the match's own facts, the officials, the squads).
``facts_plan`` compares them and writes nothing; ``facts_apply`` records each change as a
fixture amendment (old value, new value, the reason) and writes it, and the fixture's log
gets one item listing them. A field a person pinned (the result, the meta) is left as they
set it. People are compared by participant (registry id), so a renamed player or umpire
changes nothing here.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from cricket.cricsheet_match import (
    OFFICIAL_ROLES,
    fixture_meta,
    fixture_result,
    overs_decimal,
    side_squad,
)
from cricket.models import FixtureOfficial, Innings, InningsMiscountedOver
from cricket.services import SOURCE
from sports.models import Fixture, FixtureAmendment, FixtureCompetitor, FixtureStatus
from sports.services.common import Actor, actor_user, audit_person
from sports.services.fixtures import fixture_documents_recheck
from sports.services.results import EntrantResult, fixture_results_record
from sports.services.timeline import timeline_append

INNINGS_FIELDS = {
    "penalty_runs_pre": "penalty runs",
    "penalty_runs_post": "penalty runs",
    "declared": "declared",
    "forfeited": "forfeited",
    "target_runs": "target",
    "target_overs": "target",
    "miscounted_overs": "miscounted overs",
}
# The match's own facts that are names of people already compared by id, and the file's
# own version (every revision moves it): written with the rest, never a change by itself.
_META_NOT_COMPARED = ("source", "player_of_match")
_META_LABELS = {"player_of_match_ids": "player of the match"}


@dataclass(frozen=True)
class FactChange:
    """One fact a revised file changes: where (``innings 2`` or ``match``), which field,
    the live and the proposed value (as JSON), and the word the import's summary uses."""

    scope: str
    field: str
    live: Any
    proposed: Any
    label: str
    innings_ordinal: int | None = None


def _json(value: Any) -> Any:
    return str(value) if isinstance(value, Decimal) else value


def _innings_values(inning: dict) -> dict[str, Any]:
    target = inning.get("target") or {}
    penalty = inning.get("penalty_runs") or {}
    return {
        "penalty_runs_pre": penalty.get("pre"),
        "penalty_runs_post": penalty.get("post"),
        "declared": bool(inning.get("declared")),
        "forfeited": bool(inning.get("forfeited")),
        "target_runs": target.get("runs"),
        "target_overs": overs_decimal(target.get("overs")),
        "miscounted_overs": sorted(
            [int(over), int(value["balls"]), value.get("umpire") or ""]
            for over, value in (inning.get("miscounted_overs") or {}).items()
        ),
    }


def _live_innings_values(innings: Innings) -> dict[str, Any]:
    values = {f: getattr(innings, f) for f in INNINGS_FIELDS if f != "miscounted_overs"}
    values["miscounted_overs"] = sorted(
        [m.over_number, m.balls, m.umpire] for m in innings.miscounted_overs.all()
    )
    return values


def _officials(info: dict) -> list[list[Any]]:
    registry = (info.get("registry") or {}).get("people") or {}
    return [
        [OFFICIAL_ROLES[role], i, registry.get(name) or name]
        for role, names in (info.get("officials") or {}).items()
        for i, name in enumerate(names, start=1)
    ]


def _live_officials(fixture: Fixture) -> list[list[Any]]:
    return [
        [o.role, o.ordinal, o.registry_id or o.name]
        for o in FixtureOfficial.objects.filter(fixture=fixture).order_by("role", "ordinal")
    ]


def _sides(fixture: Fixture) -> list[FixtureCompetitor]:
    return list(
        fixture.competitors.filter(parent__isnull=True)
        .order_by("ordinal", "id")
        .prefetch_related("members")
    )


def _squad_key(squad: list[tuple[Any, str]]) -> list[list[str]]:
    return [[str(p.pk), slot] for p, slot in squad]


def _live_squad(side: FixtureCompetitor) -> list[list[str]]:
    members = sorted(side.members.all(), key=lambda m: (m.ordinal or 0, m.pk))
    return [[str(m.participant_id), m.slot] for m in members]


def _outcome(document: dict, sides: list[FixtureCompetitor], teams: Mapping[str, Any]) -> dict:
    info = document["info"]
    outcome = info.get("outcome") or {}
    result, ranks, methods = fixture_result(outcome, info["teams"])
    names = {teams[name]: name for name in info["teams"]}
    return {
        "result": result,
        "status": (
            FixtureStatus.ABANDONED
            if outcome.get("result") == "no result"
            else FixtureStatus.COMPLETED
        ),
        "sides": [
            [
                ranks.get(names.get(s.participant_id, "")),
                methods.get(names.get(s.participant_id, ""), ""),
            ]
            for s in sides
        ],
    }


def _live_outcome(fixture: Fixture, sides: list[FixtureCompetitor]) -> dict:
    return {
        "result": fixture.result,
        "status": fixture.status,
        "sides": [[s.rank, s.win_method] for s in sides],
    }


def facts_plan(
    *,
    fixture: Fixture,
    document: dict,
    innings: list[Innings],
    people: Mapping[str, Any],
    teams: Mapping[str, Any],
) -> list[FactChange]:
    """Every innings and match fact of ``document`` that differs from the fixture's live
    state. ``innings`` are the fixture's innings in order (as many as the file has);
    ``people`` maps the file's names to anything with ``pk``; ``teams`` the file's team
    names to participant ids. Writes nothing."""
    changes: list[FactChange] = []
    for row, inning in zip(innings, document["innings"], strict=True):
        live, wanted = _live_innings_values(row), _innings_values(inning)
        for name, label in INNINGS_FIELDS.items():
            if live[name] != wanted[name]:
                changes.append(
                    FactChange(
                        f"innings {row.ordinal}",
                        name,
                        _json(live[name]),
                        _json(wanted[name]),
                        label,
                        row.ordinal,
                    )
                )
    info = document["info"]
    sides = _sides(fixture)
    live_outcome, outcome = _live_outcome(fixture, sides), _outcome(document, sides, teams)
    if "result" not in fixture.pinned and live_outcome != outcome:
        changes.append(FactChange("match", "result", live_outcome, outcome, "outcome"))
    if "meta" not in fixture.pinned:
        meta = fixture_meta(info, document["meta"], dict(people))
        for key in sorted((set(meta) | set(fixture.meta)) - set(_META_NOT_COMPARED)):
            if meta.get(key) != fixture.meta.get(key):
                label = _META_LABELS.get(key, key.replace("_", " "))
                changes.append(
                    FactChange("match", f"meta.{key}", fixture.meta.get(key), meta.get(key), label)
                )
    live_officials, officials = _live_officials(fixture), sorted(_officials(info))
    if live_officials != officials:
        changes.append(FactChange("match", "officials", live_officials, officials, "officials"))
    by_team = {teams[name]: name for name in info["teams"]}
    for side in sides:
        team = by_team.get(side.participant_id)
        if team is None:
            continue
        live_squad, squad = _live_squad(side), _squad_key(side_squad(info, team, dict(people)))
        if live_squad != squad:
            changes.append(FactChange("match", f"squad {team}", live_squad, squad, "squads"))
    return changes


def facts_apply(
    *,
    fixture: Fixture,
    document: dict,
    changes: list[FactChange],
    innings: list[Innings],
    people: Mapping[str, Any],
    teams: Mapping[str, Any],
    reason: str,
    actor: Actor,
    submission_id: Any,
) -> set[Any]:
    """Write ``changes`` (from ``facts_plan`` under the same locks) as amendments with
    ``reason``, and return the participants whose statistics they touch (the teams of a
    changed outcome, the players of a changed squad or player of the match, before and
    after). Precondition: the caller holds the innings locks; the fixture's row lock is
    taken here (by the amendments' log item and the result's write)."""
    if not changes:
        return set()
    user = actor_user(actor)
    touched: set[Any] = set()
    by_ordinal = {i.ordinal: i for i in innings}
    info = document["info"]
    Fixture.objects.select_for_update().filter(pk=fixture.pk).values_list("pk").get()
    fixture.refresh_from_db()
    for change in changes:
        FixtureAmendment.objects.create(
            fixture=fixture,
            field=f"{change.scope} {change.field}" if change.innings_ordinal else change.field,
            old_value=change.live,
            new_value=change.proposed,
            reason=reason,
            actor=user,
        )
        if change.innings_ordinal is not None:
            row = by_ordinal[change.innings_ordinal]
            inning = document["innings"][change.innings_ordinal - 1]
            if change.field == "miscounted_overs":
                InningsMiscountedOver.objects.filter(innings=row).delete()
                InningsMiscountedOver.objects.bulk_create(
                    InningsMiscountedOver(innings=row, over_number=o, balls=b, umpire=u)
                    for o, b, u in change.proposed
                )
            else:
                value = _innings_values(inning)[change.field]
                Innings.objects.filter(pk=row.pk).update(**{change.field: value})
        elif change.field == "result":
            sides = _sides(fixture)
            touched |= {s.participant_id for s in sides}
            fixture_results_record(
                fixture=fixture,
                results={
                    side.pk: EntrantResult(
                        rank=rank,
                        win_method=method,
                        result=side.result,
                        status_code=side.status_code,
                    )
                    for side, (rank, method) in zip(sides, change.proposed["sides"], strict=True)
                },
                status=change.proposed["status"],
                outcome=change.proposed["result"],
                source_code=SOURCE,
                actor=actor,
            )
        elif change.field == "officials":
            FixtureOfficial.objects.filter(fixture=fixture).delete()
            registry = (info.get("registry") or {}).get("people") or {}
            FixtureOfficial.objects.bulk_create(
                FixtureOfficial(
                    fixture=fixture,
                    role=OFFICIAL_ROLES[role],
                    ordinal=i,
                    name=name,
                    registry_id=registry.get(name, ""),
                )
                for role, names in (info.get("officials") or {}).items()
                for i, name in enumerate(names, start=1)
            )
        elif change.field.startswith("squad "):
            team = change.field.removeprefix("squad ")
            side = next(s for s in _sides(fixture) if s.participant_id == teams[team])
            touched |= {p for p, _ in change.live} | {p for p, _ in change.proposed}
            FixtureCompetitor.objects.filter(parent=side).delete()
            FixtureCompetitor.objects.bulk_create(
                FixtureCompetitor(
                    fixture=fixture,
                    parent=side,
                    participant=player,
                    ordinal=ordinal,
                    slot=slot,
                    entry={"role": slot} if slot else {},
                )
                for ordinal, (player, slot) in enumerate(
                    side_squad(info, team, dict(people)), start=1
                )
            )
        elif change.field == "meta.player_of_match_ids":
            touched |= set(change.live or ()) | set(change.proposed or ())
    if any(c.field.startswith("meta.") for c in changes):
        meta = fixture_meta(info, document["meta"], dict(people))
        fixture_documents_recheck(fixture, meta=meta)
        Fixture.objects.filter(pk=fixture.pk).update(meta=meta)
    detail = {
        "reason": reason,
        "changes": [
            {"scope": c.scope, "field": c.field, "live": c.live, "proposed": c.proposed}
            for c in changes
        ],
    }
    audit_person(
        actor, action="cricket.facts.revise", entity=fixture, key=fixture.pk, detail=detail
    )
    timeline_append(
        fixture=fixture,
        event_type="cricket.facts.revised",
        actor=actor,
        source_code=SOURCE,
        unit="record",
        payload={**detail, "submission": str(submission_id) if submission_id else None},
        moves_version=True,
    )
    return {uuid.UUID(str(t)) for t in touched if t is not None}
