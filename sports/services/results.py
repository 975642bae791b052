"""Writes of results and provenance used by every importer and by hand entry.

Idempotent by construction: a write that finds the row already as asked changes nothing
(no update, no log item), so re-running an import leaves every row as it was. Fields a
person pinned (on the fixture or on a competitor) are never written.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from omnium.bulk import Inserts
from sports.models import (
    Archetype,
    Competition,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureCompetitor,
    StatLine,
    StatTable,
    Submission,
    SubmissionKind,
)
from sports.plugins.base import fixture_day
from sports.querysets import follow_merges
from sports.results import head_to_head_outcomes
from sports.services.common import Actor, actor_user, audit_person, fixture_version_check
from sports.services.fixtures import (
    CompetitorSpec,
    _create_competitors,
    definition_for,
    fixture_create,
    fixture_documents_recheck,
)
from sports.services.participants import external_id_link
from sports.services.timeline import timeline_append

IMPORTABLE = ("name", "scheduled_start", "venue", "status", "format", "meta", "archetype")


def submission_record(
    *,
    kind: str,
    source_code: str,
    actor: Actor,
    content: bytes | None = None,
    original_filename: str = "",
    media_type: str = "",
    accepted: bool = True,
    note: str = "",
    inserts: Inserts | None = None,
) -> Submission:
    """Record where a set of facts came from. Importers of trusted corpora accept at once;
    a reviewed batch is accepted by its reviewer. With ``inserts``, the row joins the
    caller's batch."""
    now = timezone.now()
    submission = Submission(
        kind=kind,
        source_code=source_code,
        submitted_by=actor_user(actor),
        original_filename=original_filename,
        media_type=media_type,
        byte_size=len(content) if content is not None else None,
        sha256=hashlib.sha256(content).hexdigest() if content is not None else "",
        accepted=accepted,
        accepted_at=now if accepted else None,
        note=note,
    )
    if inserts is not None:
        inserts.add(submission)
    else:
        submission.save(force_insert=True)
    return submission


def fixture_by_external_id(source_code: str, external_id: str) -> Fixture | None:
    internal = (
        ExternalIdMap.objects.filter(
            source_code=source_code, entity_type=EntityType.FIXTURE, external_id=external_id
        )
        .values_list("internal_id", flat=True)
        .first()
    )
    if internal is None or not Fixture.objects.filter(pk=internal).exists():
        return None
    return Fixture.objects.get(pk=follow_merges(Fixture, internal))


@dataclass
class ImportedFixture:
    fixture: Fixture
    created: bool
    changed: list[str] = field(default_factory=list)


@transaction.atomic
def fixture_import(
    *,
    source_code: str,
    external_id: str,
    competition: Competition,
    code: str,
    values: dict[str, Any],
    competitors: list[CompetitorSpec],
    submission: Submission,
    actor: Actor,
    expected_version: int | None = None,
) -> ImportedFixture:
    """Create the fixture a source row describes, or bring an existing one up to date.

    The source's id lives only in the external-id map. On an existing fixture every field
    in ``values`` is written unless a person pinned it; sides are set only on a fixture that
    has none (changing sides is a person's amendment). ``first_seen_in`` is set once.
    An existing fixture is written under its row lock; ``expected_version`` is checked
    there (``FixtureVersionConflict``), and a fixture not yet created is at version 0.
    """
    unknown = set(values) - set(IMPORTABLE)
    if unknown:
        raise ValidationError(f"Not importable: {', '.join(sorted(unknown))}.")
    fixture = fixture_by_external_id(source_code, external_id)
    if fixture is None:
        if expected_version not in (None, 0):
            raise ValidationError(
                f"No fixture {source_code}:{external_id} exists yet, so it is at no version "
                f"{expected_version}."
            )
        fixture = fixture_create(
            competition=competition,
            code=code,
            actor=actor,
            competitors=competitors,
            source_code=source_code,
            **values,
        )
        Fixture.objects.filter(pk=fixture.pk).update(first_seen_in=submission)
        fixture.first_seen_in = submission
        external_id_link(
            source_code=source_code,
            entity_type=EntityType.FIXTURE,
            external_id=external_id,
            internal_id=fixture.pk,
            actor=actor,
        )
        return ImportedFixture(fixture=fixture, created=True)

    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    fixture_version_check(fixture, expected_version)
    pinned = set(fixture.pinned)
    fixture_documents_recheck(
        fixture,
        **{
            name: values[name]
            for name in ("format", "meta")
            if name in values and name not in pinned and values[name] != getattr(fixture, name)
        },
    )
    changed = {}
    for name, value in values.items():
        current = getattr(fixture, "venue" if name == "venue" else name)
        if name in pinned or current == value:
            continue
        setattr(fixture, name, value)
        changed[name] = (
            value.isoformat()
            if isinstance(value, datetime)
            else (str(value.pk) if hasattr(value, "pk") else value)
        )
    if fixture.first_seen_in_id is None:
        fixture.first_seen_in = submission
        changed["first_seen_in"] = str(submission.pk)
    if "competitors" not in pinned and competitors and not fixture.competitors.exists():
        _create_competitors(fixture, competitors)
        changed["competitors"] = len(competitors)
    if changed:
        fixture.version += 1
        fixture.save()
        timeline_append(
            fixture=fixture,
            event_type="import.update",
            actor=actor,
            source_code=source_code,
            unit="record",
            payload={"changes": changed, "submission": str(submission.pk)},
        )
    return ImportedFixture(fixture=fixture, created=False, changed=sorted(changed))


@transaction.atomic
def fixture_enter_by_hand(*, actor: Actor, **fields: Any) -> Fixture:
    """A fixture a person enters (console or API): it is its own accepted hand-entry
    submission, recorded as the fixture's ``first_seen_in`` in the same transaction, so the
    public gate treats it like any imported fixture. ``fields`` are ``fixture_create``'s."""
    if actor_user(actor) is None:
        raise ValidationError("A hand entry names the person who made it.")
    submission = submission_record(
        kind=SubmissionKind.HAND_ENTRY,
        source_code="hand",
        actor=actor,
        note=f"fixture {fields.get('code', '')} entered by hand",
    )
    return fixture_create(actor=actor, source_code="hand", first_seen_in=submission, **fields)


@dataclass
class EntrantResult:
    """What a source says of one side or entrant. ``result`` holds facts such as
    ``score``, ``mark``, ``medal``; absent keys are not written."""

    rank: int | None = None
    result_status: str | None = None
    status_code: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    win_method: str = ""


@transaction.atomic
def fixture_results_record(
    *,
    fixture: Fixture,
    results: dict[Any, EntrantResult],
    actor: Actor,
    status: str | None = None,
    outcome: dict[str, Any] | None = None,
    source_code: str | None = None,
    expected_version: int | None = None,
) -> bool:
    """Write results onto the fixture's top-level competitors (keyed by competitor id),
    then its status and result document, then rebuild its result lines. Pinned fields are
    skipped; when nothing differs nothing is written. Returns whether anything changed.
    Holds the fixture's row lock; ``expected_version`` is checked under it
    (``FixtureVersionConflict``)."""
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    fixture_version_check(fixture, expected_version)
    competitors = {c.pk: c for c in fixture.competitors.filter(parent__isnull=True)}
    definition = fixture.definition_version or definition_for(fixture.sport)
    if definition is not None:
        # The sport's own outcome words are declared in its definition (the version the
        # fixture pinned; for a fixture made before its sport had one, the current one);
        # anything else is a typo or a code from another sport.
        allowed = {"DNS", "DNF", "DSQ", *(definition.status_codes or {})}
        wrong = sorted(
            {
                r.status_code
                for r in results.values()
                if r.status_code and r.status_code not in allowed
            }
        )
        if wrong:
            raise ValidationError(
                {
                    "status_code": f"{', '.join(wrong)} not among {fixture.sport}'s status codes "
                    f"({', '.join(sorted(allowed))})."
                }
            )
    unknown = set(results) - set(competitors)
    if unknown:
        raise ValidationError(f"Not a side or entrant of {fixture}: {sorted(map(str, unknown))}.")
    changes: dict[str, Any] = {}
    for key, wanted in results.items():
        competitor = competitors[key]
        values = {
            "rank": wanted.rank,
            "status_code": wanted.status_code,
            "result": wanted.result,
            "win_method": wanted.win_method,
        }
        if wanted.result_status is not None:
            values["result_status"] = wanted.result_status
        touched = [
            k
            for k, v in values.items()
            if k not in competitor.pinned and getattr(competitor, k) != v
        ]
        if touched:
            for k in touched:
                setattr(competitor, k, values[k])
            competitor.save(update_fields=[*touched, "updated_at"])
            changes[str(key)] = {k: values[k] for k in touched}
    pinned = set(fixture.pinned)
    fixture_fields: dict[str, Any] = {}
    if status is not None and "status" not in pinned and fixture.status != status:
        fixture_fields["status"] = status
    if outcome is not None and "result" not in pinned and fixture.result != outcome:
        fixture_fields["result"] = outcome
    if fixture_fields or changes:
        # A changed result is a new version of the fixture even when only its sides
        # changed, so a writer holding the old version is refused rather than overwriting.
        for k, v in fixture_fields.items():
            setattr(fixture, k, v)
        fixture.version += 1
        fixture.save(update_fields=[*fixture_fields, "version", "updated_at"])
    if fixture_fields:
        changes["fixture"] = fixture_fields
    lines_changed = result_lines_rebuild(fixture=fixture)
    if not changes and not lines_changed:
        return False
    timeline_append(
        fixture=fixture,
        event_type="results.record",
        actor=actor,
        source_code=source_code,
        unit="record",
        payload={"changes": changes},
    )
    return True


# A result line's identity: (subject participant id, role, segment).
_LineKey = tuple[uuid.UUID, str, str]


def _result_lines(
    fixture: Fixture, sides: list[FixtureCompetitor] | None = None
) -> dict[_LineKey, dict[str, Any]]:
    """The lines a fixture's recorded results imply, keyed (subject, role, segment).
    ``sides``: the top-level competitors in order, when the caller already holds them."""
    if sides is None:
        sides = list(fixture.competitors.filter(parent__isnull=True).order_by("ordinal", "id"))
    lines: dict[_LineKey, dict[str, Any]] = {}
    if fixture.archetype == Archetype.HEAD_TO_HEAD and len(sides) == 2:
        outcomes = head_to_head_outcomes(fixture, sides)
        for side, other in ((sides[0], sides[1]), (sides[1], sides[0])):
            if side.participant_id is None or outcomes[side.pk] is None:
                continue
            values: dict[str, Any] = {"place": side.rank, "outcome": outcomes[side.pk]}
            if side.result.get("score") is not None and other.result.get("score") is not None:
                values["goals_for"] = side.result["score"]
                values["goals_against"] = other.result["score"]
            if side.win_method == "AWARDED" or other.win_method == "AWARDED":
                values["awarded"] = True
            if side.result.get("medal"):
                values["medal"] = side.result["medal"]
            if side.entry.get("country"):
                values["country"] = side.entry["country"]
            lines[(side.participant_id, "side", "match")] = values
        return lines
    for entrant in sides:
        if entrant.participant_id is None:
            continue
        values = {
            "place": entrant.rank,
            "status_code": entrant.status_code or None,
            "mark": entrant.result.get("mark"),
            "medal": entrant.result.get("medal"),
            "country": entrant.entry.get("country"),
        }
        values = {k: v for k, v in values.items() if v is not None}
        if values.keys() - {"country"}:
            key = (entrant.participant_id, "entrant", "match")
            if key in lines:  # the same club entered twice (an A and a B team)
                key = (entrant.participant_id, "entrant", f"entry-{entrant.ordinal}")
            lines[key] = values
    return lines


def result_lines_rebuild(*, fixture: Fixture) -> bool:
    """Bring the fixture's result lines in line with its recorded results, touching only
    lines that differ; clears the cached tables above it when anything changed."""
    day = fixture_day(fixture)
    wanted = _result_lines(fixture)
    existing = {
        (line.subject_id, line.subject_role, line.segment): line
        for line in StatLine.objects.filter(fixture=fixture, subject_role__in=("side", "entrant"))
    }
    changed = False
    for key, line in existing.items():
        if key not in wanted:
            line.delete()
            changed = True
        elif line.values != wanted[key] or line.occurred_on != day:
            line.values, line.occurred_on = wanted[key], day
            line.save(update_fields=["values", "occurred_on"])
            changed = True
    new = [
        StatLine(
            fixture=fixture,
            subject_id=s,
            subject_role=r,
            segment=seg,
            occurred_on=day,
            values=values,
            sport_id=fixture.sport_id,
            competition_id=fixture.competition_id,
            format_code=fixture.format_code,
        )
        for (s, r, seg), values in wanted.items()
        if (s, r, seg) not in existing
    ]
    if new:
        StatLine.objects.bulk_create(new)
        changed = True
    if changed:
        stat_tables_invalidate(fixture=fixture)
    return changed


def result_lines_create(
    *, fixture: Fixture, sides: list[FixtureCompetitor], inserts: Inserts | None = None
) -> int:
    """The result lines of a fixture created in this transaction, from the sides the
    caller just wrote (top level, in order): one insert, no read-back. Same lines as
    ``result_lines_rebuild`` would make. With ``inserts``, the lines and the invalidation
    of the cached tables join the caller's batch."""
    day = fixture_day(fixture)
    lines = [
        StatLine(
            fixture=fixture,
            subject_id=s,
            subject_role=r,
            segment=seg,
            occurred_on=day,
            values=values,
            sport_id=fixture.sport_id,
            competition_id=fixture.competition_id,
            format_code=fixture.format_code,
        )
        for (s, r, seg), values in _result_lines(fixture, sides).items()
    ]
    if lines and inserts is not None:
        inserts.extend(lines)
        # No query when the fixture has no node: a null foreign key reads as None.
        if fixture.competition is not None:
            inserts.add_delete(_cached_tables_above(fixture.competition))
    elif lines:
        StatLine.objects.bulk_create(lines)
        stat_tables_invalidate(fixture=fixture)
    return len(lines)


def _cached_tables_above(node: Competition) -> QuerySet[StatTable]:
    return StatTable.objects.filter(competition__in=node.get_ancestors(include_self=True))


def stat_tables_invalidate(*, fixture: Fixture) -> int:
    """Drop the cached tables of the fixture's node and every node above it."""
    if fixture.competition is None:
        return 0
    deleted, _ = _cached_tables_above(fixture.competition).delete()
    return deleted


def competitor_for(fixture: Fixture, participant_id: uuid.UUID) -> FixtureCompetitor | None:
    return fixture.competitors.filter(parent__isnull=True, participant_id=participant_id).first()


@transaction.atomic
def fixture_award(
    *,
    fixture: Fixture,
    winner: FixtureCompetitor,
    actor: Actor,
    reason: str,
    expected_version: int | None = None,
) -> Fixture:
    """Record an awarded result (a walkover, a forfeit) decided by a person: the winner
    ranks 1 with win method AWARDED, the other side 2. The ranks and win method are pinned
    so a re-import keeps the decision; the fixture's result says it was awarded. Holds the
    fixture's row lock; ``expected_version`` is checked under it."""

    if not reason:
        raise ValidationError({"reason": "An awarded result needs a reason."})
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    fixture_version_check(fixture, expected_version)
    sides = list(fixture.competitors.filter(parent__isnull=True))
    if len(sides) != 2 or winner.pk not in {s.pk for s in sides}:
        raise ValidationError("Only a side of this two-sided fixture can be awarded the match.")
    for side in sides:
        won = side.pk == winner.pk
        side.rank = 1 if won else 2
        side.win_method = "AWARDED" if won else ""
        side.result_status = "FINISHED"
        side.pinned = sorted(set(side.pinned) | {"rank", "win_method", "result_status"})
        side.save(update_fields=["rank", "win_method", "result_status", "pinned", "updated_at"])
    fixture.status = "COMPLETED"
    fixture.result = {**(fixture.result or {}), "outcome": "win", "awarded": True, "reason": reason}
    fixture.pinned = sorted(set(fixture.pinned) | {"status", "result"})
    fixture.version += 1
    fixture.save(update_fields=["status", "result", "pinned", "version", "updated_at"])
    result_lines_rebuild(fixture=fixture)
    audit_person(
        actor,
        action="fixture.award",
        entity=fixture,
        key=fixture.pk,
        detail={"winner": winner.pk, "reason": reason},
    )
    timeline_append(
        fixture=fixture,
        event_type="results.award",
        actor=actor,
        unit="record",
        payload={"winner": str(winner.pk), "reason": reason},
    )
    return fixture
