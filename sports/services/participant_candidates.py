"""Participants that look alike but were kept apart, queued for a person.

The rule: the same normalised name, type and country under one sport, each row known to an
outside source by an id of its own. Such rows were kept apart on purpose (a source with
lasting ids never joins namesakes by guess), so only a person may say they are one. The
pairs wait in the merge-candidate queue (``curation``) at level ``participant``, which this
module registers from ``SportsConfig.ready()``; accepting one calls ``participant_merge``,
so the merged row's outside ids keep resolving.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from itertools import combinations
from typing import Any

from django.db import transaction

from accounts.models import User
from curation.models import MergeCandidate, MergeLevel
from curation.registry import LevelResolver, Proposal, level_register, proposer_register
from curation.services import merge_candidate_propose, merge_candidates_supersede
from sports.identity import normalise_name
from sports.models import EntityType, ExternalIdMap, Participant, ParticipantSport
from sports.services.participants import participant_merge

SIDE_TEMPLATE = "admin/sports/participant_candidate_side.html"

# A name shared by more rows than this is common (a "J. Smith"): pair with the oldest only.
ALL_PAIRS_LIMIT = 6


def participant_pairs() -> list[tuple[uuid.UUID, uuid.UUID, float, str]]:
    """(left id, right id, score, why) for every look-alike pair of live participants."""
    outside: dict[uuid.UUID, set[str]] = defaultdict(set)
    for internal_id, source, external_id in ExternalIdMap.objects.filter(
        entity_type=EntityType.PARTICIPANT
    ).values_list("internal_id", "source_code", "external_id"):
        outside[internal_id].add(f"{source}:{external_id}")
    live = Participant.objects.filter(merged_into__isnull=True, pk__in=list(outside))
    rows: dict[uuid.UUID, Any] = {
        p["id"]: p for p in live.values("id", "name", "type", "country", "sport_id", "created_at")
    }
    sports: dict[uuid.UUID, set[uuid.UUID]] = defaultdict(set)
    for participant_id, sport_id in ParticipantSport.objects.filter(
        participant_id__in=list(rows)
    ).values_list("participant_id", "sport_id"):
        sports[participant_id].add(sport_id)
    groups: dict[tuple[uuid.UUID, str, str, str], list[Any]] = defaultdict(list)
    for pk, row in rows.items():
        sport_ids = sports[pk] | ({row["sport_id"]} if row["sport_id"] else set())
        for sport_id in sport_ids:
            key = (sport_id, row["type"], normalise_name(row["name"]), row["country"] or "")
            groups[key].append(row)
    pairs = {}
    for (_, kind, name, country), members in groups.items():
        if len(members) < 2:
            continue
        members.sort(key=lambda r: (r["created_at"], str(r["id"])))
        candidates = (
            combinations(members, 2)
            if len(members) <= ALL_PAIRS_LIMIT
            else ((members[0], m) for m in members[1:])
        )
        for a, b in candidates:
            if outside[a["id"]] & outside[b["id"]]:
                continue
            ids = sorted((a["id"], b["id"]))
            where = f" and country {country}" if country else ""
            why = (
                f"same {kind.lower()} name '{name}'{where} under one sport, known by "
                f"different outside ids "
                f"({', '.join(sorted(outside[a['id']]))} / {', '.join(sorted(outside[b['id']]))})"
            )
            score = 0.6 if country else 0.4
            pairs[tuple(ids)] = (ids[0], ids[1], score, why[:1000])
    return sorted(pairs.values(), key=lambda p: (-p[2], str(p[0])))


def participant_proposals() -> list[Proposal]:
    """The look-alike pairs as the queue's proposals (rule ``participant``)."""
    return [
        Proposal(MergeLevel.PARTICIPANT, left, right, score, why, "participant")
        for left, right, score, why in participant_pairs()
    ]


@transaction.atomic
def participant_candidates_suggest(*, actor: User | None = None) -> int:
    """Queue every look-alike pair for a person; returns how many are new. A decided pair is
    never proposed again, and pairs whose side was merged away are closed."""
    merge_candidates_supersede(actor=actor)
    before = MergeCandidate.objects.filter(level=MergeLevel.PARTICIPANT).count()
    for left, right, score, why in participant_pairs():
        merge_candidate_propose(
            level=MergeLevel.PARTICIPANT, left_id=left, right_id=right, score=score, why=why
        )
    return MergeCandidate.objects.filter(level=MergeLevel.PARTICIPANT).count() - before


def _gone(ids: set[Any]) -> set[Any]:
    standing = Participant.objects.filter(pk__in=ids, merged_into__isnull=True)
    return ids - set(standing.values_list("pk", flat=True))


def _older(left: Participant, right: Participant) -> Participant:
    """An accepted pair keeps the older row."""
    return min((left, right), key=lambda x: (x.created_at, str(x.pk)))


def _apply(
    *,
    loser: Participant,
    survivor: Participant,
    actor: User,
    note: str,
    confirm_two_barcodes: bool,
) -> None:
    participant_merge(loser=loser, survivor=survivor, actor=actor, note=note)


def describe_participants(ids: set[Any]) -> dict[Any, Participant]:
    """Each side with its sport and the outside ids it is known by (two queries)."""
    outside: dict[uuid.UUID, list[str]] = {}
    for internal_id, source, external_id in ExternalIdMap.objects.filter(
        internal_id__in=ids
    ).values_list("internal_id", "source_code", "external_id"):
        outside.setdefault(internal_id, []).append(f"{source}:{external_id}")
    sides = list(Participant.objects.filter(pk__in=ids).select_related("sport"))
    for side in sides:
        # Read by the side template only; not a field.
        side.outside_ids = sorted(outside.get(side.pk, []))  # type: ignore[attr-defined]
    return {side.pk: side for side in sides}


def participant_facts(side: Participant) -> list[tuple[str, str]]:
    """What a person compares on two participants (read from ``describe_participants``)."""
    return [
        ("name", side.name),
        ("type", str(side.type)),
        ("country", side.country or ""),
        ("born", str(side.born_on or "")),
        ("sport", str(side.sport or "")),
        ("outside ids", ", ".join(getattr(side, "outside_ids", []))),
    ]


def register() -> None:
    """Called from ``SportsConfig.ready()``."""
    level_register(
        LevelResolver(
            level=MergeLevel.PARTICIPANT,
            model=Participant,
            gone=_gone,
            default_survivor=_older,
            apply=_apply,
            describe=describe_participants,
            side_template=SIDE_TEMPLATE,
            facts=participant_facts,
        )
    )
    proposer_register("sports", participant_proposals)
