import threading

import pytest
from django.core import mail
from django.db import close_old_connections

from accounts.models import AccountPreference, EmailSend
from discussions import services
from discussions.models import Notification
from discussions.tests.factories import CommentFactory, ThreadFactory


@pytest.mark.django_db
def test_a_mention_notifies_the_person_named(editor, viewer):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="@viewer can you check?", actor=editor)
    notification = Notification.objects.get(recipient=viewer)
    assert (notification.kind, notification.actor) == ("mention", editor)
    assert "can you check" in notification.body


@pytest.mark.django_db
def test_an_unknown_or_email_like_mention_notifies_nobody(editor, viewer):
    services.comment_post(
        thread=ThreadFactory(), body="write to viewer@example.org or @nobody", actor=editor
    )
    assert not Notification.objects.exists()


@pytest.mark.django_db
def test_earlier_participants_hear_of_new_comments(editor, submitter):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="first", actor=submitter)
    services.comment_post(thread=thread, body="reply", actor=editor)
    assert Notification.objects.get(recipient=submitter).kind == "comment"
    assert not Notification.objects.filter(recipient=editor).exists()


@pytest.mark.django_db
def test_the_same_event_notifies_once(editor, viewer):
    comment = CommentFactory(author=editor)
    send = dict(
        recipient=viewer, actor=editor, kind="mention", context_label="x", body="b", url="/",
        source=comment, dedupe_key=f"mention:{comment.pk}:{viewer.pk}",
    )  # fmt: skip
    assert services.notification_send(**send) is not None
    assert services.notification_send(**send) is None
    assert Notification.objects.count() == 1


@pytest.mark.django_db
def test_a_notification_enqueues_its_mail_only_after_commit(
    editor, viewer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.comment_post(thread=ThreadFactory(), body="@viewer hello", actor=editor)
    assert len(callbacks) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_sends_of_one_event_store_one_notification(editor, viewer):
    comment = CommentFactory(author=editor)
    barrier = threading.Barrier(6)
    results = []

    kwargs = dict(
        recipient=viewer, actor=editor, kind="mention", context_label="x", body="b", url="/",
        source=comment, dedupe_key="same-event",
    )  # fmt: skip

    def send():
        try:
            barrier.wait()
            results.append(services.notification_send(**kwargs))
        finally:
            close_old_connections()

    from unittest import mock

    with mock.patch("discussions.tasks.deliver_notification_mail.delay"):
        workers = [threading.Thread(target=send) for _ in range(6)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert Notification.objects.filter(dedupe_key="same-event").count() == 1
    assert sum(result is not None for result in results) == 1


def _notification(recipient, actor, n):
    comment = CommentFactory(author=actor)
    return Notification.objects.create(
        recipient=recipient, actor=actor, kind="comment", context_label="t", body=f"b{n}",
        url="/x", source_type="discussions.comment", source_id=str(comment.pk),
        dedupe_key=f"test:{n}",
    )  # fmt: skip


@pytest.mark.django_db
def test_mail_is_sent_once_per_notification(editor, viewer):
    notification = _notification(viewer, editor, 1)
    assert services.notification_mail_deliver(notification_id=notification.pk) is True
    assert services.notification_mail_deliver(notification_id=notification.pk) is False
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [viewer.email]


@pytest.mark.django_db
def test_the_mail_cap_holds_however_busy_the_thread(settings, editor, viewer):
    cap = settings.NOTIFICATION_MAIL_CAP
    sent = [
        services.notification_mail_deliver(notification_id=_notification(viewer, editor, n).pk)
        for n in range(cap + 3)
    ]
    assert sent.count(True) == cap
    assert len(mail.outbox) == cap
    assert EmailSend.objects.filter(bucket=f"notify:{viewer.pk}").count() == cap


@pytest.mark.django_db
def test_the_cap_is_per_person(settings, editor, viewer, outsider):
    for n in range(settings.NOTIFICATION_MAIL_CAP):
        services.notification_mail_deliver(notification_id=_notification(viewer, editor, n).pk)
    other = _notification(outsider, editor, 999)
    assert services.notification_mail_deliver(notification_id=other.pk) is True


@pytest.mark.django_db
def test_turning_mail_off_stops_notification_mail(editor, viewer):
    AccountPreference.objects.create(user=viewer, mail_notifications=False)
    notification = _notification(viewer, editor, 1)
    assert services.notification_mail_deliver(notification_id=notification.pk) is False
    assert mail.outbox == []


@pytest.mark.django_db
def test_marking_someone_elses_notification_read_is_refused(editor, viewer):
    from django.core.exceptions import PermissionDenied

    notification = _notification(viewer, editor, 1)
    with pytest.raises(PermissionDenied):
        services.notification_mark_read(notification=notification, actor=editor)


@pytest.mark.django_db(transaction=True)
def test_the_mail_cap_holds_under_concurrent_deliveries(settings, editor, viewer):
    settings.NOTIFICATION_MAIL_CAP = 3
    ids = [_notification(viewer, editor, n).pk for n in range(8)]
    barrier = threading.Barrier(len(ids))
    outcomes = []

    def deliver(notification_id):
        try:
            barrier.wait()
            outcomes.append(services.notification_mail_deliver(notification_id=notification_id))
        finally:
            close_old_connections()

    workers = [threading.Thread(target=deliver, args=(pk,)) for pk in ids]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert outcomes.count(True) == 3
    assert EmailSend.objects.filter(bucket=f"notify:{viewer.pk}").count() == 3
