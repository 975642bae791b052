"""Caps on how much e-mail one person or purpose may be sent per period."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import (
    EmailSend,
)


def mail_cap(kind: str) -> tuple[int, timedelta]:
    """(messages, period) allowed per bucket of ``kind``; read at call time from settings."""
    caps = {
        "auth": (settings.AUTH_MAIL_CAP, timedelta(hours=1)),
        "notify": (settings.NOTIFICATION_MAIL_CAP, timedelta(hours=1)),
    }
    return caps[kind]


@transaction.atomic
def email_send_reserve(*, bucket: str) -> bool:
    """Count one message against ``bucket`` (``<kind>:<key>``) if it is under its cap;
    False when it is full. Holds a transaction-scoped advisory lock on the bucket, so two
    workers cannot both see room for the last message."""
    cap, period = mail_cap(bucket.split(":", 1)[0])
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [bucket])
    sent = EmailSend.objects.filter(bucket=bucket, sent_at__gt=timezone.now() - period).count()
    if sent >= cap:
        return False
    EmailSend.objects.create(bucket=bucket)
    return True
