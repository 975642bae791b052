import pytest
from django.contrib.contenttypes.models import ContentType

from discussions import services
from discussions.models import Article, Comment, Thread, ThreadRead
from discussions.tests.factories import (
    ArticleFactory,
    ClientTodoFactory,
    CommentFactory,
    DecisionItemFactory,
)

pytestmark = pytest.mark.django_db


def _panel_url(subject):
    return f"/discussions/{ContentType.objects.get_for_model(subject).pk}/{subject.pk}/"


def test_the_change_page_of_any_record_shows_the_discussion_panel(client, admin_user, viewer):
    client.force_login(admin_user)
    page = client.get(f"/admin/accounts/user/{viewer.pk}/change/").content.decode()
    assert 'id="discussion"' in page
    assert "No comments yet." in page


def test_a_comment_from_the_panel_creates_the_thread_and_lands_there(client, admin_user, editor):
    item = DecisionItemFactory()
    client.force_login(admin_user)
    back = f"/admin/discussions/decisionitem/{item.pk}/change/"
    response = client.post(_panel_url(item), {"op": "comment", "body": "Looks right", "next": back})
    assert response.status_code == 302
    assert response["Location"] == back
    thread = Thread.objects.for_subject(item).get()
    assert thread.comments.get().body == "Looks right"
    assert "Looks right" in client.get(back).content.decode()


def test_the_panel_shows_a_tombstone_for_a_deleted_comment(client, admin_user, editor):
    item = DecisionItemFactory()
    thread = services.thread_for(subject=item)
    comment = services.comment_post(thread=thread, body="to be removed", actor=editor)
    services.comment_delete(comment=comment, actor=editor)
    client.force_login(admin_user)
    page = client.get(f"/admin/discussions/decisionitem/{item.pk}/change/").content.decode()
    assert "Comment deleted" in page
    assert "to be removed" not in page


def test_the_panel_shows_the_unread_badge(client, admin_user, editor, reviewer):
    item = DecisionItemFactory()
    services.comment_post(thread=services.thread_for(subject=item), body="new", actor=reviewer)
    client.force_login(admin_user)
    page = client.get(f"/admin/discussions/decisionitem/{item.pk}/change/").content.decode()
    assert "1 unread" in page


def test_the_read_post_moves_the_read_mark(client, editor):
    item = DecisionItemFactory()
    services.thread_for(subject=item)
    client.force_login(editor)
    client.post(_panel_url(item), {"op": "read", "next": "/"})
    assert ThreadRead.objects.filter(user=editor).exists()


def test_panel_ack_flag_and_ask(client, editor, viewer, submitter):
    item = DecisionItemFactory()
    comment = services.comment_post(
        thread=services.thread_for(subject=item), body="x", actor=submitter
    )
    client.force_login(editor)
    url = _panel_url(item)
    client.post(url, {"op": "ack", "comment": comment.pk})
    client.post(url, {"op": "flag", "comment": comment.pk})
    client.post(url, {"op": "ask", "for_username": "viewer", "note": "confirm", "kind": "confirm"})
    assert comment.acks.filter(user=editor).exists()
    assert comment.flags.filter(user=editor).exists()
    assert comment.thread.asks.get().for_user == viewer


def test_the_panel_refuses_deleting_someone_elses_comment(client, submitter, outsider):
    item = DecisionItemFactory()
    comment = services.comment_post(
        thread=services.thread_for(subject=item), body="x", actor=submitter
    )
    client.force_login(outsider)
    client.post(_panel_url(item), {"op": "delete", "comment": comment.pk})
    assert Comment.objects.get(pk=comment.pk).deleted_at is None


def test_the_panel_never_redirects_off_site(client, editor):
    item = DecisionItemFactory()
    client.force_login(editor)
    response = client.post(_panel_url(item), {"op": "read", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_the_inbox_lists_my_notifications_and_marks_them_read(
    client, editor, viewer, django_assert_num_queries
):
    services.comment_post(
        thread=services.thread_for(subject=DecisionItemFactory()), body="@viewer hi", actor=editor
    )
    client.force_login(viewer)
    client.get("/notifications/")
    # The session, the user, the list, the unread count, the mail preference, and the
    # header's unread count (every page's shell shows it to a signed-in reader).
    with django_assert_num_queries(6):
        page = client.get("/notifications/").content.decode()
    assert "(1 unread)" in page
    client.post("/notifications/", {"all": "1"})
    assert "(0 unread)" in client.get("/notifications/").content.decode()


def test_the_inbox_needs_a_sign_in(client):
    assert client.get("/notifications/").status_code == 302


@pytest.mark.parametrize(
    "url",
    [
        "/admin/discussions/thread/",
        "/admin/discussions/comment/",
        "/admin/discussions/notification/",
        "/admin/accounts/emailsend/",
        "/admin/discussions/decisionitem/",
        "/admin/discussions/featurepriority/",
        "/admin/discussions/quoteselection/",
        "/admin/discussions/quoterequest/",
        "/admin/discussions/clienttodo/",
        "/admin/discussions/article/",
        "/admin/discussions/article/add/",
    ],
)
def test_discussion_admin_pages_render(client, admin_user, url):
    client.force_login(admin_user)
    assert client.get(url).status_code == 200


def test_thread_and_todo_change_pages_render(client, admin_user):
    comment = CommentFactory()
    todo = ClientTodoFactory()
    client.force_login(admin_user)
    assert client.get(f"/admin/discussions/thread/{comment.thread.pk}/change/").status_code == 200
    assert client.get(f"/admin/discussions/clienttodo/{todo.pk}/change/").status_code == 200


def test_article_admin_saves_through_the_service_and_publishes_by_action(client, admin_user):
    client.force_login(admin_user)
    client.post(
        "/admin/discussions/article/add/",
        {"slug": "new-one", "title": "New one", "kind": "article", "body_md": "text"},
    )
    article = Article.objects.get(slug="new-one")
    client.post(
        "/admin/discussions/article/", {"action": "publish", "_selected_action": [article.pk]}
    )
    article.refresh_from_db()
    assert article.status == "published"


def test_the_article_admin_has_no_delete(client, admin_user):
    article = ArticleFactory()
    client.force_login(admin_user)
    assert client.post(f"/admin/discussions/article/{article.pk}/delete/").status_code == 403


def test_turning_notification_mail_off_from_the_inbox(client, viewer):
    from accounts.models import AccountPreference

    client.force_login(viewer)
    client.post("/notifications/", {"mail": "off"})
    assert AccountPreference.objects.get(user=viewer).mail_notifications is False
    assert "e-mails are off" in client.get("/notifications/").content.decode()


def test_the_todo_done_action_goes_through_the_service(client, admin_user):
    todo = ClientTodoFactory()
    client.force_login(admin_user)
    client.post(
        "/admin/discussions/clienttodo/", {"action": "mark_done", "_selected_action": [todo.pk]}
    )
    todo.refresh_from_db()
    assert (todo.status, todo.completed_by) == ("done", admin_user)


def test_the_panel_links_to_the_records_audit_log(client, admin_user):
    item = DecisionItemFactory()
    client.force_login(admin_user)
    page = client.get(f"/admin/discussions/decisionitem/{item.pk}/change/").content.decode()
    assert f"entity_type=discussions.decisionitem&amp;entity_key={item.pk}" in page


def test_the_panel_costs_the_same_queries_however_long_the_thread(client, admin_user, editor):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    item = DecisionItemFactory()
    thread = services.thread_for(subject=item)
    url = f"/admin/discussions/decisionitem/{item.pk}/change/"
    client.force_login(admin_user)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    services.comment_post(thread=thread, body="one", actor=editor)
    short = count()
    for n in range(5):
        comment = services.comment_post(thread=thread, body=f"more {n}", actor=editor)
        services.comment_ack(comment=comment, actor=admin_user)
    assert count() == short


def test_article_change_page_renders(client, admin_user):
    article = ArticleFactory()
    client.force_login(admin_user)
    assert client.get(f"/admin/discussions/article/{article.pk}/change/").status_code == 200


def test_editing_my_comment_from_the_panel(client, submitter):
    item = DecisionItemFactory()
    comment = services.comment_post(
        thread=services.thread_for(subject=item), body="tpyo", actor=submitter
    )
    client.force_login(submitter)
    client.post(_panel_url(item), {"op": "edit", "comment": comment.pk, "body": "typo"})
    comment.refresh_from_db()
    assert (comment.body, comment.edited_at is not None) == ("typo", True)


def test_the_move_action_refiles_comments_with_the_record(client, admin_user):
    comment = CommentFactory()
    origin = comment.thread
    target = CommentFactory().thread
    client.force_login(admin_user)
    url = "/admin/discussions/comment/"
    page = client.post(url, {"action": "move", "_selected_action": [comment.pk]})
    assert page.status_code == 200
    client.post(
        url,
        {
            "action": "move",
            "_selected_action": [comment.pk],
            "confirm": "yes",
            "to_thread": target.pk,
        },
    )
    comment.refresh_from_db()
    assert (comment.thread, comment.moved_from_thread, comment.moved_by) == (
        target, origin, admin_user,
    )  # fmt: skip
