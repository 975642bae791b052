import pytest

from accounts.models import EmailSend
from discussions.models import Notification
from discussions.tasks import deliver_notification_mail
from discussions.tests.factories import CommentFactory


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_delivers_notification_mail_once(celery_worker_process, editor, viewer):
    comment = CommentFactory(author=editor)
    notification = Notification.objects.create(
        recipient=viewer, actor=editor, kind="mention", context_label="t", body="b", url="/x",
        source_type="discussions.comment", source_id=str(comment.pk), dedupe_key="worker-test",
    )  # fmt: skip
    queue = celery_worker_process.queue
    first = deliver_notification_mail.apply_async(args=[notification.pk], queue=queue)
    assert first.get(timeout=60) is True
    again = deliver_notification_mail.apply_async(args=[notification.pk], queue=queue)
    assert again.get(timeout=60) is False
    notification.refresh_from_db()
    assert notification.delivered_at is not None
    assert EmailSend.objects.filter(bucket=f"notify:{viewer.pk}").count() == 1
