"""Writes on participants: creation with duplicate detection, aliases, merges, external ids."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

from omnium.models import uuid7
from sports.identity import normalise_name, participant_fingerprint
from sports.models import (
    NATIONAL_SIDE,
    Competition,
    CompetitionEntry,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureAmendment,
    FixtureCompetitor,
    LinkOrigin,
    Membership,
    Participant,
    ParticipantAlias,
    ParticipantSport,
    ParticipantType,
    PointsAdjustment,
    Sport,
    SportDefinitionVersion,
    StatLine,
    TableKind,
    UnmatchedRow,
    Venue,
)
from sports.plugins.registry import get_plugin
from sports.querysets import follow_merges
from sports.services.common import (
    Actor,
    actor_label,
    actor_user,
    audit_person,
    lock_merge_pair,
)
from sports.services.tables import stat_tables_over
from sports.services.timeline import timeline_append


@transaction.atomic
def participant_create(
    *,
    type: str,
    name: str,
    actor: Actor,
    code: str | None = None,
    sport: Sport | None = None,
    country: str | None = None,
    born_on: date | None = None,
    meta: dict[str, Any] | None = None,
    sports: Iterable[Sport] = (),
    source_code: str = "hand",
    dedupe: bool = True,
) -> tuple[Participant, bool]:
    """Create a participant, or return the existing one with the same fingerprint (type,
    normalised name, country, birth date) instead of inserting a duplicate.

    Returns (participant, created). An existing match is followed to its merge survivor.

    ``dedupe=False`` is for a source that gives each party a lasting id of its own (the
    external-id map is then the identity): two namesakes with no birth date would share a
    fingerprint, and joining them would be a guess. Such a row is stored without one.
    """
    if type not in ParticipantType.values:
        raise ValidationError({"type": f"{type!r} is not a participant type."})
    fingerprint = participant_fingerprint(type=type, name=name, country=country, born_on=born_on)
    existing = Participant.objects.filter(identity_hash=fingerprint).first() if dedupe else None
    if existing is not None:
        survivor = Participant.objects.get(pk=follow_merges(Participant, existing.pk))
        alias_observe(participant=survivor, name=name, source_code=source_code)
        return survivor, False
    participant = Participant(
        type=type,
        name=name,
        code=code or f"{slugify(name)[:48]}-{uuid7().hex[-8:]}",
        sport=sport,
        country=country,
        born_on=born_on,
        meta=meta or {},
        identity_hash=fingerprint if dedupe else None,
    )
    participant.full_clean()
    try:
        with transaction.atomic():
            participant.save()
    except IntegrityError:
        # A concurrent writer created the same fingerprint: theirs is the one.
        survivor = Participant.objects.get(identity_hash=fingerprint)
        return Participant.objects.get(pk=follow_merges(Participant, survivor.pk)), False
    ParticipantSport.objects.bulk_create(
        [ParticipantSport(participant=participant, sport=s) for s in sports]
    )
    alias_observe(participant=participant, name=name, source_code=source_code)
    del actor  # creation is recorded by the caller's log item (import or hand entry)
    return participant, True


#: What a person may change on an existing participant. The identity fields (type, name,
#: country, birth date, sport) feed the duplicate fingerprint, so they change only by merge.
PARTICIPANT_EDITABLE = ("code", "meta")


@transaction.atomic
def participant_update(
    *, participant: Participant, changes: dict[str, Any], actor: Actor
) -> Participant:
    """Edit a participant's code or meta (``PARTICIPANT_EDITABLE``), with an audit row
    holding the old and new values. Holds the participant's row lock; writes only the
    changed columns; returns early, writing nothing, when nothing differs."""
    unknown = set(changes) - set(PARTICIPANT_EDITABLE)
    if unknown:
        raise ValidationError(f"Not editable here: {', '.join(sorted(unknown))}.")
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    changed = {k: v for k, v in changes.items() if getattr(participant, k) != v}
    if not changed:
        return participant
    before = {k: getattr(participant, k) for k in changed}
    for name, value in changed.items():
        setattr(participant, name, value)
    participant.save(update_fields=[*changed, "updated_at"])
    audit_person(
        actor,
        action="participant.update",
        entity=participant,
        key=participant.pk,
        detail={"before": before, "after": changed},
    )
    return participant


def alias_observe(
    *, participant: Participant, name: str, source_code: str, seen_at: datetime | None = None
) -> ParticipantAlias:
    """Record that ``name`` was seen for ``participant`` (first/last seen kept)."""
    seen_at = seen_at or timezone.now()
    alias, created = ParticipantAlias.objects.get_or_create(
        participant=participant,
        source_code=source_code,
        name=name,
        defaults={"first_seen": seen_at, "last_seen": seen_at},
    )
    if not created and alias.last_seen < seen_at:
        alias.last_seen = seen_at
        alias.save(update_fields=["last_seen"])
    return alias


@transaction.atomic
def participant_merge(
    *, loser: Participant, survivor: Participant, actor: Actor, note: str
) -> Participant:
    """Merge ``loser`` into ``survivor``. The loser keeps its row with ``merged_into`` set,
    so its external ids and old references keep resolving; its appearances, entries,
    memberships, stat lines and points adjustments move to the survivor, which also gains
    its names. Every fixture the move touches gets a log item, and a fixture whose title
    names the loser is retitled with the survivor's name (an amendment, a new version),
    unless a person set that title by hand (``name`` is pinned): a merge never overwrites
    what a person decided.
    The cached league tables over the loser's results and adjustments are dropped, and
    the plugin of every sport that sees either side hears of the merge in this transaction
    (``SportPlugin.participants_merged``: cricket queues its careers' refresh there).

    Locks both rows (in primary-key order) for the duration.
    """
    loser, survivor = lock_merge_pair(Participant, loser=loser, survivor=survivor, note=note)
    if loser.type != survivor.type:
        raise ValidationError(f"A {loser.type} cannot be merged into a {survivor.type}.")

    fixtures = list(
        FixtureCompetitor.objects.filter(participant=loser)
        .values_list("fixture_id", flat=True)
        .distinct()
    )
    # The nodes whose tables fold over the loser: its result lines and its adjustments.
    folded = set(
        StatLine.objects.filter(subject=loser).values_list("competition_id", flat=True)
    ) | set(
        PointsAdjustment.objects.filter(participant=loser).values_list("competition_id", flat=True)
    )
    FixtureCompetitor.objects.filter(participant=loser).update(participant=survivor)
    StatLine.objects.filter(subject=loser).update(subject=survivor)
    PointsAdjustment.objects.filter(participant=loser).update(participant=survivor)
    # Medal tables count countries by code, which a merge does not change.
    stat_tables_over(Competition.objects.filter(pk__in=folded - {None})).filter(
        kind=TableKind.STANDINGS
    ).delete()
    taken = set(
        CompetitionEntry.objects.filter(participant=survivor).values_list(
            "competition_id", flat=True
        )
    )
    CompetitionEntry.objects.filter(participant=loser).exclude(competition_id__in=taken).update(
        participant=survivor
    )
    _memberships_move(loser=loser, survivor=survivor)
    alias_observe(participant=survivor, name=loser.name, source_code="merge")
    for alias in ParticipantAlias.objects.filter(participant=loser):
        alias_observe(
            participant=survivor,
            name=alias.name,
            source_code=alias.source_code,
            seen_at=alias.last_seen,
        )
    existing_sports = set(survivor.sports.values_list("sport_id", flat=True))
    ParticipantSport.objects.bulk_create(
        [
            ParticipantSport(participant=survivor, sport_id=s)
            for s in loser.sports.values_list("sport_id", flat=True)
            if s not in existing_sports
        ]
    )
    loser.merged_into = survivor
    loser.identity_hash = None  # the fingerprint now belongs to the survivor alone
    loser.save(update_fields=["merged_into", "identity_hash", "updated_at"])

    payload = {"loser": str(loser.pk), "survivor": str(survivor.pk), "note": note}
    audit_person(actor, action="participant.merge", entity=loser, key=loser.pk, detail=payload)
    old_names = {loser.name} | set(
        ParticipantAlias.objects.filter(participant=loser).values_list("name", flat=True)
    )
    for fixture in Fixture.objects.filter(pk__in=fixtures).select_for_update():
        # A title a person set by hand (pinned by the amendment) is theirs to change.
        retitled = (
            None
            if "name" in fixture.pinned
            else _retitled(fixture, old_names=old_names - {survivor.name}, new=survivor.name)
        )
        if retitled is not None:
            FixtureAmendment.objects.create(
                fixture=fixture,
                field="name",
                old_value=fixture.name,
                new_value=retitled,
                reason=f"participant merge: {note}",
                actor=actor_user(actor),
            )
            fixture.name = retitled
            fixture.version += 1
            fixture.save(update_fields=["name", "version", "updated_at"])
        timeline_append(
            fixture=fixture,
            event_type="participant.merge",
            actor=actor,
            payload=payload if retitled is None else {**payload, "name": retitled},
            participants=[(survivor, "survivor")],
        )
    for plugin in _merge_plugins(loser=loser, survivor=survivor):
        get_plugin(plugin).participants_merged(loser=loser, survivor=survivor, actor=actor)
    return survivor


def _merge_plugins(*, loser: Participant, survivor: Participant) -> list[str]:
    """The plugins of the sports that see either side of a merge (each definition's, one
    query): where each was created and the sports of their ``ParticipantSport`` rows (the
    survivor holds the loser's by now); a pair in the Commons (no rows) is seen by every
    sport."""
    seen = ParticipantSport.objects.filter(participant__in=[loser, survivor]).values("sport_id")
    definitions = SportDefinitionVersion.objects.all()
    if ParticipantSport.objects.filter(participant__in=[loser, survivor]).exists():
        created = {loser.sport_id, survivor.sport_id} - {None}
        definitions = definitions.filter(Q(sport_id__in=seen) | Q(sport_id__in=created))
    return sorted(set(definitions.values_list("plugin", flat=True)))


#: How a head-to-head title joins its sides ("Wolves v Arsenal").
TITLE_JOIN = " v "


def _retitled(fixture: Fixture, *, old_names: set[str], new: str) -> str | None:
    """The fixture's title with each side named by one of ``old_names`` renamed ``new``, or
    None when it names none of them. A side is a whole part between the joins, the last
    one perhaps followed by a comma and more ("India v Australia, 3rd ODI"); a name inside
    another ("India A") is not the side "India"."""
    parts = fixture.name.split(TITLE_JOIN)
    changed = False
    for i, part in enumerate(parts):
        for old in old_names:
            if part == old or (i == len(parts) - 1 and part.startswith(f"{old},")):
                parts[i] = new + part[len(old) :]
                changed = True
                break
    title = TITLE_JOIN.join(parts)
    max_length = Fixture._meta.get_field("name").max_length or len(title)
    return title if changed and len(title) <= max_length else None


def _memberships_move(*, loser: Participant, survivor: Participant) -> None:
    """The loser's memberships become the survivor's. A row the survivor already holds
    (the same team, role and season, or the same national side) stays on the loser, as
    the merge found it, and the survivor's period is widened to cover it."""
    for side in ("team", "member"):
        other = "member" if side == "team" else "team"
        for row in Membership.objects.filter(**{side: loser}):
            twin = Membership.objects.filter(
                **{side: survivor, other: getattr(row, f"{other}_id")}, role=row.role
            )
            if row.season:
                twin = twin.filter(season=row.season)
            elif row.role != NATIONAL_SIDE:
                twin = twin.none()  # only seasons and national sides are one row each
            kept = twin.first()
            if kept is None:
                setattr(row, side, survivor)
                row.save(update_fields=[side])
                continue
            _widen(kept, row.valid_from, row.valid_to)


def _widen(row: Membership, start: date | None, end: date | None) -> None:
    changed = []
    if start is not None and (row.valid_from is None or start < row.valid_from):
        row.valid_from = start
        changed.append("valid_from")
    if end is not None and (row.valid_to is None or end > row.valid_to):
        row.valid_to = end
        changed.append("valid_to")
    if changed:
        row.save(update_fields=changed)


@transaction.atomic
def country_ensure(
    *, code: str, name: str, actor: Actor, source_code: str = "hand"
) -> tuple[Participant, bool]:
    """The Commons country with the three-letter code ``code`` (the NOC code the Games use
    as its key), created under ``name`` when there is none; returns (country, created).
    The country every sport shares: cricket's boards and the Games' entries both land on
    this one row. Safe against a concurrent writer creating the same code."""
    code = code.upper()
    if not re.fullmatch(r"[A-Z]{3}", code):
        raise ValidationError({"code": f"{code!r} is not a three-letter country code."})
    existing = Participant.objects.filter(
        type=ParticipantType.COUNTRY, sport__isnull=True, code=code
    ).first()
    if existing is not None:
        return Participant.objects.get(pk=follow_merges(Participant, existing.pk)), False
    country = Participant(
        type=ParticipantType.COUNTRY, name=name, code=code, country=code, sport=None
    )
    country.full_clean()
    try:
        with transaction.atomic():
            country.save()
    except IntegrityError:
        # Another writer created the code meanwhile (uq_participant_code_commons).
        return Participant.objects.get(sport__isnull=True, code=code), False
    alias_observe(participant=country, name=name, source_code=source_code)
    del actor  # creation is recorded by the caller's log item (an import)
    return country, True


@transaction.atomic
def national_side_link(*, side: Participant, country: Participant, actor: Actor) -> Membership:
    """Record that the team ``side`` plays for ``country`` (a member of it with the role
    ``NATIONAL_SIDE``); linking again is a no-op. The country must be a Commons country
    and the side a team: a men's and a women's side are two teams of one country."""
    if country.type != ParticipantType.COUNTRY or country.sport_id is not None:
        raise ValidationError(f"{country} is not a Commons country.")
    if side.type != ParticipantType.TEAM:
        raise ValidationError(f"{side} is a {side.type}, not a team.")
    membership, created = Membership.objects.get_or_create(
        team=country, member=side, role=NATIONAL_SIDE
    )
    if created:
        audit_person(
            actor,
            action="participant.national_side",
            entity=side,
            key=side.pk,
            detail={"country": str(country.pk), "code": country.code},
        )
    return membership


def season_memberships_record(
    *,
    pairs: Iterable[tuple[uuid.UUID, uuid.UUID]],
    role: str,
    season: str,
    valid_from: date,
    valid_to: date,
) -> int:
    """Record (team id, member id) pairs as members for ``season``: one row per team,
    member, role and season, created or widened to cover ``valid_from``..``valid_to`` (a
    later match of the season extends it, an earlier file's match too). One statement for
    every pair; rows are written in key order so two writers of one season take their row
    locks in the same order. Returns how many pairs were recorded. Runs inside the
    caller's transaction (an import's match)."""
    if not season:
        raise ValidationError({"season": "A season membership needs a season."})
    if valid_to < valid_from:
        raise ValidationError({"valid_to": "A membership cannot end before it starts."})
    ordered = sorted(set(pairs))
    if not ordered:
        return 0
    table = Membership._meta.db_table
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(ordered))
    params: list[Any] = []
    for team_id, member_id in ordered:
        params += [uuid7(), team_id, member_id, role, season, valid_from, valid_to]
    with connection.cursor() as cursor:
        cursor.execute(
            # The table name and placeholders are this module's constants; values are params.
            f"INSERT INTO {table} (id, team_id, member_id, role, season, valid_from, valid_to) "  # noqa: S608
            f"VALUES {values} "
            "ON CONFLICT (team_id, member_id, role, season) WHERE NOT (season = '') "
            "DO UPDATE SET "
            f"valid_from = LEAST({table}.valid_from, EXCLUDED.valid_from), "
            f"valid_to = GREATEST({table}.valid_to, EXCLUDED.valid_to)",
            params,
        )
    return len(ordered)


@transaction.atomic
def external_id_link(
    *,
    source_code: str,
    entity_type: str,
    external_id: str,
    internal_id: uuid.UUID,
    actor: Actor,
    origin: str = LinkOrigin.INTEGRATION,
) -> ExternalIdMap:
    """Link an outside id to our row. Re-linking to the same row is a no-op; an outside id
    already pointing elsewhere is an error (one outside id, one row)."""
    row, created = ExternalIdMap.objects.get_or_create(
        source_code=source_code,
        entity_type=entity_type,
        external_id=external_id,
        defaults={"internal_id": internal_id, "origin": origin, "created_by": actor_label(actor)},
    )
    if not created and row.internal_id != internal_id:
        raise ValidationError(
            f"{source_code} {entity_type} id {external_id!r} already points at "
            f"{row.internal_id}, not {internal_id}."
        )
    return row


@dataclass(frozen=True)
class OutsideRow:
    """A row from a feed naming a party: its id at the source, its name, its country, and
    the sport it was seen in (``sport_id``): a name then joins it only to a participant
    that sport sees (the Commons, or one listing the sport)."""

    external_id: str = ""
    name: str = ""
    country: str = ""
    type: str = ParticipantType.PERSON
    sport_id: uuid.UUID | None = None


@dataclass
class Resolution:
    matched: dict[OutsideRow, Participant] = field(default_factory=dict)
    unmatched: list[tuple[OutsideRow, str]] = field(default_factory=list)


def participants_resolve(
    *, source_code: str, rows: Iterable[OutsideRow], batch: str, keep_unmatched: bool = True
) -> Resolution:
    """Match a whole batch of outside rows to participants, in order of trust: their id
    through the external-id map, then the three-letter country code (for countries), then
    the name. One query per key kind for the whole batch, never one per row.

    A row seen in a sport (``OutsideRow.sport_id``) is joined by name only to participants
    that sport sees: a cricketer is never a swimmer's namesake match. The source's own id
    is its own word and joins whatever it points at.

    Every unmatched row comes back with a sentence saying why (nothing dropped, nothing
    guessed) and, with ``keep_unmatched``, is stored as an ``UnmatchedRow`` for review.
    """
    pending = list(dict.fromkeys(rows))
    result = Resolution()

    ids = {r.external_id for r in pending if r.external_id}
    by_id = dict(
        ExternalIdMap.objects.filter(
            source_code=source_code, entity_type=EntityType.PARTICIPANT, external_id__in=ids
        ).values_list("external_id", "internal_id")
    )
    codes = {r.country.upper() for r in pending if r.type == ParticipantType.COUNTRY and r.country}
    by_code = {
        p.code: p
        for p in Participant.objects.filter(
            type=ParticipantType.COUNTRY, sport__isnull=True, code__in=codes
        )
    }
    names = {normalise_name(r.name) for r in pending if r.name}
    name_candidates: dict[str, set[uuid.UUID]] = {}
    if names:
        raw_names = {r.name for r in pending if r.name}
        for pid, alias in ParticipantAlias.objects.filter(name__in=raw_names).values_list(
            "participant_id", "name"
        ):
            name_candidates.setdefault(normalise_name(alias), set()).add(pid)
        for pid, name in Participant.objects.filter(name__in=raw_names).values_list("id", "name"):
            name_candidates.setdefault(normalise_name(name), set()).add(pid)

    wanted = set(by_id.values()) | {pid for s in name_candidates.values() for pid in s}
    participants = {p.pk: p for p in Participant.objects.filter(pk__in=wanted)}
    # Which sports see each name candidate (no rows: the Commons, seen by every sport).
    seen_by: dict[uuid.UUID, set[uuid.UUID]] = {}
    if any(r.sport_id for r in pending):
        for pid, sport_id in ParticipantSport.objects.filter(
            participant_id__in={pid for s in name_candidates.values() for pid in s}
        ).values_list("participant_id", "sport_id"):
            seen_by.setdefault(pid, set()).add(sport_id)

    def candidates(row: OutsideRow) -> set[uuid.UUID]:
        found = name_candidates.get(normalise_name(row.name), set()) if row.name else set()
        if row.sport_id is None:
            return found
        return {pid for pid in found if pid not in seen_by or row.sport_id in seen_by[pid]}

    # A name never joins a row to someone this source already knows under another id: the
    # source's own ids say they are two parties (namesakes are common: two "Wang Yi").
    known_to_source: dict[uuid.UUID, set[str]] = {}
    for internal, external in ExternalIdMap.objects.filter(
        source_code=source_code,
        entity_type=EntityType.PARTICIPANT,
        internal_id__in={pid for s in name_candidates.values() for pid in s},
    ).values_list("internal_id", "external_id"):
        known_to_source.setdefault(internal, set()).add(external)

    def survivor(pid: uuid.UUID) -> Participant:
        p = participants[pid]
        if p.merged_into_id is None:
            return p
        return Participant.objects.get(pk=follow_merges(Participant, pid))

    for row in pending:
        if row.external_id and row.external_id in by_id and by_id[row.external_id] in participants:
            result.matched[row] = survivor(by_id[row.external_id])
        elif row.type == ParticipantType.COUNTRY and row.country.upper() in by_code:
            result.matched[row] = by_code[row.country.upper()]
        elif row.name and len(candidates(row)) == 1:
            (pid,) = candidates(row)
            candidate = survivor(pid)
            other_ids = known_to_source.get(pid, set()) - {row.external_id}
            if row.external_id and other_ids:
                result.unmatched.append(
                    (
                        row,
                        (
                            f"the name {row.name!r} belongs to a participant {source_code} "
                            f"knows as {', '.join(sorted(other_ids))}, not {row.external_id!r}"
                        ),
                    )
                )
            elif row.type and candidate.type != row.type:
                result.unmatched.append(
                    (row, f"the name {row.name!r} belongs to a {candidate.type}, not a {row.type}")
                )
            else:
                result.matched[row] = candidate
        else:
            result.unmatched.append((row, _why_unmatched(row, source_code, len(candidates(row)))))

    if keep_unmatched and result.unmatched:
        for row, reason in result.unmatched:
            UnmatchedRow.objects.update_or_create(
                source_code=source_code,
                entity_type=EntityType.PARTICIPANT,
                batch=batch,
                external_id=row.external_id,
                name=row.name,
                defaults={"country": row.country, "reason": reason, "payload": {"type": row.type}},
            )
    return result


def _why_unmatched(row: OutsideRow, source_code: str, count: int) -> str:
    reasons = []
    if row.external_id:
        reasons.append(f"{source_code} id {row.external_id!r} is not in the external-id map")
    else:
        reasons.append("the row carries no id")
    if row.type == ParticipantType.COUNTRY:
        reasons.append(f"no country participant has code {row.country!r}")
    seen = " its sport sees" if row.sport_id else ""
    if not row.name:
        reasons.append("the row carries no name")
    elif count == 0:
        reasons.append(f"no participant{seen} is known by the name {row.name!r}")
    else:
        reasons.append(f"the name {row.name!r} fits {count} participants, so it decides nothing")
    return "; ".join(reasons)


def dangling_external_ids() -> list[ExternalIdMap]:
    """Map rows whose target row no longer exists (one query per entity type)."""

    targets: dict[EntityType, type[Sport | Competition | Fixture | Participant | Venue]] = {
        EntityType.SPORT: Sport,
        EntityType.COMPETITION: Competition,
        EntityType.FIXTURE: Fixture,
        EntityType.PARTICIPANT: Participant,
        EntityType.VENUE: Venue,
    }
    dangling: list[ExternalIdMap] = []
    for entity_type, model in targets.items():
        dangling.extend(
            ExternalIdMap.objects.filter(entity_type=entity_type)
            .exclude(internal_id__in=model.objects.values_list("pk", flat=True))
            .order_by("source_code", "external_id")
        )
    known = [t.value for t in targets]
    dangling.extend(ExternalIdMap.objects.exclude(entity_type__in=known))
    return dangling


__all__ = [
    "OutsideRow",
    "Resolution",
    "alias_observe",
    "country_ensure",
    "dangling_external_ids",
    "external_id_link",
    "national_side_link",
    "participant_create",
    "participant_merge",
    "participants_resolve",
    "season_memberships_record",
]
