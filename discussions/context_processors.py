"""The header's notification count for a signed-in reader (one COUNT, none for visitors)."""

from __future__ import annotations

from django.http import HttpRequest

from discussions.models import Notification


def notifications(request: HttpRequest) -> dict[str, int | None]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"unread_notifications": None}
    count = Notification.objects.filter(recipient=user, read_at__isnull=True).count()
    return {"unread_notifications": count}
