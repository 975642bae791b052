"""End to end: an invited person joins, is mentioned on a record, and reads it."""

import re

import pytest
from django.core import mail
from django.test import Client

from accounts.models import AuditEntry
from accounts.services import account_invite
from discussions import services
from discussions.models import Notification, Thread
from discussions.tests.factories import DecisionItemFactory

PASSWORD = "a long and private passphrase 2026"


@pytest.mark.django_db
def test_invite_join_get_mentioned_and_read(admin_user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        account_invite(actor=admin_user, username="rian", email="rian@example.org", role="editor")
    link = re.search(r"https?://[^/]+(/account/link/[^/\s]+/)", mail.outbox[0].body).group(1)

    browser = Client()
    browser.post(link, {"password": PASSWORD, "password_again": PASSWORD})
    signed_in = browser.post(
        "/admin/login/?next=/admin/", {"username": "rian", "password": PASSWORD}
    )
    assert signed_in.status_code == 302

    item = DecisionItemFactory(title="Stock the 1L gins?")
    thread = services.thread_for(subject=item)
    with django_capture_on_commit_callbacks(execute=False):
        services.comment_post(thread=thread, body="@rian your call", actor=admin_user)

    inbox = browser.get("/notifications/").content.decode()
    assert "(1 unread)" in inbox and "your call" in inbox
    assert (
        Thread.objects.with_unread_count(Notification.objects.get().recipient).get().unread_count
        == 1
    )

    browser.post(f"/discussions/{thread.subject_type_id}/{item.pk}/", {"op": "read", "next": "/"})
    recipient = Notification.objects.get().recipient
    assert Thread.objects.with_unread_count(recipient).get().unread_count == 0
    assert AuditEntry.objects.filter(action="account.password_set", actor=recipient).exists()
