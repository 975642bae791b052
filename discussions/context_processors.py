"""The header's notification count for a signed-in reader.

Lazy: the COUNT runs only when a template shows it (the site's header does; the console's
pages do not), and once per request however often the template asks."""

from __future__ import annotations

from functools import cache

from django.http import HttpRequest

from discussions.models import Notification


def notifications(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"unread_notifications": None}

    @cache
    def unread() -> int:
        return Notification.objects.filter(recipient=user, read_at__isnull=True).count()

    # A template calls a callable value when it resolves it.
    return {"unread_notifications": unread}
