"""Participant onboarding tasks: an unknown registry id whose name is already someone
else's waits for a reviewer instead of becoming a person by guesswork."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q

from cricket.models import Delivery
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import BatchState, OnboardingDecision
from ingest.cricsheet.importer import Importer
from ingest.tests.batch_factories import SMALL, BatchFactory, renamed, sample
from sports.models import EntityType, ExternalIdMap, Participant, ParticipantAlias

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
NEW_ID = "0badcafe"


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


@pytest.fixture
def namesake_batch(submitter):
    """Match 1226909 is already imported; the batch's copy of 1398272 names "A Learoyd"
    under a registry id nobody has."""
    name, raw = sample(SMALL[0])
    Importer().import_file(raw, filename=name)
    files = [renamed(SMALL[1], old_name="KL Cross", new_name="A Learoyd", new_id=NEW_ID)]
    return services.batch_validate(batch=BatchFactory(submitter=submitter, files=files))


def _existing_learoyd():
    return Participant.objects.get(
        pk=ParticipantAlias.objects.get(name="A Learoyd", source_code="cricsheet").participant_id
    )


def test_an_unknown_id_with_a_namesake_opens_a_task_and_awaits_review(namesake_batch):
    assert namesake_batch.state == BatchState.AWAITING_REVIEW
    task = namesake_batch.onboarding_tasks.get()
    assert (task.name, task.registry_id) == ("A Learoyd", NEW_ID)
    assert task.candidates == [str(_existing_learoyd().pk)]
    assert task.task_reference.startswith("obt_")
    evidence = {p["name"]: p for p in namesake_batch.items.get().resolution["people"]}
    assert evidence["A Learoyd"]["resolution"] == "ambiguous"
    assert evidence["A Learoyd"]["task_reference"] == task.task_reference


def test_approval_waits_for_outstanding_tasks(namesake_batch, reviewer):
    task = namesake_batch.onboarding_tasks.get()
    with pytest.raises(ValidationError, match=task.task_reference):
        services.batch_review(batch=namesake_batch, reviewer=reviewer, approve=True, reason="ok")


def test_a_rejection_does_not_wait_for_tasks(namesake_batch, reviewer):
    batch = services.batch_review(
        batch=namesake_batch, reviewer=reviewer, approve=False, reason="not this one"
    )
    assert batch.state == BatchState.REJECTED


def test_linking_writes_the_id_map_and_publication_uses_the_existing_person(
    namesake_batch, reviewer
):
    task = namesake_batch.onboarding_tasks.get()
    existing = _existing_learoyd()
    services.onboarding_task_resolve(
        task_reference=task.task_reference, reviewer=reviewer, participant=existing
    )
    task.refresh_from_db()
    assert (task.decision, task.participant, task.resolved_by) == ("linked", existing, reviewer)
    assert (
        ExternalIdMap.objects.get(
            entity_type=EntityType.PARTICIPANT, external_id=NEW_ID
        ).internal_id
        == existing.pk
    )
    services.batch_review(batch=namesake_batch, reviewer=reviewer, approve=True, reason="ok")
    services.batch_publish(batch=namesake_batch, worker="w1")
    fixture = namesake_batch.items.get().fixture
    played = Q(batter=existing) | Q(bowler=existing) | Q(non_striker=existing)
    assert Delivery.objects.filter(played, innings__fixture=fixture).exists()


def test_accepting_creation_makes_a_new_person_at_publication(namesake_batch, reviewer):
    task = namesake_batch.onboarding_tasks.get()
    existing = _existing_learoyd()
    services.onboarding_task_resolve(
        task_reference=task.task_reference, reviewer=reviewer, create=True
    )
    assert not ExternalIdMap.objects.filter(external_id=NEW_ID).exists()
    services.batch_review(batch=namesake_batch, reviewer=reviewer, approve=True, reason="ok")
    services.batch_publish(batch=namesake_batch, worker="w1")
    created = ExternalIdMap.objects.get(entity_type=EntityType.PARTICIPANT, external_id=NEW_ID)
    assert created.internal_id != existing.pk


def test_a_task_is_answered_once(namesake_batch, reviewer):
    task = namesake_batch.onboarding_tasks.get()
    services.onboarding_task_resolve(
        task_reference=task.task_reference, reviewer=reviewer, create=True
    )
    with pytest.raises(ValidationError, match="already create"):
        services.onboarding_task_resolve(
            task_reference=task.task_reference, reviewer=reviewer, create=True
        )


def test_the_submitter_cannot_answer_their_own_batchs_task(namesake_batch, submitter):
    task = namesake_batch.onboarding_tasks.get()
    with pytest.raises(PermissionDenied):
        services.onboarding_task_resolve(
            task_reference=task.task_reference, reviewer=submitter, create=True
        )
    task.refresh_from_db()
    assert task.decision == OnboardingDecision.OUTSTANDING


def test_an_unknown_reference_is_named(reviewer):
    with pytest.raises(ValidationError, match="obt_nope"):
        services.onboarding_task_resolve(task_reference="obt_nope", reviewer=reviewer, create=True)


def test_an_unknown_id_without_a_namesake_is_simply_new(submitter):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    assert not batch.onboarding_tasks.exists()
