"""Writes on cricket's reference data: the sport row and people and teams by Cricsheet id.

A name is never a join key (O2): "Abdul Rahman" is three people, and one person appears as
"KH Brunt" and "KH Sciver-Brunt". Players are found through the external-id map by their
registry identifier; every name seen for an identifier becomes an alias.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Greatest, Least
from django.utils import timezone
from django.utils.text import slugify

from omnium.models import uuid7
from sports.models import (
    Archetype,
    CompetitorKind,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureCompetitor,
    LinkOrigin,
    Participant,
    ParticipantAlias,
    ParticipantSport,
    ParticipantType,
    ResultStatus,
    Sport,
)
from sports.querysets import follow_merges
from sports.services.common import Actor, actor_label

SOURCE = "cricsheet"


def cricket_sport() -> Sport:
    sport, _ = Sport.objects.get_or_create(
        code="cricket",
        defaults={
            "name": "Cricket",
            "archetype": Archetype.HEAD_TO_HEAD,
            "competitor_kind": CompetitorKind.TEAM,
        },
    )
    return sport


def _code(name: str) -> str:
    return f"{slugify(name)[:48] or 'x'}-{uuid7().hex[-8:]}"


@transaction.atomic(savepoint=False)
def cricket_people_resolve(
    *,
    names: dict[str, str],
    sport: Sport,
    actor: Actor,
    seen_at: datetime | None = None,
    source_code: str = SOURCE,
    participant_type: str = ParticipantType.PERSON,
) -> dict[str, Participant]:
    """Map each ``name -> outside id`` to a participant, creating the unknown ones.

    One query finds every known id of the batch in the external-id map and one loads their
    participants (merged ones answer as their survivor); the unknown ids are created in bulk
    with their map rows. Each (participant, name) is recorded as an alias, with first and
    last seen widened to ``seen_at``. Returns name -> participant.
    """
    seen_at = seen_at or timezone.now()
    ids = set(names.values())
    known = dict(
        ExternalIdMap.objects.filter(
            source_code=source_code, entity_type=EntityType.PARTICIPANT, external_id__in=ids
        ).values_list("external_id", "internal_id")
    )
    rows = {p.pk: p for p in Participant.objects.filter(pk__in=known.values())}
    by_id: dict[str, Participant] = {}
    for external_id, internal_id in known.items():
        participant = rows[internal_id]
        if participant.merged_into_id is not None:
            participant = Participant.objects.get(pk=follow_merges(Participant, internal_id))
        by_id[external_id] = participant
    first_name = {}
    for name, external_id in names.items():
        first_name.setdefault(external_id, name)
    new = [
        Participant(
            type=participant_type,
            name=first_name[external_id],
            code=_code(first_name[external_id]),
            sport=sport,
        )
        for external_id in sorted(ids - by_id.keys())
    ]
    if new:
        Participant.objects.bulk_create(new)
        ParticipantSport.objects.bulk_create(
            [ParticipantSport(participant=p, sport=sport) for p in new]
        )
        label = actor_label(actor)
        ExternalIdMap.objects.bulk_create(
            [
                ExternalIdMap(
                    source_code=source_code,
                    entity_type=EntityType.PARTICIPANT,
                    external_id=external_id,
                    internal_id=p.pk,
                    origin=LinkOrigin.INTEGRATION,
                    created_by=label,
                )
                for external_id, p in zip(sorted(ids - by_id.keys()), new, strict=True)
            ]
        )
        by_id.update(zip(sorted(ids - by_id.keys()), new, strict=True))
    resolved = {name: by_id[external_id] for name, external_id in names.items()}
    aliases_observe(pairs=resolved, source_code=source_code, seen_at=seen_at)
    return resolved


def aliases_observe(*, pairs: dict[str, Participant], source_code: str, seen_at: datetime) -> None:
    """Record every (name, participant) pair as an alias in three statements, however many
    names: insert the new pairs, then widen first/last seen of the existing ones."""
    if not pairs:
        return
    ParticipantAlias.objects.bulk_create(
        [
            ParticipantAlias(
                participant=p,
                name=name,
                source_code=source_code,
                first_seen=seen_at,
                last_seen=seen_at,
            )
            for name, p in pairs.items()
        ],
        ignore_conflicts=True,
    )
    match_any = Q()
    for name, p in pairs.items():
        match_any |= Q(participant_id=p.pk, name=name)
    # One statement widens both ends; rows already covering seen_at are not touched.
    ParticipantAlias.objects.filter(match_any, source_code=source_code).filter(
        Q(last_seen__lt=seen_at) | Q(first_seen__gt=seen_at)
    ).update(
        first_seen=Least(F("first_seen"), Value(seen_at)),
        last_seen=Greatest(F("last_seen"), Value(seen_at)),
    )


@transaction.atomic(savepoint=False)
def cricket_team(
    *, name: str, gender: str, sport: Sport, actor: Actor, seen_at: datetime | None = None
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
    )
    team = resolved[display]
    if name != display:
        aliases_observe(pairs={name: team}, source_code=SOURCE, seen_at=seen_at or timezone.now())
    return team


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
def cricket_sides_create(*, fixture: Fixture, sides: list[Side]) -> list[FixtureCompetitor]:
    """Put the two teams and their squads (nested under them) into a new fixture in two
    statements rather than one per player: the squads of 12,000 matches are ~300,000 rows.
    Only for a fixture that has no competitors yet (the import's new fixture)."""
    if fixture.competitors.exists():
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
    FixtureCompetitor.objects.bulk_create(teams)
    FixtureCompetitor.objects.bulk_create(
        [
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
        ]
    )
    return teams
