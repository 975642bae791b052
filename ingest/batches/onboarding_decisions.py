"""A reviewer's answer to an onboarding task: link the listed person to an existing
participant or a new one, give the registry id a file lacks, or place a player in one of
the match's two teams. ``ingest.batches.services`` re-exports the service."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import audit_record
from cricket.services import SOURCE
from ingest.batches.models import (
    ONBOARDING_ANSWERS,
    BatchParticipantOnboardingTask,
    OnboardingDecision,
    OnboardingReason,
)
from ingest.batches.permissions import (
    review_refusal,
)
from ingest.batches.phases import (
    BatchLeaseHeld as BatchLeaseHeld,  # raised by the phases: callers catch it from here
)
from ingest.cricsheet.validate import REGISTRY_ID_MAX
from sports.models import (
    EntityType,
    ExternalIdMap,
    LinkOrigin,
    Participant,
)
from sports.services.common import actor_label


def participant_key(*, name: str, registry_id: str, team: str = "") -> str:
    """How onboarding finds a person's task: by the source's id where the file gives one,
    else by name and team. An answer can change it, so no decision addresses a task by it."""
    return f"source:{registry_id}" if registry_id else f"name:{name}::{team}"


@transaction.atomic
def onboarding_task_resolve(
    *,
    task_reference: str,
    reviewer: User,
    participant: Participant | None = None,
    create: bool = False,
    registry_id: str = "",
    team: str = "",
) -> BatchParticipantOnboardingTask:
    """Answer a task, with the answer its reason takes (``ONBOARDING_ANSWERS``):

    - ``namesake_under_other_id``: ``participant`` links the registry id to that existing
      person (the id-map row is written now); ``create=True`` accepts that the file names
      a new person, created under the file's registry id when the batch publishes.
    - ``no_durable_identifier``: ``registry_id`` is the person's id (publication lists it
      in the file's registry: a known id is its person, a new one a new person), or
      ``participant`` names the existing person, whose registry id is used.
    - ``team_not_recognised``: ``team``, one of the match's two teams, is where the person
      played (publication lists them there).
    """
    task = (
        BatchParticipantOnboardingTask.objects.select_for_update()
        .select_related("batch")
        .filter(task_reference=task_reference)
        .first()
    )
    if task is None:
        raise ValidationError(f"no onboarding task {task_reference!r}")
    refusal = review_refusal(reviewer, task.batch)
    if refusal:
        raise PermissionDenied(refusal)
    if task.decision != OnboardingDecision.OUTSTANDING:
        raise ValidationError(f"onboarding task {task_reference} is already {task.decision}")
    given = {
        "participant": participant is not None,
        "create": create,
        "registry_id": bool(registry_id.strip()),
        "team": bool(team.strip()),
    }
    takes = {
        OnboardingReason.NAMESAKE_UNDER_OTHER_ID: ("participant", "create"),
        OnboardingReason.NO_DURABLE_IDENTIFIER: ("participant", "registry_id"),
        OnboardingReason.TEAM_NOT_RECOGNISED: ("team",),
    }[OnboardingReason(task.reason)]
    answers = [name for name, present in given.items() if present]
    if len(answers) != 1 or answers[0] not in takes:
        raise ValidationError(
            f"onboarding task {task_reference} ({task.get_reason_display().lower()}) is "
            f"answered with exactly one of: {', '.join(takes)}"
        )
    if task.reason == OnboardingReason.NAMESAKE_UNDER_OTHER_ID:
        if participant is not None:
            _link_registry_id(task, participant, reviewer=reviewer)
            task.decision, task.participant = OnboardingDecision.LINKED, participant
        else:
            task.decision = OnboardingDecision.CREATE
    elif task.reason == OnboardingReason.NO_DURABLE_IDENTIFIER:
        if participant is not None:
            task.registry_id = _registry_id_of(participant)
            task.decision, task.participant = OnboardingDecision.LINKED, participant
        else:
            task.registry_id = _new_registry_id(task, registry_id.strip())
            task.decision = OnboardingDecision.IDENTIFIED
        task.participant_key = participant_key(name=task.name, registry_id=task.registry_id)
    else:
        team = team.strip()
        if team not in task.candidates:
            raise ValidationError(
                f"{team!r} is not one of the match's teams: {', '.join(task.candidates)}"
            )
        task.placed_in, task.decision = team, OnboardingDecision.PLACED
        task.participant_key = participant_key(
            name=task.name, registry_id=task.registry_id, team=team
        )
    if task.decision not in ONBOARDING_ANSWERS[task.reason]:  # the database holds it too
        raise ValueError(f"{task.decision} does not answer {task.reason}")
    task.resolved_by, task.resolved_at = reviewer, timezone.now()
    task.save(
        update_fields=[
            "decision",
            "participant",
            "registry_id",
            "placed_in",
            "participant_key",
            "resolved_by",
            "resolved_at",
        ]
    )
    audit_record(
        actor=reviewer,
        action="ingest.onboarding_task_resolve",
        entity=task,
        key=task.task_reference,
        detail={
            "batch": str(task.batch_id),
            "reason": task.reason,
            "registry_id": task.registry_id,
            "decision": task.decision,
            "participant": str(participant.pk) if participant else None,
            "placed_in": task.placed_in,
        },
    )
    return task


def _link_registry_id(
    task: BatchParticipantOnboardingTask, participant: Participant, *, reviewer: User
) -> None:
    if participant.merged_into_id is not None:
        raise ValidationError(f"participant {participant.pk} was merged; link its survivor")
    taken = ExternalIdMap.objects.filter(
        source_code=SOURCE, entity_type=EntityType.PARTICIPANT, external_id=task.registry_id
    ).first()
    if taken is not None:
        raise ValidationError(
            f"registry id {task.registry_id} is already linked to {taken.internal_id}"
        )
    ExternalIdMap.objects.create(
        source_code=SOURCE,
        entity_type=EntityType.PARTICIPANT,
        external_id=task.registry_id,
        internal_id=participant.pk,
        origin=LinkOrigin.ONBOARDING,
        created_by=actor_label(reviewer),
    )


def _registry_id_of(participant: Participant) -> str:
    """The Cricsheet registry id of an existing person, which a file without one takes."""
    if participant.merged_into_id is not None:
        raise ValidationError(f"participant {participant.pk} was merged; name its survivor")
    found = (
        ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.PARTICIPANT, internal_id=participant.pk
        )
        .order_by("external_id")
        .values_list("external_id", flat=True)
        .first()
    )
    if found is None:
        raise ValidationError(
            f"{participant} has no Cricsheet registry id; answer with the registry id instead"
        )
    return found


def _new_registry_id(task: BatchParticipantOnboardingTask, registry_id: str) -> str:
    """A reviewer's registry id for a person: short enough, one word, and not another
    person's in the same file."""
    if len(registry_id) > REGISTRY_ID_MAX or any(ch.isspace() for ch in registry_id):
        raise ValidationError(
            f"registry id {registry_id!r}: one word of at most {REGISTRY_ID_MAX} characters"
        )
    others = {
        person["registry_id"]: person["name"]
        for person in task.item.resolution.get("people", [])
        if person.get("registry_id") and person["name"] != task.name
    }
    if registry_id in others:
        raise ValidationError(
            f"registry id {registry_id} is {others[registry_id]}'s in {task.item.filename}; "
            f"{task.name} is another person"
        )
    return registry_id
