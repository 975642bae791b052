import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from accounts.models import AuditEntry
from discussions import services
from discussions.models import Comment, Notification, Thread
from discussions.tests.factories import CommentFactory, DecisionItemFactory, ThreadFactory

pytestmark = pytest.mark.django_db


def test_a_subject_has_one_thread():
    item = DecisionItemFactory()
    assert services.thread_for(subject=item) == services.thread_for(subject=item)
    assert Thread.objects.for_subject(item).count() == 1


def test_the_database_refuses_a_second_thread_on_a_subject():
    thread = ThreadFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Thread.objects.create(subject_type=thread.subject_type, subject_id=thread.subject_id)


def test_any_record_can_be_a_subject(editor):
    thread = services.thread_for(subject=editor)
    assert thread.subject == editor


def test_posting_a_comment_is_audited_with_the_real_actor(admin_user, submitter):
    thread = ThreadFactory()
    comment = services.comment_post(thread=thread, body="hi", actor=admin_user, acting_as=submitter)
    assert comment.author == submitter
    entry = AuditEntry.objects.get(action="comment.post")
    assert (entry.actor, entry.acting_as) == (admin_user, submitter)


def test_a_deleted_comment_stays_as_a_tombstone_in_its_thread(viewer):
    comment = CommentFactory(author=viewer, body="regrettable")
    services.comment_delete(comment=comment, actor=viewer)
    comment.refresh_from_db()
    assert comment in comment.thread.comments.all()
    assert comment.is_deleted
    assert comment.deleted_by == viewer
    assert comment.shown_body == ""
    assert comment not in Comment.objects.live()


def test_editing_keeps_the_edit_time(viewer):
    comment = CommentFactory(author=viewer)
    services.comment_edit(comment=comment, body="better words", actor=viewer)
    comment.refresh_from_db()
    assert comment.body == "better words"
    assert comment.edited_at is not None


def test_nobody_edits_someone_elses_comment(viewer, outsider):
    comment = CommentFactory(author=viewer)
    with pytest.raises(PermissionDenied):
        services.comment_edit(comment=comment, body="mine now", actor=outsider)


def test_a_moderator_may_delete_any_comment(viewer, editor):
    comment = CommentFactory(author=viewer)
    services.comment_delete(comment=comment, actor=editor)
    comment.refresh_from_db()
    assert comment.is_deleted


def test_moving_a_comment_records_from_where_by_whom_and_when(editor):
    comment = CommentFactory()
    origin = comment.thread
    target = ThreadFactory()
    services.comment_move(comment=comment, to_thread=target, actor=editor)
    comment.refresh_from_db()
    assert comment.thread == target
    assert (comment.moved_from_thread, comment.moved_by) == (origin, editor)
    assert comment.moved_at is not None


def test_only_moderators_move_comments(viewer):
    comment = CommentFactory(author=viewer)
    with pytest.raises(PermissionDenied):
        services.comment_move(comment=comment, to_thread=ThreadFactory(), actor=viewer)


def test_followup_is_all_or_nothing_in_the_database(editor):
    thread = ThreadFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Thread.objects.filter(pk=thread.pk).update(followup_note="half a mark")


def test_followup_set_and_clear(editor):
    thread = services.thread_followup_set(thread=ThreadFactory(), note="check prices", actor=editor)
    assert (thread.followup_note, thread.followup_by) == ("check prices", editor)
    thread = services.thread_followup_clear(thread=thread, actor=editor)
    assert (thread.followup_note, thread.followup_by, thread.followup_at) == (None, None, None)


def test_resolving_with_a_closing_word_records_the_outcome_and_the_comment(editor):
    thread = ThreadFactory()
    thread = services.thread_resolve(
        thread=thread, outcome="later", actor=editor, closing_body="Parking this."
    )
    closing = Comment.objects.get(pk=thread.closing_comment_id)
    assert closing.body == "Parking this."
    assert (thread.outcome, thread.resolved_by) == ("later", editor)


def test_resolving_marks_the_threads_notifications_resolved(editor, viewer):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="@viewer look", actor=editor)
    services.thread_resolve(thread=thread, outcome="done", actor=editor)
    assert Notification.objects.get(recipient=viewer).resolved_at is not None


def test_an_outcome_must_be_done_or_later(editor):
    with pytest.raises(ValidationError):
        services.thread_resolve(thread=ThreadFactory(), outcome="never", actor=editor)


def test_an_archived_thread_takes_no_comments(editor):
    thread = services.thread_archive(thread=ThreadFactory(), actor=editor)
    assert thread.archived_by == editor
    with pytest.raises(ValidationError):
        services.comment_post(thread=thread, body="anyone?", actor=editor)


def test_an_ask_notifies_the_person_and_is_closed_by_them(editor, viewer):
    thread = ThreadFactory()
    ask = services.ask_create(thread=thread, for_user=viewer, note="confirm the size", actor=editor)
    assert Notification.objects.get(recipient=viewer).kind == "ask"
    ask = services.ask_done(ask=ask, actor=viewer)
    assert (ask.done_by, ask.done_at is not None) == (viewer, True)


def test_one_open_ask_per_person_and_thread(editor, viewer):
    thread = ThreadFactory()
    services.ask_create(thread=thread, for_user=viewer, note="one", actor=editor)
    with pytest.raises(ValidationError):
        services.ask_create(thread=thread, for_user=viewer, note="two", actor=editor)


def test_got_it_is_one_per_person_and_comment(submitter):
    comment = CommentFactory()
    services.comment_ack(comment=comment, actor=submitter)
    services.comment_ack(comment=comment, actor=submitter)
    assert comment.acks.count() == 1


def test_a_flag_is_personal_and_can_be_cleared(viewer, editor):
    comment = CommentFactory()
    services.comment_flag_set(comment=comment, actor=viewer, flagged=True)
    services.comment_flag_set(comment=comment, actor=editor, flagged=True)
    services.comment_flag_set(comment=comment, actor=viewer, flagged=False)
    assert list(comment.flags.values_list("user", flat=True)) == [editor.pk]


def test_resolving_tells_the_other_participants(editor, submitter):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="question", actor=submitter)
    services.thread_resolve(thread=thread, outcome="done", actor=editor)
    notification = Notification.objects.get(recipient=submitter, kind="resolved")
    assert notification.body == "Resolved: Done"
    assert not Notification.objects.filter(recipient=editor).exists()
