"""The people of a batch file, resolved at validation: each listed person is a known
participant by registry id, or waits for a reviewer as an onboarding task (created once
per batch and person, and reused by a re-validation)."""

from __future__ import annotations

import secrets
from typing import Any

from cricket.services import SOURCE
from ingest.batches.models import (
    BatchItem,
    BatchParticipantOnboardingTask,
    ItemOperation,
    OnboardingReason,
)
from ingest.batches.onboarding import Gaps
from ingest.batches.onboarding_decisions import (
    onboarding_task_resolve as onboarding_task_resolve,  # callers answer tasks from here
)
from ingest.batches.onboarding_decisions import participant_key
from ingest.batches.phases import (
    BatchLeaseHeld as BatchLeaseHeld,  # raised by the phases: callers catch it from here
)
from sports.models import (
    EntityType,
    ExternalIdMap,
    Fixture,
    ParticipantAlias,
)


def people_resolve(
    item: BatchItem, document: dict[str, Any], *, gaps: Gaps | None = None
) -> dict[str, Any]:
    """The evidence for every person the file names (by registry id, never by name) and the
    match itself; an unknown id whose name is already someone else's opens a task, and so
    does each of the file's onboarding ``gaps`` (a listed player with no id, or listed
    under a team that is not the match's)."""
    names: dict[str, str] = document["info"]["registry"]["people"]
    gaps = gaps or Gaps()
    ids = set(names.values())
    known = dict(
        ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.PARTICIPANT, external_id__in=ids
        ).values_list("external_id", "internal_id")
    )
    unknown_names = [name for name, rid in names.items() if rid not in known]
    unknown_names += list(gaps.unidentified)
    namesakes: dict[str, list[str]] = {}
    for name, participant_id in (
        ParticipantAlias.objects.filter(
            source_code=SOURCE, name__in=unknown_names, participant__merged_into__isnull=True
        )
        .values_list("name", "participant_id")
        .order_by("name", "participant_id")
        .distinct()
    ):
        namesakes.setdefault(name, []).append(str(participant_id))
    people = []
    for name, rid in names.items():
        entry: dict[str, Any]
        if rid in known:
            entry = {"resolution": "known", "participant": str(known[rid])}
        elif name in namesakes:
            task = onboarding_task_for(
                item,
                reason=OnboardingReason.NAMESAKE_UNDER_OTHER_ID,
                name=name,
                registry_id=rid,
                candidates=namesakes[name],
            )
            entry = {
                "resolution": "ambiguous",
                "candidates": namesakes[name],
                "task_reference": task.task_reference,
            }
        else:
            entry = {"resolution": "new"}
        people.append({"name": name, "registry_id": rid, **entry})
    for name, team in gaps.unidentified.items():
        task = onboarding_task_for(
            item,
            reason=OnboardingReason.NO_DURABLE_IDENTIFIER,
            name=name,
            registry_id="",
            candidates=namesakes.get(name, []),
            team=team,
        )
        people.append(
            {
                "name": name,
                "registry_id": "",
                "resolution": "unidentified",
                "candidates": task.candidates,
                "task_reference": task.task_reference,
            }
        )
    evidence: dict[str, Any] = {"people": people}
    if gaps.unplaced:
        evidence["placements"] = [
            {
                "name": name,
                "team": team,
                "task_reference": onboarding_task_for(
                    item,
                    reason=OnboardingReason.TEAM_NOT_RECOGNISED,
                    name=name,
                    registry_id=names.get(name, ""),
                    candidates=list(gaps.teams),
                    team=team,
                ).task_reference,
            }
            for name, team in gaps.unplaced.items()
        ]
    fixture_id = (
        ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.FIXTURE, external_id=item.source_identity
        )
        .values_list("internal_id", flat=True)
        .first()
    )
    # fixture_id is None for a match never imported; pk=None then matches no row (the
    # stubs refuse None as a primary-key lookup value).
    fixture = (
        Fixture.objects.filter(pk=fixture_id)  # type: ignore[misc]
        .select_related("first_seen_in")
        .first()
    )
    if fixture is None:
        evidence["fixture"] = {"resolution": "new"}
    elif fixture.first_seen_in is not None and fixture.first_seen_in.sha256 == item.sha256:
        evidence["fixture"] = {"resolution": "same_bytes", "fixture": str(fixture.pk)}
    else:
        # The match is already imported from other bytes: this item is a correction of it.
        item.operation = ItemOperation.CORRECT
        item.corrects_source_identity = item.source_identity
        item.correction_target = fixture
        evidence["fixture"] = {"resolution": "correction_target", "fixture": str(fixture.pk)}
    return evidence


def onboarding_task_for(
    item: BatchItem,
    *,
    reason: str,
    name: str,
    registry_id: str,
    candidates: list[str],
    team: str = "",
) -> BatchParticipantOnboardingTask:
    """The task for one person and reason. A namesake is one task per batch and registry id
    (two files naming the same person share it); a person without an id, or under a team
    not the match's, is one per file (two files' namesakes may be two people)."""
    tasks = BatchParticipantOnboardingTask.objects.filter(batch_id=item.batch_id, reason=reason)
    if reason == OnboardingReason.NAMESAKE_UNDER_OTHER_ID:
        existing = tasks.filter(registry_id=registry_id).first()
    else:
        existing = tasks.filter(item=item, name=name).first()
    if existing is not None:
        return existing
    return BatchParticipantOnboardingTask.objects.create(
        task_reference=f"obt_{secrets.token_urlsafe(18)}",
        batch_id=item.batch_id,
        item=item,
        # An unrecognised team is what the task asks about, so the key leaves it out.
        participant_key=participant_key(
            name=name,
            registry_id=registry_id,
            team="" if reason == OnboardingReason.TEAM_NOT_RECOGNISED else team,
        ),
        name=name,
        registry_id=registry_id,
        team=team,
        reason=reason,
        candidates=candidates,
    )
