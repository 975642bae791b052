"""A thread is read by exactly those who may read its subject, and written in by those of
them whose role writes: for every role and every kind of subject.

The world is built once for the module (inside a transaction rolled back at the end): a
draft and a published article, an unpublished fixture in a competition one submitter holds
a grant for and a published fixture elsewhere, a staged batch and one of its stored
objects, a product with a public listing and one without. Each subject has a thread with
one comment.

``READS`` is the rule written out per role: the published and the visible are everyone's;
drafts are the editors'; an unpublished fixture is its competition's submitters' and
reviewers'; a batch and its files are their submitter's and the reviewers'; a product no
storefront shows is for the console's readers (staff).
"""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.access import competition_grant_set
from accounts.models import Role
from accounts.services import account_groups_sync
from accounts.tests.factories import StaffFactory, UserFactory
from catalogue.tests.factories import ListingFactory, ProductFactory
from discussions import services
from discussions.models import Comment, Notification, Thread
from discussions.tests.factories import ArticleFactory, ClientTodoFactory
from ingest.models import StoredObject
from ingest.tests.batch_factories import SMALL, BatchFactory, sample
from sports.tests.factories import CompetitionFactory, FixtureFactory, publish

ROLES = ("viewer", "submitter", "stranger", "uploader", "reviewer", "editor", "admin")
SUBJECTS = (
    "article_draft",
    "article_published",
    "fixture_unpublished",
    "fixture_published",
    "batch",
    "stored_object",
    "product_listed",
    "product_unlisted",
)
EVERYONE = frozenset(ROLES)
STAFF = EVERYONE - {"viewer"}

READS = {
    "article_draft": {"editor", "admin"},
    "article_published": EVERYONE,
    # ``submitter`` holds a grant on this fixture's competition, ``stranger`` on another;
    # ``uploader`` and ``reviewer`` hold grants on every competition.
    "fixture_unpublished": {"submitter", "uploader", "reviewer", "editor", "admin"},
    "fixture_published": EVERYONE,
    # ``uploader`` submitted the batch; its stored objects are theirs.
    "batch": {"uploader", "reviewer", "editor", "admin"},
    "stored_object": {"uploader", "reviewer", "editor", "admin"},
    "product_listed": EVERYONE,
    "product_unlisted": STAFF,
}
# Viewers read; every other role writes where it reads.
WRITERS = STAFF

PAIRS = [(role, subject) for role in ROLES for subject in SUBJECTS]


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), transaction.atomic():
        granted, elsewhere = CompetitionFactory(code="GRANTED"), CompetitionFactory(code="ELSE")
        users = {
            "viewer": UserFactory(username="vis-viewer", role=Role.VIEWER),
            "submitter": StaffFactory(username="vis-submitter", role=Role.SUBMITTER),
            "stranger": StaffFactory(username="vis-stranger", role=Role.SUBMITTER),
            "uploader": StaffFactory(username="vis-uploader", role=Role.SUBMITTER),
            "reviewer": StaffFactory(username="vis-reviewer", role=Role.REVIEWER),
            "editor": StaffFactory(username="vis-editor", role=Role.EDITOR),
            "admin": StaffFactory(username="vis-admin", role=Role.ADMIN, is_superuser=True),
        }
        for user in users.values():
            account_groups_sync(user=user)
        grants = {
            "submitter": granted,
            "stranger": elsewhere,
            "uploader": None,
            "reviewer": None,
        }
        for name, competition in grants.items():
            user = users[name]
            competition_grant_set(user=user, competition=competition, role=user.role, actor=None)
        batch = BatchFactory(submitter=users["uploader"], files=[sample(SMALL[0])])
        subjects = {
            "article_draft": ArticleFactory(title="Secret draft"),
            "article_published": ArticleFactory(
                title="Out now", status="published", published_at=timezone.now()
            ),
            "fixture_unpublished": publish(
                FixtureFactory(competition=granted, sport=granted.sport, name="Hidden match"),
                accepted=False,
            ),
            "fixture_published": publish(
                FixtureFactory(competition=elsewhere, sport=elsewhere.sport, name="Open match")
            ),
            "batch": batch,
            "stored_object": StoredObject.objects.get(pk=batch.items.get().stored_object_id),
            "product_listed": ListingFactory().product,
            "product_unlisted": ProductFactory(name="Unlisted 50 ml"),
        }
        threads = {}
        for kind, subject in subjects.items():
            thread = services.thread_for(subject=subject)
            services.comment_post(thread=thread, body=f"note on {kind}", actor=users["admin"])
            threads[kind] = thread
        yield {"users": users, "subjects": subjects, "threads": threads}
        transaction.set_rollback(True)


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _subject_body(subject) -> dict[str, str]:
    kind = ContentType.objects.get_for_model(subject)
    return {"subject_type": f"{kind.app_label}.{kind.model}", "subject_id": str(subject.pk)}


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "subject"), PAIRS)
def test_the_thread_list_holds_a_thread_exactly_for_those_who_may_read_its_subject(
    world, role, subject
):
    thread = world["threads"][subject]
    response = _client(world["users"][role]).get(
        "/api/v1/threads/", {"subject_id": thread.subject_id}
    )
    assert response.status_code == 200
    listed = {row["id"] for row in response.json()["results"]}
    assert (str(thread.pk) in listed) == (role in READS[subject])


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "subject"), PAIRS)
def test_comments_are_read_exactly_by_those_who_may_read_the_subject(world, role, subject):
    thread = world["threads"][subject]
    comment = Comment.objects.get(thread=thread)
    client = _client(world["users"][role])
    listed = client.get("/api/v1/comments/", {"thread": str(thread.pk)}).json()["results"]
    one = client.get(f"/api/v1/comments/{comment.pk}/")
    if role in READS[subject]:
        assert [row["id"] for row in listed] == [str(comment.pk)]
        assert one.status_code == 200
    else:
        assert listed == []
        assert one.status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "subject"), PAIRS)
def test_opening_a_thread_needs_the_read_right_and_a_hidden_record_answers_as_a_missing_one(
    world, role, subject
):
    client = _client(world["users"][role])
    body = _subject_body(world["subjects"][subject])
    response = client.post("/api/v1/threads/", body, format="json")
    if role not in READS[subject]:
        missing = client.post(
            "/api/v1/threads/",
            {**body, "subject_id": "0192f0e0-0000-7000-8000-000000000000"},
            format="json",
        )
        assert (response.status_code, response.json()) == (missing.status_code, missing.json())
        assert response.status_code == 400
    elif role in WRITERS:
        assert response.status_code == 200
        assert response.json()["id"] == str(world["threads"][subject].pk)
    else:
        assert response.status_code == 403


def _thread_error(response) -> str:
    """The message the one error body gives for the ``thread`` field."""
    (error,) = [e for e in response.json()["errors"] if e.get("field") == "thread"]
    return error["message"]


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "subject"), PAIRS)
def test_commenting_needs_the_read_right_and_the_roles_write_right(world, role, subject):
    thread = world["threads"][subject]
    client = _client(world["users"][role])
    response = client.post(
        "/api/v1/comments/", {"thread": str(thread.pk), "body": "mine"}, format="json"
    )
    if role not in READS[subject]:
        missing = client.post(
            "/api/v1/comments/",
            {"thread": "0192f0e0-0000-7000-8000-000000000000", "body": "mine"},
            format="json",
        )
        assert response.status_code == missing.status_code == 400
        # DRF names the key it could not find; the words around it are the same.
        said, said_of_missing = _thread_error(response), _thread_error(missing)
        assert said.replace(str(thread.pk), "?") == said_of_missing.replace(
            "0192f0e0-0000-7000-8000-000000000000", "?"
        )
    elif role in WRITERS:
        assert response.status_code == 201
    else:
        assert response.status_code == 403
        assert not Comment.objects.filter(thread=thread, body="mine").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "subject"), PAIRS)
def test_the_consoles_discussion_panel_posts_only_where_the_record_may_be_read(
    world, role, subject, client
):
    user = world["users"][role]
    subject_row = world["subjects"][subject]
    kind = ContentType.objects.get_for_model(subject_row)
    client.force_login(user)
    url = reverse(
        "discussions:panel-action", kwargs={"type_id": kind.pk, "subject_id": subject_row.pk}
    )
    response = client.post(url, {"op": "comment", "body": "panel", "next": "/"})
    posted = Comment.objects.filter(thread=world["threads"][subject], body="panel").exists()
    if role not in READS[subject]:
        assert response.status_code == 404
    assert posted == (role in READS[subject] and role in WRITERS)


@pytest.mark.django_db
def test_a_mention_never_notifies_someone_who_may_not_read_the_thread(world):
    thread = world["threads"]["fixture_unpublished"]
    services.comment_post(
        thread=thread, body="@vis-stranger @vis-reviewer look", actor=world["users"]["admin"]
    )
    told = set(
        Notification.objects.filter(source_type="discussions.comment", kind="mention")
        .filter(body__contains="look")
        .values_list("recipient__username", flat=True)
    )
    assert told == {"vis-reviewer"}


@pytest.mark.django_db
def test_the_thread_list_costs_the_same_queries_however_many_threads(
    world, django_assert_num_queries
):
    submitter = world["users"]["submitter"]

    def fresh_client() -> APIClient:  # a request loads its account afresh
        return _client(type(submitter).objects.get(pk=submitter.pk))

    # The kinds of subject that have threads; the submitter's grants, as keys then nodes
    # (the fixtures' reader); the account's permissions, from itself and from its group
    # (the products' reader asks whether the console shows it products); the page itself.
    client = fresh_client()
    with django_assert_num_queries(6):
        client.get("/api/v1/threads/")
    for _ in range(3):
        services.thread_for(subject=FixtureFactory())
    client = fresh_client()
    with django_assert_num_queries(6):
        client.get("/api/v1/threads/")


# --- client surfaces ----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_only_the_client_sets_feature_priorities_and_quote_selections(world, role):
    client = _client(world["users"][role])
    ranked = client.post(
        "/api/v1/feature-priorities/", {"feature_key": "maps", "priority": "must"}, format="json"
    )
    chosen = client.post(
        "/api/v1/quote-selections/", {"item_key": "maps", "included": True}, format="json"
    )
    expected = 200 if role == "admin" else 403
    assert (ranked.status_code, chosen.status_code) == (expected, expected)


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_a_todo_and_its_uploads_are_their_owners_and_the_moderators(world, role):
    owner = UserFactory(username="vis-client")
    todo = ClientTodoFactory(owner=owner, title="Send the price list")
    thread = services.thread_for(subject=todo)
    services.comment_post(thread=thread, body="attached", actor=world["users"]["admin"])
    user = world["users"][role]
    listed = {row["id"] for row in _client(user).get("/api/v1/threads/").json()["results"]}
    assert (str(thread.pk) in listed) == (role in {"editor", "admin"})
    if role in {"editor", "admin"}:
        services.todo_complete(todo=todo, actor=user)
    else:
        with pytest.raises(services.PermissionDenied):
            services.todo_complete(todo=todo, actor=user)


@pytest.mark.django_db
def test_the_owner_of_a_todo_reads_its_thread(world):
    owner = StaffFactory(username="vis-owner", role=Role.SUBMITTER)
    todo = ClientTodoFactory(owner=owner)
    thread = services.thread_for(subject=todo)
    listed = {row["id"] for row in _client(owner).get("/api/v1/threads/").json()["results"]}
    assert str(thread.pk) in listed
    assert Thread.objects.readable_by(owner).filter(pk=thread.pk).exists()
