"""The console's home page per role: exactly that role's queues, the models the role works
with, and a fixed number of queries."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.access import competition_grant_set
from accounts.services import account_groups_sync
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.tests.batch_factories import BatchFactory

pytestmark = pytest.mark.django_db

HOME = reverse("admin:index")
MERGE_QUEUES = {
    "merge-candidates-brand",
    "merge-candidates-line",
    "merge-candidates-product",
    "merge-candidates-participant",
}
REVIEWER_QUEUES = {"batches-awaiting-review", "onboarding-tasks", "jobs", *MERGE_QUEUES}
EDITOR_QUEUES = REVIEWER_QUEUES | {
    "recent-changes",
    "pending-reverifications",
    "failed-collection-runs",
    "refused-feed-rows",
}


def _console(user) -> Client:
    account_groups_sync(user=user)
    client = Client()
    client.force_login(type(user).objects.get(pk=user.pk))
    return client


def _queues(page: str) -> set[str]:
    return set(re.findall(r'id="queue-([a-z-]+)"', page))


@pytest.mark.parametrize("persona", ["viewer", "submitter"])
def test_people_without_console_access_are_sent_to_sign_in(request, persona):
    response = _console(request.getfixturevalue(persona)).get(HOME)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_a_reviewer_home_lists_exactly_the_reviewers_queues(reviewer):
    page = _console(reviewer).get(HOME).content.decode()
    assert _queues(page) == REVIEWER_QUEUES


def test_an_editor_home_lists_exactly_the_editors_queues(editor):
    page = _console(editor).get(HOME).content.decode()
    assert _queues(page) == EDITOR_QUEUES


def test_the_administrators_home_lists_every_queue(admin_user):
    page = _console(admin_user).get(HOME).content.decode()
    assert _queues(page) == EDITOR_QUEUES


def test_a_reviewer_is_not_offered_the_client_surfaces_or_the_lockout_records(reviewer):
    page = _console(reviewer).get(HOME).content.decode()
    for name in ("Client todos", "Quote requests", "Feature priorit", "Access attempts"):
        assert name not in page
    assert "Merge candidates" in page and "Batches" in page


def test_the_administrator_sees_every_model_with_plurals_spelled_right(admin_user):
    page = _console(admin_user).get(HOME).content.decode()
    assert "Feature priorities" in page and "prioritys" not in page


@pytest.mark.parametrize(
    ("persona", "queries"), [("reviewer", 20), ("editor", 31), ("admin_user", 29)]
)
def test_each_home_page_costs_a_fixed_number_of_queries(
    request, persona, queries, django_assert_num_queries
):
    client = _console(request.getfixturevalue(persona))
    with django_assert_num_queries(queries):
        assert client.get(HOME).status_code == 200


def _awaiting_batch(submitter):
    seed_dismissal_kinds()
    competition_grant_set(user=submitter, competition=None, role=submitter.role, actor=None)
    return services.batch_validate(batch=BatchFactory(submitter=submitter))


def _queue_count(page: str, key: str) -> int:
    found = re.search(rf'id="queue-{key}">\s*<h2>.*?<span class="count">(\d+)</span>', page, re.S)
    assert found, key
    return int(found.group(1))


def test_a_reviewer_without_grants_has_no_batch_waiting_for_them(reviewer, submitter):
    _awaiting_batch(submitter)
    page = _console(reviewer).get(HOME).content.decode()
    assert _queue_count(page, "batches-awaiting-review") == 0


def test_a_reviewer_sees_the_batch_awaiting_review_in_their_competitions(reviewer, submitter):
    batch = _awaiting_batch(submitter)
    competition_grant_set(user=reviewer, competition=None, role=reviewer.role, actor=None)
    page = _console(reviewer).get(HOME).content.decode()
    assert _queue_count(page, "batches-awaiting-review") == 1
    assert reverse("admin:ingest_batch_change", args=[batch.pk]) in page
