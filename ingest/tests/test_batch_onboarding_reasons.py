"""Every onboarding reason a batch can hold, each with its resolution: a listed player
with no registry id (``no_durable_identifier``), a player under a team that is not the
match's (``team_not_recognised``); and batches superseded by a later one for the same
files."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import (
    Batch,
    BatchParticipantOnboardingTask,
    BatchState,
    ItemOutcome,
    OnboardingDecision,
    OnboardingReason,
)
from ingest.cricsheet.importer import Importer
from ingest.tests.batch_factories import SMALL, BatchFactory, sample
from sports.models import (
    EntityType,
    ExternalIdMap,
    FixtureCompetitor,
    Participant,
    ParticipantType,
)

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
MATCH = SMALL[1]  # Pakistan v England, women's ODI
UNLISTED = "Muneeba Ali"  # listed for Pakistan, named nowhere else in the file
MOVED = "ME Bouchier"  # listed for England, named nowhere else in the file
TASKS = reverse("admin:ingest_batchparticipantonboardingtask_changelist")


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _edited(edit) -> tuple[str, bytes]:
    name, raw = sample(MATCH)
    document = json.loads(raw)
    edit(document["info"])
    return name, json.dumps(document).encode()


def without_id(name: str = UNLISTED) -> tuple[str, bytes]:
    """The match with ``name`` still listed in their team but missing from the registry."""
    return _edited(lambda info: info["registry"]["people"].pop(name))


def under_team(team: str, name: str = MOVED) -> tuple[str, bytes]:
    """The match with ``name`` listed under ``team`` instead of England."""

    def edit(info):
        info["players"]["England"].remove(name)
        info["players"][team] = [name]

    return _edited(edit)


def staged(submitter, *files):
    return services.batch_validate(batch=BatchFactory(submitter=submitter, files=list(files)))


def publish(batch, reviewer):
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="checked")
    return services.batch_publish(batch=batch, worker="w1")


def squad_of(batch, team):
    fixture = batch.items.get().fixture
    return set(
        FixtureCompetitor.objects.filter(
            fixture=fixture, parent__participant__name__startswith=team
        ).values_list("participant__name", flat=True)
    )


def test_a_listed_player_without_a_registry_id_opens_a_no_durable_identifier_task(submitter):
    batch = staged(submitter, without_id())

    assert batch.state == BatchState.AWAITING_REVIEW
    assert batch.items.get().outcome == ItemOutcome.VALID
    task = batch.onboarding_tasks.get()
    assert (task.reason, task.name, task.registry_id, task.team) == (
        OnboardingReason.NO_DURABLE_IDENTIFIER,
        UNLISTED,
        "",
        "Pakistan",
    )
    assert task.participant_key == f"name:{UNLISTED}::Pakistan"


def test_no_durable_identifier_answered_with_an_id_publishes_them_under_it(submitter, reviewer):
    batch = staged(submitter, without_id())
    task = batch.onboarding_tasks.get()

    services.onboarding_task_resolve(
        task_reference=task.task_reference, reviewer=reviewer, registry_id="feedf00d"
    )
    task.refresh_from_db()
    assert (task.decision, task.participant_key) == (
        OnboardingDecision.IDENTIFIED,
        "source:feedf00d",
    )
    publish(batch, reviewer)

    assert ExternalIdMap.objects.filter(
        entity_type=EntityType.PARTICIPANT, external_id="feedf00d"
    ).exists()
    assert UNLISTED in squad_of(batch, "Pakistan")


def test_no_durable_identifier_answered_with_a_participant_takes_their_id(submitter, reviewer):
    name, raw = sample(SMALL[0])
    Importer().import_file(raw, filename=name)
    people = Participant.objects.filter(type=ParticipantType.PERSON).values("pk")
    known = ExternalIdMap.objects.filter(
        entity_type=EntityType.PARTICIPANT, internal_id__in=people
    ).first()
    existing = Participant.objects.get(pk=known.internal_id)
    batch = staged(submitter, without_id())
    task = batch.onboarding_tasks.get()

    services.onboarding_task_resolve(
        task_reference=task.task_reference, reviewer=reviewer, participant=existing
    )
    publish(batch, reviewer)

    task.refresh_from_db()
    assert (task.decision, task.registry_id) == (OnboardingDecision.LINKED, known.external_id)
    assert existing.name in squad_of(batch, "Pakistan")


def test_an_id_already_another_persons_in_the_file_is_refused(submitter, reviewer):
    batch = staged(submitter, without_id())
    task = batch.onboarding_tasks.get()
    taken = json.loads(sample(MATCH)[1])["info"]["registry"]["people"]["Sidra Ameen"]

    with pytest.raises(ValidationError, match="Sidra Ameen"):
        services.onboarding_task_resolve(
            task_reference=task.task_reference, reviewer=reviewer, registry_id=taken
        )


def test_a_player_under_a_team_not_the_matchs_opens_a_team_not_recognised_task(submitter):
    batch = staged(submitter, under_team("North XI"))

    assert batch.state == BatchState.AWAITING_REVIEW
    task = batch.onboarding_tasks.get()
    assert (task.reason, task.name, task.team) == (
        OnboardingReason.TEAM_NOT_RECOGNISED,
        MOVED,
        "North XI",
    )
    assert task.candidates == ["Pakistan", "England"]
    assert task.participant_key == f"source:{task.registry_id}"


def test_team_not_recognised_answered_with_a_team_publishes_them_in_it(submitter, reviewer):
    batch = staged(submitter, under_team("North XI"))
    task = batch.onboarding_tasks.get()

    services.onboarding_task_resolve(
        task_reference=task.task_reference, reviewer=reviewer, team="England"
    )
    publish(batch, reviewer)

    task.refresh_from_db()
    assert (task.decision, task.placed_in) == (OnboardingDecision.PLACED, "England")
    assert MOVED in squad_of(batch, "England")


def test_a_team_answer_must_be_one_of_the_matchs_teams(submitter, reviewer):
    batch = staged(submitter, under_team("North XI"))
    task = batch.onboarding_tasks.get()

    with pytest.raises(ValidationError, match="not one of the match's teams"):
        services.onboarding_task_resolve(
            task_reference=task.task_reference, reviewer=reviewer, team="North XI"
        )


def test_an_answer_the_reason_does_not_take_is_refused(submitter, reviewer):
    batch = staged(submitter, without_id())
    task = batch.onboarding_tasks.get()

    with pytest.raises(ValidationError, match="participant, registry_id"):
        services.onboarding_task_resolve(
            task_reference=task.task_reference, reviewer=reviewer, create=True
        )


def test_a_file_with_other_problems_besides_the_gaps_stays_invalid(submitter):
    def edit(info):
        info["registry"]["people"].pop(UNLISTED)
        info["toss"]["winner"] = "Nobody"

    batch = staged(submitter, _edited(edit))

    assert batch.state == BatchState.INVALID
    assert not batch.onboarding_tasks.exists()
    rules = {p["rule"] for p in batch.items.get().problems}
    assert {"registry", "team"} <= rules


def test_the_database_holds_a_decision_to_the_answers_of_its_reason(submitter, reviewer):
    task = staged(submitter, under_team("North XI")).onboarding_tasks.get()
    with (
        pytest.raises(IntegrityError, match="onboarding_task_decision_fits_reason"),
        transaction.atomic(),
    ):
        BatchParticipantOnboardingTask.objects.filter(pk=task.pk).update(
            decision=OnboardingDecision.CREATE, resolved_by=reviewer, resolved_at=timezone.now()
        )


def test_a_reviewer_gives_a_registry_id_from_the_console(submitter, reviewer):
    task = staged(submitter, without_id()).onboarding_tasks.get()
    client = Client()
    client.force_login(reviewer)
    listing = client.get(TASKS).content.decode()
    assert "Listed in a team with no registry id" in listing

    chosen = {"action": "give_registry_id", "_selected_action": [str(task.pk)]}
    assert "registry_id" in client.post(TASKS, chosen).content.decode()
    client.post(TASKS, {**chosen, "confirm": "yes", "registry_id": "feedf00d"})

    task.refresh_from_db()
    assert (task.decision, task.registry_id) == (OnboardingDecision.IDENTIFIED, "feedf00d")


def test_a_reviewer_places_a_player_in_a_team_from_the_console(submitter, reviewer):
    task = staged(submitter, under_team("North XI")).onboarding_tasks.get()
    client = Client()
    client.force_login(reviewer)
    chosen = {"action": "place_in_team", "_selected_action": [str(task.pk)]}
    assert "England" in client.post(TASKS, chosen).content.decode()

    client.post(TASKS, {**chosen, "confirm": "yes", "team": "England"})

    task.refresh_from_db()
    assert (task.decision, task.placed_in) == (OnboardingDecision.PLACED, "England")


def test_the_api_answers_a_team_not_recognised_task(submitter, reviewer):
    batch = staged(submitter, under_team("North XI"))
    task = batch.onboarding_tasks.get()
    client = APIClient()
    client.force_authenticate(reviewer)

    response = client.post(
        f"/api/v1/batches/{batch.pk}/onboarding/",
        {"task_reference": task.task_reference, "team": "Pakistan"},
        format="json",
    )

    assert response.status_code == 200, response.content
    assert (response.json()["decision"], response.json()["placed_in"]) == ("placed", "Pakistan")


def test_batch_for_same_files_supersedes_earlier(submitter):
    first = BatchFactory(submitter=submitter)
    later = BatchFactory(submitter=submitter)

    first.refresh_from_db()
    assert first.superseded_by == later
    assert later.superseded_by is None


def test_a_batch_for_more_files_supersedes_one_for_some_of_them(submitter):
    first = BatchFactory(submitter=submitter, files=[sample(SMALL[0])])
    BatchFactory(submitter=submitter, files=[sample(SMALL[1])])
    later = BatchFactory(submitter=submitter)

    assert list(Batch.objects.filter(superseded_by=later).order_by("created_at")) == [
        first,
        Batch.objects.get(items__source_identity=SMALL[1], superseded_by=later),
    ]


def test_a_batch_for_other_files_supersedes_nothing(submitter):
    first = BatchFactory(submitter=submitter)
    BatchFactory(submitter=submitter, files=[sample(SMALL[0])])

    first.refresh_from_db()
    assert first.superseded_by is None


def test_a_superseded_batch_cannot_be_approved(submitter, reviewer):
    first = services.batch_validate(batch=BatchFactory(submitter=submitter))
    later = BatchFactory(submitter=submitter)

    with pytest.raises(ValidationError, match=f"superseded by batch {later.pk}"):
        services.batch_review(batch=first, reviewer=reviewer, approve=True, reason="ok")


def test_a_revision_of_a_known_match_with_a_gap_stays_invalid(submitter):
    name, raw = sample(MATCH)
    Importer().import_file(raw, filename=name)

    batch = staged(submitter, without_id())

    assert batch.state == BatchState.INVALID
    assert not batch.onboarding_tasks.exists()


def test_the_review_page_names_a_superseded_batch(submitter, reviewer):
    first = services.batch_validate(batch=BatchFactory(submitter=submitter))
    BatchFactory(submitter=submitter)
    client = Client()
    client.force_login(reviewer)

    page = client.get(reverse("admin:ingest_batch_change", args=[first.pk]))

    assert "a later batch for the same files" in page.content.decode()
