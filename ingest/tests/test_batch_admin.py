"""The reviewer's console for batches: queue, item-by-item evidence, decisions with a
reason, onboarding answers; viewers and submitters stay out."""

import pytest
from django.test import Client
from django.urls import reverse

from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import BatchState, OnboardingDecision
from ingest.cricsheet.importer import Importer
from ingest.tests.batch_factories import SMALL, BatchFactory, renamed, sample
from sports.models import Fixture

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
QUEUE = reverse("admin:ingest_batch_changelist")
TASKS = reverse("admin:ingest_batchparticipantonboardingtask_changelist")


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _console(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def awaiting(submitter):
    return services.batch_validate(batch=BatchFactory(submitter=submitter))


def test_the_queue_lists_batches_awaiting_review(reviewer, awaiting, django_assert_max_num_queries):
    client = _console(reviewer)
    with django_assert_max_num_queries(12):
        response = client.get(QUEUE, {"state__exact": "awaiting_review"})
    assert response.status_code == 200
    assert str(awaiting.pk) in response.content.decode()


def test_a_batch_shows_each_item_with_its_evidence(reviewer, awaiting):
    response = _console(reviewer).get(reverse("admin:ingest_batch_change", args=[awaiting.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    for match_id in SMALL:
        assert f"{match_id}.json" in page
    assert "resolution evidence" in page.lower()
    assert "registry_id" in page


@pytest.mark.parametrize("persona", ["submitter", "viewer"])
def test_non_reviewers_are_kept_out(persona, request, awaiting):
    user = request.getfixturevalue(persona)
    user.is_staff = True  # even with console access, the role decides
    user.save()
    assert _console(user).get(QUEUE).status_code == 403


def _act(client, action, batch, **extra):
    return client.post(
        QUEUE, {"action": action, "_selected_action": [str(batch.pk)], **extra}, follow=True
    )


def test_approval_asks_for_a_reason_then_publishes(
    reviewer, awaiting, django_capture_on_commit_callbacks, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    client = _console(reviewer)
    page = _act(client, "approve", awaiting)
    assert "reason" in page.content.decode()
    awaiting.refresh_from_db()
    assert awaiting.state == BatchState.AWAITING_REVIEW
    with django_capture_on_commit_callbacks(execute=True):
        _act(client, "approve", awaiting, confirm="yes", reason="looks right")
    awaiting.refresh_from_db()
    assert awaiting.state == BatchState.PUBLISHED
    assert awaiting.review_decisions.get().reason == "looks right"
    assert Fixture.objects.public().count() == 2


def test_rejection_from_the_console_publishes_nothing(reviewer, awaiting):
    _act(_console(reviewer), "reject", awaiting, confirm="yes", reason="duplicate")
    awaiting.refresh_from_db()
    assert awaiting.state == BatchState.REJECTED
    assert not Fixture.objects.exists()


def test_an_editor_cannot_approve_their_own_batch_from_the_console(editor):
    batch = services.batch_validate(batch=BatchFactory(submitter=editor))
    response = _act(_console(editor), "approve", batch, confirm="yes", reason="mine")
    assert "own batch" in response.content.decode()
    batch.refresh_from_db()
    assert batch.state == BatchState.AWAITING_REVIEW


def test_a_task_is_linked_to_its_one_candidate_from_the_console(submitter, reviewer):
    name, raw = sample(SMALL[0])
    Importer().import_file(raw, filename=name)
    files = [renamed(SMALL[1], old_name="KL Cross", new_name="A Learoyd", new_id="0badcafe")]
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter, files=files))
    task = batch.onboarding_tasks.get()
    client = _console(reviewer)
    assert task.task_reference in client.get(TASKS).content.decode()
    client.post(TASKS, {"action": "link_to_candidate", "_selected_action": [str(task.pk)]})
    task.refresh_from_db()
    assert task.decision == OnboardingDecision.LINKED
    assert str(task.participant_id) == task.candidates[0]
