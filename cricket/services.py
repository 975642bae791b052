"""Writes on cricket's reference data: the sport row and people and teams by Cricsheet id.

A name is never a join key (names are shared and change): "Abdul Rahman" is three; one person is
"KH Brunt" and "KH Sciver-Brunt". Players are found through the external-id map by their
registry identifier; every name seen for an identifier becomes an alias.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.utils import timezone
from django.utils.text import slugify

from cricket.boards import board_of
from omnium.bulk import Inserts
from omnium.models import uuid7
from sports.models import (
    Archetype,
    Competition,
    CompetitorKind,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureCompetitor,
    LinkOrigin,
    Participant,
    ParticipantSport,
    ParticipantType,
    ResultStatus,
    Sport,
    SportDefinitionVersion,
    Submission,
    Venue,
)
from sports.querysets import follow_merges
from sports.services.common import Actor, actor_label
from sports.services.fixtures import fixture_documents_check
from sports.services.participants import country_ensure, national_side_link
from sports.services.results import result_lines_create
from sports.services.timeline import LogEntry, timeline_open

SOURCE = "cricsheet"
#: The sport's code (its shipped definition: cricket/definitions/cricket.json).
CRICKET = "cricket"
#: ``Membership.role`` of a player in a team's squad for a season.
SQUAD_ROLE = "player"


def cricket_sport() -> Sport:
    sport, _ = Sport.objects.get_or_create(
        code=CRICKET,
        defaults={
            "name": "Cricket",
            "archetype": Archetype.HEAD_TO_HEAD,
            "competitor_kind": CompetitorKind.TEAM,
        },
    )
    return sport


def _code(name: str) -> str:
    return f"{slugify(name)[:48] or 'x'}-{uuid7().hex[-8:]}"


@dataclass
class PeopleCache:
    """What one import run already knows about people: outside id -> participant, and the
    (participant, name) alias ranges it has written. Only ever holds rows of committed
    matches: the importer drops it when a match rolls back."""

    by_id: dict[str, Participant] = field(default_factory=dict)
    # (participant, name, source) -> the first and last seen this run has written.
    seen: dict[tuple[uuid.UUID, str, str], tuple[datetime, datetime]] = field(default_factory=dict)
    # True when ``by_id`` holds every id the source maps (``people_cache_load``): an id
    # missing from it is a new person, found without asking the database.
    complete: bool = False


def people_cache_load(*, source_code: str = SOURCE) -> PeopleCache:
    """Everyone the source's outside ids map to, in two queries (merged people answer as
    their survivor): the start of an import run that will meet most of them."""
    links = dict(
        ExternalIdMap.objects.filter(
            source_code=source_code, entity_type=EntityType.PARTICIPANT
        ).values_list("external_id", "internal_id")
    )
    rows = {
        p.pk: p
        for p in Participant.objects.filter(
            pk__in=ExternalIdMap.objects.filter(
                source_code=source_code, entity_type=EntityType.PARTICIPANT
            ).values("internal_id")
        )
    }
    return PeopleCache(by_id=_survivors(links, rows), complete=True)


def _survivors(
    links: dict[str, uuid.UUID], rows: dict[uuid.UUID, Participant]
) -> dict[str, Participant]:
    """outside id -> participant, a merged participant answering as its survivor."""
    by_id: dict[str, Participant] = {}
    for external_id, internal_id in links.items():
        participant = rows[internal_id]
        if participant.merged_into_id is not None:
            participant = Participant.objects.get(pk=follow_merges(Participant, internal_id))
        by_id[external_id] = participant
    return by_id


@transaction.atomic(savepoint=False)
def cricket_people_resolve(
    *,
    names: dict[str, str],
    sport: Sport,
    actor: Actor,
    seen_at: datetime | None = None,
    source_code: str = SOURCE,
    participant_type: str = ParticipantType.PERSON,
    cache: PeopleCache | None = None,
    inserts: Inserts | None = None,
    concurrent: bool = False,
) -> dict[str, Participant]:
    """Map each ``name -> outside id`` to a participant, creating the unknown ones.

    One query finds every known id of the batch in the external-id map and one loads their
    participants (merged ones answer as their survivor); the unknown ids are created in bulk
    with their map rows. Each (participant, name) is recorded as an alias, with first and
    last seen widened to ``seen_at``. Returns name -> participant. With a ``cache`` (an
    import run), ids and alias ranges already known cost no query at all, and with a
    complete one (``people_cache_load``) neither do new people; with ``inserts``, the new
    rows and the alias statement join the caller's batch. ``concurrent``: other writers
    (parallel import processes) may be creating the same people: each new id is claimed
    first (``_claim_new``), so two writers wait for each other instead of colliding.
    """
    seen_at = seen_at or timezone.now()
    cache = cache if cache is not None else PeopleCache()
    by_id: dict[str, Participant] = {}
    ids: set[str] = set()
    for external_id in names.values():
        if external_id in cache.by_id:
            by_id[external_id] = cache.by_id[external_id]
        else:
            ids.add(external_id)
    known = (
        dict(
            ExternalIdMap.objects.filter(
                source_code=source_code, entity_type=EntityType.PARTICIPANT, external_id__in=ids
            ).values_list("external_id", "internal_id")
        )
        if ids and not cache.complete
        else {}
    )
    rows = {p.pk: p for p in Participant.objects.filter(pk__in=known.values())} if known else {}
    by_id.update(_survivors(known, rows))
    first_name: dict[str, str] = {}
    for name, external_id in names.items():
        first_name.setdefault(external_id, name)
    missing = sorted(ids - by_id.keys())
    if missing and concurrent:
        missing = _claim_new(missing, by_id, source_code=source_code)
    new = [
        Participant(
            type=participant_type,
            name=first_name[external_id],
            code=_code(first_name[external_id]),
            sport=sport,
        )
        for external_id in missing
    ]
    if new:
        label = actor_label(actor)
        new_rows: list[models.Model] = [
            *new,
            *(ParticipantSport(participant=p, sport=sport) for p in new),
            *(
                ExternalIdMap(
                    source_code=source_code,
                    entity_type=EntityType.PARTICIPANT,
                    external_id=external_id,
                    internal_id=p.pk,
                    origin=LinkOrigin.INTEGRATION,
                    created_by=label,
                )
                for external_id, p in zip(missing, new, strict=True)
            ),
        ]
        batch = inserts if inserts is not None else Inserts()
        batch.extend(new_rows)
        if inserts is None:
            batch.send()
        by_id.update(zip(missing, new, strict=True))
    cache.by_id.update((external_id, by_id[external_id]) for external_id in ids)
    resolved = {name: by_id[external_id] for name, external_id in names.items()}
    aliases_observe(
        pairs=resolved, source_code=source_code, seen_at=seen_at, cache=cache, inserts=inserts
    )
    return resolved


_CLAIM_NAMESPACE = 0xC1D5  # first key of the advisory locks on new outside ids


def _claim_new(missing: list[str], by_id: dict[str, Participant], *, source_code: str) -> list[str]:
    """Lock each outside id about to be created (transaction-level advisory locks, in
    sorted order), then look again: a writer that created one of them meanwhile has
    committed by the time its lock is ours. Adds those to ``by_id``; returns the ids that
    are still new."""
    with connection.cursor() as cursor:
        for external_id in missing:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                [_CLAIM_NAMESPACE, f"{source_code}:{external_id}"],
            )
    found = dict(
        ExternalIdMap.objects.filter(
            source_code=source_code, entity_type=EntityType.PARTICIPANT, external_id__in=missing
        ).values_list("external_id", "internal_id")
    )
    if found:
        rows = {p.pk: p for p in Participant.objects.filter(pk__in=found.values())}
        by_id.update(_survivors(found, rows))
    return [external_id for external_id in missing if external_id not in found]


_ALIAS_UPSERT = """
    INSERT INTO sports_participantalias (participant_id, name, source_code, first_seen, last_seen)
    SELECT p, n, %s, %s, %s FROM unnest(%s::uuid[], %s::text[]) AS pairs(p, n)
    ON CONFLICT (participant_id, source_code, name) DO UPDATE
       SET first_seen = LEAST(sports_participantalias.first_seen, EXCLUDED.first_seen),
           last_seen = GREATEST(sports_participantalias.last_seen, EXCLUDED.last_seen)
     WHERE sports_participantalias.first_seen > EXCLUDED.first_seen
        OR sports_participantalias.last_seen < EXCLUDED.last_seen
"""


def aliases_observe(
    *,
    pairs: dict[str, Participant],
    source_code: str,
    seen_at: datetime,
    cache: PeopleCache | None = None,
    inserts: Inserts | None = None,
) -> None:
    """Record every (name, participant) pair as an alias, first and last seen widened to
    ``seen_at``: one statement however many names (new pairs inserted, known ones widened,
    rows already covering ``seen_at`` not touched). With a ``cache``, pairs whose range this
    run already wrote to cover ``seen_at`` are not sent at all."""
    todo = []
    for name, p in pairs.items():
        known = cache.seen.get((p.pk, name, source_code)) if cache is not None else None
        if known is None or not known[0] <= seen_at <= known[1]:
            todo.append((name, p))
    if not todo:
        return
    # One order for every writer: two imports widening the same rows at once lock them in
    # the same sequence, so one waits for the other instead of deadlocking.
    todo.sort(key=lambda pair: (str(pair[1].pk), pair[0]))
    params: list[Any] = [
        source_code,
        seen_at,
        seen_at,
        [p.pk for _, p in todo],
        [n for n, _ in todo],
    ]
    if inserts is not None:
        inserts.add_sql(_ALIAS_UPSERT, params)
    else:
        with connection.cursor() as cursor:
            cursor.execute(_ALIAS_UPSERT, params)
    if cache is not None:
        # The stored range now covers at least what this run has seen of the pair.
        for name, p in todo:
            key = (p.pk, name, source_code)
            low, high = cache.seen.get(key, (seen_at, seen_at))
            cache.seen[key] = (min(low, seen_at), max(high, seen_at))


@transaction.atomic(savepoint=False)
def cricket_team(
    *,
    name: str,
    gender: str,
    sport: Sport,
    actor: Actor,
    seen_at: datetime | None = None,
    concurrent: bool = False,
) -> Participant:
    """The team participant for a Cricsheet team name. Cricsheet names men's and women's
    sides alike ("Australia"), so the outside id carries the gender: they are two teams."""
    external_id = f"team:{gender}:{name}"
    display = name
    if gender == "female" and "women" not in name.lower():
        display = f"{name} (women)"
    resolved = cricket_people_resolve(
        names={display: external_id},
        sport=sport,
        actor=actor,
        seen_at=seen_at,
        participant_type=ParticipantType.TEAM,
        concurrent=concurrent,
    )
    team = resolved[display]
    if name != display:
        aliases_observe(pairs={name: team}, source_code=SOURCE, seen_at=seen_at or timezone.now())
    return team


@transaction.atomic
def cricket_national_side(*, team: Participant, side: str, actor: Actor) -> Participant | None:
    """Link an international side (``team``, named ``side`` by Cricsheet) to the Commons
    country its board plays for (``cricket.boards``), creating that country when no Games
    has brought it yet; returns the country, or None for a side of no one country (West
    Indies, a World XI) or one the table lacks. Linking again is a no-op."""
    board = board_of(side)
    if board is None or not board.country:
        return None
    country, _ = country_ensure(
        code=board.country, name=board.country_name, actor=actor, source_code=SOURCE
    )
    national_side_link(side=team, country=country, actor=actor)
    return country


@dataclass(frozen=True)
class IdentityBackfill:
    """What ``cricket_identity_backfill`` found: international sides linked to a country,
    and (team, player, season) memberships recorded or widened."""

    sides: int
    memberships: int

    def line(self) -> str:
        return f"{self.sides} national side(s) linked, {self.memberships} season membership(s)"


@transaction.atomic
def cricket_identity_backfill(*, actor: Actor) -> IdentityBackfill:
    """For matches imported before sides had countries and squads had seasons: link every
    international side to its country and record every squad as members of its team for
    the match's season, as the import now does. Idempotent (a second run changes nothing);
    the memberships are one set-based statement over every cricket fixture."""
    sport = cricket_sport()
    international = (
        ExternalIdMap.objects.filter(
            source_code=SOURCE,
            entity_type=EntityType.PARTICIPANT,
            external_id__startswith="team:",
            internal_id__in=FixtureCompetitor.objects.filter(
                fixture__sport=sport,
                fixture__format__team_type="international",
                parent__isnull=True,
            ).values("participant_id"),
        )
        .order_by("external_id")
        .values_list("external_id", "internal_id")
    )
    teams = {p.pk: p for p in Participant.objects.filter(pk__in=[i for _, i in international])}
    sides = 0
    for external_id, internal_id in international:
        name = external_id.split(":", 2)[2]  # team:<gender>:<name>
        team = teams.get(internal_id)
        if team is not None and team.merged_into_id is None:
            sides += cricket_national_side(team=team, side=name, actor=actor) is not None
    with connection.cursor() as cursor:
        # Season and days as the import reads them (``match_season``): the file's season,
        # or its first day's year; ids are random (the import's are time-ordered).
        cursor.execute(
            """
            INSERT INTO sports_membership (id, team_id, member_id, role, season, valid_from,
                                           valid_to)
            SELECT gen_random_uuid(), side.participant_id, player.participant_id, %s,
                   COALESCE(f.meta->>'season', left(f.meta->'dates'->>0, 4)),
                   min((f.meta->'dates'->>0)::date), max((f.meta->'dates'->> -1)::date)
              FROM sports_fixture f
              JOIN sports_fixturecompetitor side
                ON side.fixture_id = f.id AND side.parent_id IS NULL
              JOIN sports_fixturecompetitor player ON player.parent_id = side.id
             WHERE f.sport_id = %s AND f.merged_into_id IS NULL
               AND side.participant_id IS NOT NULL AND player.participant_id IS NOT NULL
               AND f.meta ? 'dates'
             GROUP BY 2, 3, 5
             ORDER BY 2, 3, 5
            ON CONFLICT (team_id, member_id, role, season) WHERE NOT (season = '')
            DO UPDATE SET valid_from = LEAST(sports_membership.valid_from, EXCLUDED.valid_from),
                          valid_to = GREATEST(sports_membership.valid_to, EXCLUDED.valid_to)
            """,
            [SQUAD_ROLE, sport.pk],
        )
        memberships = cursor.rowcount
    return IdentityBackfill(sides=sides, memberships=memberships)


@dataclass
class Side:
    """One team of a match with its squad: (player, slot) pairs, a slot such as "supersub"
    being the player's role on the squad entry. ``rank``/``win_method`` are the result."""

    team: Participant
    squad: list[tuple[Participant, str]] = field(default_factory=list)
    rank: int | None = None
    win_method: str = ""
    result_status: str = ResultStatus.FINISHED


@transaction.atomic(savepoint=False)
def cricket_sides_create(
    *,
    fixture: Fixture,
    sides: list[Side],
    fixture_is_new: bool = False,
    inserts: Inserts | None = None,
) -> list[FixtureCompetitor]:
    """Put the two teams and their squads (nested under them) into a fixture that has no
    competitors yet, in one statement rather than one per player: the squads of 12,000
    matches are ~300,000 rows. ``fixture_is_new``: the caller created the fixture in this
    transaction, so nobody can have given it sides (no need to look). With ``inserts``,
    the rows join the caller's batch."""
    if not fixture_is_new and fixture.competitors.exists():
        raise ValidationError(f"{fixture} already has its sides; amend them instead.")
    teams = [
        FixtureCompetitor(
            fixture=fixture,
            participant=side.team,
            ordinal=ordinal,
            rank=side.rank,
            win_method=side.win_method,
            result_status=side.result_status if side.rank is not None else ResultStatus.ENTERED,
        )
        for ordinal, side in enumerate(sides, start=1)
    ]
    # Ids are made here (UUIDv7), so the squad rows can name their team row in the same
    # insert.
    rows = [
        *teams,
        *(
            FixtureCompetitor(
                fixture=fixture,
                parent=row,
                participant=player,
                ordinal=ordinal,
                slot=slot,
                entry={"role": slot} if slot else {},
            )
            for row, side in zip(teams, sides, strict=True)
            for ordinal, (player, slot) in enumerate(side.squad, start=1)
        ),
    ]
    if inserts is not None:
        inserts.extend(rows)
    else:
        FixtureCompetitor.objects.bulk_create(rows)
    return teams


@dataclass
class MatchFixture:
    """What the importer knows of a new match's fixture before writing it."""

    competition: Competition
    code: str
    name: str
    format_code: str
    scheduled_start: datetime
    venue: Venue | None
    format: dict[str, Any]
    meta: dict[str, Any]
    status: str
    result: dict[str, Any] | None
    sides: list[Side]
    match_id: str


@transaction.atomic(savepoint=False)
def cricket_fixture_create(
    *,
    match: MatchFixture,
    sport: Sport,
    definition: SportDefinitionVersion | None,
    submission: Submission,
    actor: Actor,
    log: Sequence[LogEntry] = (),
    inserts: Inserts | None = None,
) -> Fixture:
    """The fixture of a new Cricsheet match with everything the spine keeps about it: the
    row (first submission, status and outcome included), its log opened with the creation
    item plus ``log``, both sides with their squads, the result lines, and the match id in
    the external-id map. All of it travels in one round trip (``inserts``: the caller's
    batch, sent by the caller; without one, sent here) for the ~12,000 matches of a corpus
    import; the unique keys (code, outside id) refuse a second writer of the same match."""
    batch = inserts if inserts is not None else Inserts()
    fixture_documents_check(definition, format=match.format, meta=match.meta)
    entries = [
        LogEntry(
            "fixture.create",
            unit="record",
            payload={
                "code": match.code,
                "competition": str(match.competition.pk),
                "archetype": Archetype.HEAD_TO_HEAD,
            },
        ),
        *log,
    ]
    fixture = Fixture(
        sport=sport,
        competition=match.competition,
        venue=match.venue,
        definition_version=definition,
        code=match.code,
        name=match.name,
        archetype=Archetype.HEAD_TO_HEAD,
        format_code=match.format_code,
        scheduled_start=match.scheduled_start,
        format=match.format,
        meta=match.meta,
        status=match.status,
        result=match.result,
        first_seen_in=submission,
        last_seq=len(entries),
    )
    batch.add(fixture)
    timeline_open(fixture=fixture, entries=entries, actor=actor, source_code=SOURCE, inserts=batch)
    teams = cricket_sides_create(
        fixture=fixture, sides=match.sides, fixture_is_new=True, inserts=batch
    )
    result_lines_create(fixture=fixture, sides=teams, inserts=batch)
    batch.add(
        ExternalIdMap(
            source_code=SOURCE,
            entity_type=EntityType.FIXTURE,
            external_id=match.match_id,
            internal_id=fixture.pk,
            origin=LinkOrigin.INTEGRATION,
            created_by=actor_label(actor),
        )
    )
    if inserts is None:
        batch.send()
    return fixture
