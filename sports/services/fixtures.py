"""Writes on fixtures. Every one of them appends an item to the fixture's log."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from jsonschema import Draft202012Validator

from sports.models import (
    Competition,
    Fixture,
    FixtureAmendment,
    FixtureCompetitor,
    Participant,
    Sport,
    SportDefinitionVersion,
    StatLine,
    Submission,
    Venue,
)
from sports.plugins.registry import get_plugin
from sports.services.common import (
    Actor,
    actor_user,
    audit_person,
    fixture_version_check,
    lock_merge_pair,
)
from sports.services.tables import stat_tables_over
from sports.services.timeline import LogEntry, timeline_append, timeline_open

AMENDABLE = (
    "name",
    "scheduled_start",
    "venue",
    "status",
    "coverage_tier",
    "results_official",
    "meta",
)
PINNABLE = (*AMENDABLE, "format", "result", "competitors")


@dataclass
class CompetitorSpec:
    """One side or entrant to put in a fixture; ``members`` nest under it."""

    participant: Participant | None = None
    placeholder_label: str | None = None
    alignment: str = ""
    ordinal: int | None = None
    slot: str = ""
    entry: dict[str, Any] = field(default_factory=dict)
    members: list[CompetitorSpec] = field(default_factory=list)


def _schema_problems(schema: dict[str, Any], document: dict[str, Any], where: str) -> list[str]:
    validator = Draft202012Validator(schema)
    return [
        f"{where}/{'/'.join(str(p) for p in e.absolute_path)}: {e.message}".rstrip("/")
        for e in validator.iter_errors(document)
    ]


def fixture_documents_check(
    definition: SportDefinitionVersion | None, *, format: dict[str, Any], meta: dict[str, Any]
) -> None:
    """Refuse ``format``/``meta`` documents the sport's definition does not allow."""
    if definition is None:
        return
    problems = _schema_problems(definition.format_schema, format, "format") + _schema_problems(
        definition.meta_schema, meta, "meta"
    )
    _refuse_documents(problems)


def _refuse_documents(problems: list[str]) -> None:
    """One error naming each field: ``format`` and ``meta`` keys, each with its problems
    (``meta/attendance: -5 is less than the minimum of 0``)."""
    if not problems:
        return
    by_field: dict[str, list[str]] = {}
    for problem in problems:
        by_field.setdefault(problem.split("/", 1)[0].split(":", 1)[0], []).append(problem)
    raise ValidationError(by_field)


def definition_for(sport: Sport) -> SportDefinitionVersion | None:
    return sport.definitions.order_by("-version").first()


def fixture_documents_recheck(
    fixture: Fixture, *, format: dict[str, Any] | None = None, meta: dict[str, Any] | None = None
) -> None:
    """Refuse a new ``format`` or ``meta`` for an existing fixture that its definition does
    not allow: the version the fixture pinned (a later version never applies to it), or
    for a fixture made before its sport had one, the sport's current version."""
    if format is None and meta is None:
        return
    definition = (
        SportDefinitionVersion.objects.filter(pk=fixture.definition_version_id).first()
        if fixture.definition_version_id is not None
        else definition_for(fixture.sport)
    )
    if definition is None:
        return
    problems = []
    if format is not None:
        problems += _schema_problems(definition.format_schema, format, "format")
    if meta is not None:
        problems += _schema_problems(definition.meta_schema, meta, "meta")
    _refuse_documents(problems)


@transaction.atomic
def sport_definition_publish(
    *,
    sport: Sport,
    plugin: str,
    actor: Actor,
    meta_schema: dict[str, Any] | None = None,
    format_schema: dict[str, Any] | None = None,
    status_codes: dict[str, Any] | None = None,
    notes: str = "",
) -> SportDefinitionVersion:
    """Publish the next definition version of ``sport``. Schemas default to the plugin's
    own; existing fixtures keep the version they were made with. A person's publish (the
    console's) writes an audit row naming the sport, version and plugin; the shipped
    definitions' own publishes (``sport_definition_ensure``) are recorded by the version
    rows themselves."""
    handler = get_plugin(plugin)
    for schema in (meta_schema, format_schema):
        if schema is not None:
            Draft202012Validator.check_schema(schema)
    Sport.objects.select_for_update().filter(pk=sport.pk).values_list("pk").get()
    latest = sport.definitions.order_by("-version").values_list("version", flat=True).first()
    published = SportDefinitionVersion.objects.create(
        sport=sport,
        version=(latest or 0) + 1,
        plugin=plugin,
        meta_schema=meta_schema if meta_schema is not None else handler.meta_schema,
        format_schema=format_schema if format_schema is not None else handler.format_schema,
        status_codes=status_codes if status_codes is not None else handler.status_codes,
        notes=notes,
    )
    audit_person(
        actor,
        action="sport_definition.publish",
        entity=published,
        key=published.pk,
        detail={"sport": sport.code, "version": published.version, "plugin": plugin},
    )
    return published


@transaction.atomic
def sport_definition_notes_set(
    *, definition: SportDefinitionVersion, notes: str, actor: Actor
) -> SportDefinitionVersion:
    """Change a published definition version's notes, the one thing about it that may
    change (fixtures pin the version, so its schemas stay frozen). Holds the version's row
    lock; writes an audit row with the old and new notes; a no-op writes nothing."""
    definition = SportDefinitionVersion.objects.select_for_update().get(pk=definition.pk)
    if definition.notes == notes:
        return definition
    before = definition.notes
    definition.notes = notes
    definition.save(update_fields=["notes", "updated_at"])
    audit_person(
        actor,
        action="sport_definition.notes_set",
        entity=definition,
        key=definition.pk,
        detail={"before": {"notes": before}, "after": {"notes": notes}},
    )
    return definition


@transaction.atomic
def fixture_create(
    *,
    competition: Competition,
    code: str,
    actor: Actor,
    sport: Sport | None = None,
    name: str = "",
    archetype: str | None = None,
    fixture_type: str | None = None,
    format_code: str | None = None,
    scheduled_start: datetime | None = None,
    venue: Venue | None = None,
    format: dict[str, Any] | None = None,
    meta: dict[str, Any] | None = None,
    coverage_tier: str | None = None,
    competitors: Sequence[CompetitorSpec] = (),
    source_code: str | None = None,
    idempotency_key: str | None = None,
    first_seen_in: Submission | None = None,
) -> Fixture:
    """Create a fixture on ``competition``. ``fixture_type`` and ``format_code`` come from
    the nearest ancestor that sets them unless given; ``meta`` and ``format`` must satisfy
    the sport's current definition, whose version the fixture pins. ``first_seen_in`` is the
    submission that brings it: without one the fixture stays out of every public read until
    a writer records it (``fixture_import``, ``fixture_enter_by_hand``)."""
    sport = sport or competition.sport
    if sport is None:
        raise ValidationError({"sport": f"{competition} has no sport; name the fixture's sport."})
    if competition.sport_id is not None and competition.sport_id != sport.pk:
        raise ValidationError({"sport": f"{competition} is a {competition.sport} node."})
    archetype = archetype or sport.archetype
    if not archetype:
        raise ValidationError({"archetype": f"{sport} has no default archetype; give one."})
    if fixture_type is None or format_code is None:
        effective = Competition.objects.with_effective().get(pk=competition.pk)
        fixture_type = fixture_type or effective.effective_fixture_type
        format_code = format_code or effective.effective_format_code
    definition = definition_for(sport)
    format, meta = format or {}, meta or {}
    fixture_documents_check(definition, format=format, meta=meta)
    fixture = Fixture(
        sport=sport,
        competition=competition,
        venue=venue,
        definition_version=definition,
        code=code,
        name=name,
        archetype=archetype,
        fixture_type=fixture_type,
        format_code=format_code,
        scheduled_start=scheduled_start,
        format=format,
        meta=meta,
        last_seq=1,  # the log opens with the creation item below
        first_seen_in=first_seen_in,
        **({"coverage_tier": coverage_tier} if coverage_tier else {}),
    )
    fixture.full_clean(exclude=["competition", "sport", "venue", "definition_version"])
    fixture.save()
    timeline_open(
        fixture=fixture,
        entries=[
            LogEntry(
                "fixture.create",
                unit="record",
                payload={"code": code, "competition": str(competition.pk), "archetype": archetype},
                idempotency_key=idempotency_key,
            )
        ],
        actor=actor,
        source_code=source_code,
    )
    if competitors:
        _create_competitors(fixture, competitors)
    return fixture


def _create_competitors(
    fixture: Fixture, specs: Iterable[CompetitorSpec], parent: FixtureCompetitor | None = None
) -> None:
    for index, spec in enumerate(specs, start=1):
        row = FixtureCompetitor.objects.create(
            fixture=fixture,
            parent=parent,
            participant=spec.participant,
            placeholder_label=spec.placeholder_label,
            alignment=spec.alignment,
            ordinal=spec.ordinal if spec.ordinal is not None else index,
            slot=spec.slot,
            entry=spec.entry,
        )
        if spec.members:
            _create_competitors(fixture, spec.members, parent=row)


def _competitors_snapshot(fixture: Fixture) -> list[dict[str, Any]]:
    return [
        {
            "id": str(c.pk),
            "participant": str(c.participant_id) if c.participant_id else None,
            "placeholder": c.placeholder_label,
            "parent": str(c.parent_id) if c.parent_id else None,
            "alignment": c.alignment,
            "ordinal": c.ordinal,
        }
        for c in fixture.competitors.order_by("parent_id", "ordinal", "id")
    ]


@transaction.atomic
def fixture_set_competitors(
    *,
    fixture: Fixture,
    competitors: list[CompetitorSpec],
    actor: Actor,
    reason: str,
    expected_version: int | None = None,
) -> Fixture:
    """Replace the fixture's sides and entries (a structure edit, recorded as an amendment
    with the old and new line-ups). Refused once results depend on them. Holds the
    fixture's row lock; with ``expected_version``, refused (``FixtureVersionConflict``)
    when the fixture is at another version."""
    if not reason:
        raise ValidationError({"reason": "Changing the sides of a fixture needs a reason."})
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    fixture_version_check(fixture, expected_version)
    if fixture.competitors.exists() and (
        fixture.competitors.filter(rank__isnull=False).exists() or fixture.attempts.exists()
    ):
        raise ValidationError("The sides have results; amend the results, not the sides.")
    before = _competitors_snapshot(fixture)
    fixture.competitors.filter(parent__isnull=False).delete()
    fixture.competitors.all().delete()
    _create_competitors(fixture, competitors)
    after = _competitors_snapshot(fixture)
    audit_person(
        actor,
        action="fixture.set_competitors",
        entity=fixture,
        key=fixture.pk,
        detail={"before": before, "after": after, "reason": reason},
    )
    FixtureAmendment.objects.create(
        fixture=fixture,
        field="competitors",
        old_value=before,
        new_value=after,
        reason=reason,
        actor=actor_user(actor),
    )
    Fixture.objects.filter(pk=fixture.pk).update(version=F("version") + 1)
    timeline_append(
        fixture=fixture,
        event_type="fixture.set_competitors",
        actor=actor,
        unit="record",
        payload={"reason": reason, "competitors": after},
    )
    fixture.refresh_from_db()
    return fixture


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Venue):
        return str(value.pk)
    return value


@transaction.atomic
def fixture_amend(
    *,
    fixture: Fixture,
    changes: dict[str, Any],
    actor: Actor,
    reason: str,
    pin: bool = True,
    expected_version: int | None = None,
) -> Fixture:
    """Change structure fields by hand, each recorded as an amendment (before, after, who,
    why). A hand edit is pinned by default, so the next import leaves it alone.

    Holds the fixture's row lock. ``expected_version`` is the version the person's edit was
    made against (the console form's, the API's ``If-Match``): when the fixture is at
    another, someone wrote first and the edit is refused with ``FixtureVersionConflict``,
    even if it would change nothing."""
    unknown = set(changes) - set(AMENDABLE)
    if unknown:
        raise ValidationError(f"Not amendable here: {', '.join(sorted(unknown))}.")
    if not reason:
        raise ValidationError({"reason": "An amendment needs a reason."})
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    fixture_version_check(fixture, expected_version)
    if "meta" in changes and changes["meta"] != fixture.meta:
        if not isinstance(changes["meta"], dict):
            raise ValidationError({"meta": "A fixture's meta is an object of named facts."})
        fixture_documents_recheck(fixture, meta=changes["meta"])
    changed = {}
    for name, value in changes.items():
        old = getattr(fixture, name)
        if old == value:
            continue
        FixtureAmendment.objects.create(
            fixture=fixture,
            field=name,
            old_value=_json_value(old),
            new_value=_json_value(value),
            reason=reason,
            actor=actor_user(actor),
        )
        setattr(fixture, name, value)
        changed[name] = _json_value(value)
    if not changed:
        return fixture
    audit_person(
        actor,
        action="fixture.amend",
        entity=fixture,
        key=fixture.pk,
        detail={"changes": changed, "reason": reason},
    )
    if pin:
        fixture.pinned = sorted(set(fixture.pinned) | set(changed))
    fixture.version += 1
    fixture.full_clean(exclude=["competition", "sport", "venue", "definition_version"])
    fixture.save()
    if "status" in changed:  # a league table counts completed fixtures only
        stat_tables_over([fixture.competition]).delete()
    timeline_append(
        fixture=fixture,
        event_type="fixture.amend",
        actor=actor,
        unit="record",
        payload={"changes": changed, "reason": reason, "pinned": pin},
    )
    return fixture


def _set_pins(
    fixture: Fixture, fields: list[str], actor: Actor, *, pin: bool, expected_version: int | None
) -> Fixture:
    unknown = set(fields) - set(PINNABLE)
    if unknown:
        raise ValidationError(f"Not pinnable: {', '.join(sorted(unknown))}.")
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    fixture_version_check(fixture, expected_version)
    current = set(fixture.pinned)
    new = current | set(fields) if pin else current - set(fields)
    if new == current:
        return fixture
    fixture.pinned = sorted(new)
    audit_person(
        actor,
        action="fixture.pin" if pin else "fixture.unpin",
        entity=fixture,
        key=fixture.pk,
        detail={"fields": sorted(fields)},
    )
    fixture.version += 1
    fixture.save(update_fields=["pinned", "version", "updated_at"])
    timeline_append(
        fixture=fixture,
        event_type="fixture.pin" if pin else "fixture.unpin",
        actor=actor,
        unit="record",
        payload={"fields": sorted(fields)},
    )
    return fixture


@transaction.atomic
def fixture_pin(
    *, fixture: Fixture, fields: list[str], actor: Actor, expected_version: int | None = None
) -> Fixture:
    """Mark fields as set by a person: imports and recomputes leave them alone. Holds the
    fixture's row lock; ``expected_version`` as in ``fixture_amend``."""
    return _set_pins(fixture, fields, actor, pin=True, expected_version=expected_version)


@transaction.atomic
def fixture_unpin(
    *, fixture: Fixture, fields: list[str], actor: Actor, expected_version: int | None = None
) -> Fixture:
    """Hand fields back to imports and recomputes; as ``fixture_pin``."""
    return _set_pins(fixture, fields, actor, pin=False, expected_version=expected_version)


@transaction.atomic
def fixture_merge(
    *,
    loser: Fixture,
    survivor: Fixture,
    actor: Actor,
    reason: str,
    expected_version: int | None = None,
) -> Fixture:
    """Point ``loser`` at ``survivor`` (merge, never delete): the loser's row and its log
    stay, its external ids resolve to the survivor through the chain, and its results
    leave the tables (the cached ones over its node are dropped). Holds both rows' locks;
    ``expected_version`` is the loser's, the row the merge writes."""
    loser, survivor = lock_merge_pair(
        Fixture, loser=loser, survivor=survivor, note=reason, note_field="reason"
    )
    fixture_version_check(loser, expected_version)
    if loser.sport_id != survivor.sport_id:
        raise ValidationError("Only fixtures of one sport can be merged.")
    loser.merged_into = survivor
    loser.version += 1
    loser.save(update_fields=["merged_into", "version", "updated_at"])
    # A merged fixture's lines no longer count: the tables over the loser fold afresh.
    stat_tables_over([loser.competition]).delete()
    payload = {"loser": str(loser.pk), "survivor": str(survivor.pk), "reason": reason}
    audit_person(actor, action="fixture.merge", entity=loser, key=loser.pk, detail=payload)
    for subject in (loser, survivor):
        timeline_append(
            fixture=subject, event_type="fixture.merge", actor=actor, unit="record", payload=payload
        )
    return survivor


@transaction.atomic
def fixture_competition_move(
    *, fixture: Fixture, competition: Competition, actor: Actor, reason: str
) -> Fixture:
    """File ``fixture`` under another node of its sport (a fixture an import filed in the
    wrong place). Its result lines follow it, the cached tables over both nodes are
    dropped, and the move is audited and logged on the fixture. Holds the fixture's row
    lock; moving a fixture to the node it is on changes nothing."""
    if not reason:
        raise ValidationError({"reason": "A move needs a reason."})
    fixture = Fixture.objects.select_for_update().get(pk=fixture.pk)
    if fixture.competition_id == competition.pk:
        return fixture
    if competition.sport_id is not None and competition.sport_id != fixture.sport_id:
        raise ValidationError({"competition": f"{competition} is another sport's node."})
    old = fixture.competition
    stat_tables_over([old, competition]).delete()
    fixture.competition = competition
    fixture.version += 1
    fixture.save(update_fields=["competition", "version", "updated_at"])
    # The lines carry their fixture's node (the tables fold them by it).
    StatLine.objects.filter(fixture=fixture).update(competition=competition)
    payload = {
        "from": str(old.pk) if old is not None else None,
        "to": str(competition.pk),
        "reason": reason,
    }
    audit_person(actor, action="fixture.move", entity=fixture, key=fixture.pk, detail=payload)
    timeline_append(
        fixture=fixture, event_type="fixture.move", actor=actor, unit="record", payload=payload
    )
    return fixture
