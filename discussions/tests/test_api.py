import pytest
from rest_framework.test import APIClient

from discussions import services
from discussions.models import Comment, Notification
from discussions.tests.factories import CommentFactory, DecisionItemFactory, ThreadFactory

pytestmark = pytest.mark.django_db


def _client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_threads_need_a_signed_in_account(anon_client):
    assert anon_client.get("/api/v1/threads/").status_code == 403


def test_thread_list_carries_the_unread_count(viewer, editor, django_assert_num_queries):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="x", actor=editor)
    ThreadFactory()
    client = _client(viewer)
    # The kinds of subject with threads (the readers' filter), then the page.
    with django_assert_num_queries(2):
        response = client.get("/api/v1/threads/")
    assert response.status_code == 200
    counts = {row["id"]: row["unread_count"] for row in response.json()["results"]}
    assert counts[str(thread.pk)] == 1


def test_post_thread_returns_the_records_one_thread(submitter):
    item = DecisionItemFactory()
    body = {"subject_type": "discussions.decisionitem", "subject_id": str(item.pk)}
    first = _client(submitter).post("/api/v1/threads/", body, format="json").json()
    second = _client(submitter).post("/api/v1/threads/", body, format="json").json()
    assert first["id"] == second["id"]
    assert first["subject_type"] == "discussions.decisionitem"


def test_post_thread_for_a_missing_record_is_a_400(viewer):
    body = {"subject_type": "discussions.decisionitem", "subject_id": "0000"}
    assert _client(viewer).post("/api/v1/threads/", body, format="json").status_code == 400


def test_an_account_whose_role_writes_can_comment(submitter):
    thread = ThreadFactory()
    response = _client(submitter).post(
        "/api/v1/comments/", {"thread": str(thread.pk), "body": "hello"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["author"]["username"] == "submitter"


def test_a_viewer_reads_but_cannot_comment(viewer):
    thread = ThreadFactory()
    response = _client(viewer).post(
        "/api/v1/comments/", {"thread": str(thread.pk), "body": "hello"}, format="json"
    )
    assert response.status_code == 403


def test_an_empty_comment_is_a_400(viewer):
    thread = ThreadFactory()
    response = _client(viewer).post(
        "/api/v1/comments/", {"thread": str(thread.pk), "body": "   "}, format="json"
    )
    assert response.status_code == 400


def test_the_author_can_edit_their_comment(viewer):
    comment = CommentFactory(author=viewer)
    response = _client(viewer).patch(
        f"/api/v1/comments/{comment.pk}/", {"body": "fixed"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["edited_at"] is not None


def test_someone_else_cannot_edit_a_comment(viewer, outsider):
    comment = CommentFactory(author=viewer)
    response = _client(outsider).patch(
        f"/api/v1/comments/{comment.pk}/", {"body": "hijack"}, format="json"
    )
    assert response.status_code == 403


def test_someone_else_cannot_delete_a_comment(viewer, outsider):
    comment = CommentFactory(author=viewer)
    assert _client(outsider).delete(f"/api/v1/comments/{comment.pk}/").status_code == 403
    assert Comment.objects.get(pk=comment.pk).deleted_at is None


def test_a_moderator_can_delete_any_comment_leaving_a_tombstone(viewer, editor):
    comment = CommentFactory(author=viewer, body="secret words")
    assert _client(editor).delete(f"/api/v1/comments/{comment.pk}/").status_code == 204
    row = _client(viewer).get(f"/api/v1/comments/{comment.pk}/").json()
    assert row["deleted"] is True
    assert row["body"] is None


def test_comment_list_filters_by_thread_in_constant_queries(viewer, django_assert_num_queries):
    thread = ThreadFactory()
    for _ in range(3):
        CommentFactory(thread=thread)
    CommentFactory()
    client = _client(viewer)
    # One query checks the thread filter's value exists, one finds the kinds of subject
    # with threads (the readers' filter), one reads the page.
    with django_assert_num_queries(3):
        response = client.get("/api/v1/comments/", {"thread": str(thread.pk)})
    assert len(response.json()["results"]) == 3


def test_notifications_list_only_my_own(editor, viewer, outsider, django_assert_num_queries):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="@viewer and @outsider", actor=editor)
    client = _client(viewer)
    with django_assert_num_queries(1):
        rows = client.get("/api/v1/notifications/").json()["results"]
    assert len(rows) == 1
    other = Notification.objects.get(recipient=outsider)
    assert client.get(f"/api/v1/notifications/{other.pk}/").status_code == 404


def test_marking_a_notification_read(editor, viewer):
    services.comment_post(thread=ThreadFactory(), body="@viewer", actor=editor)
    notification = Notification.objects.get(recipient=viewer)
    client = _client(viewer)
    assert client.post(f"/api/v1/notifications/{notification.pk}/read/").status_code == 200
    assert client.get("/api/v1/notifications/", {"unread": "true"}).json()["results"] == []


def test_marking_someone_elses_notification_read_is_a_404(editor, viewer, outsider):
    services.comment_post(thread=ThreadFactory(), body="@viewer", actor=editor)
    notification = Notification.objects.get(recipient=viewer)
    response = _client(outsider).post(f"/api/v1/notifications/{notification.pk}/read/")
    assert response.status_code == 404


def test_read_all(editor, viewer):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="@viewer one", actor=editor)
    services.comment_post(thread=thread, body="@viewer two", actor=editor)
    assert _client(viewer).post("/api/v1/notifications/read-all/").json() == {"marked": 2}


def test_reading_a_thread_through_the_api_clears_its_unread(viewer, editor):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="x", actor=editor)
    response = _client(viewer).post(f"/api/v1/threads/{thread.pk}/read/")
    assert response.status_code == 200
    assert response.json()["unread_count"] == 0
