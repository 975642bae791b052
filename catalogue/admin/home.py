"""The console home page's catalogue queues: feed category texts no one has mapped, and
reverifications waiting to be done, oldest first (``omnium.console.home_queue_register``;
shown by ``accounts.console_home``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from accounts.models import Role
from catalogue.models import Reverification
from catalogue.selectors import category_queue
from omnium.console import HomeItem, HomeQueue, HomeRows, home_queue_register


def _pending_reverifications(request: HttpRequest, limit: int) -> HomeRows:
    pending = Reverification.objects.filter(done_at__isnull=True).order_by("queued_at", "pk")
    rows = pending.select_related("product", "listing")
    items = [
        HomeItem(
            label=str(row.product or row.listing),
            url=reverse("admin:catalogue_reverification_change", args=[row.pk]),
            since=row.queued_at,
            note=row.reason,
        )
        for row in rows[:limit]
    ]
    url = reverse("admin:catalogue_reverification_changelist")
    return HomeRows(count=pending.count(), items=items, url=url)


def _unmapped_categories(request: HttpRequest, limit: int) -> HomeRows:
    waiting = category_queue()
    url = reverse("admin:catalogue_categorymapping_queue")
    items = [
        HomeItem(
            label=f"{row['source_slug']}: {row['text']}",
            url=url,
            since=row["first_seen"],
            note=f"{row['listings']} listing(s)",
        )
        for row in waiting[:limit]
    ]
    return HomeRows(count=waiting.count(), items=items, url=url)


home_queue_register(
    HomeQueue(
        key="unmapped-categories",
        title="Feed categories to map",
        roles=frozenset({Role.EDITOR, Role.ADMIN}),
        rows=_unmapped_categories,
        order=45,
        hide_when_empty=True,
    )
)

home_queue_register(
    HomeQueue(
        key="pending-reverifications",
        title="Pending reverifications",
        roles=frozenset({Role.EDITOR, Role.ADMIN}),
        rows=_pending_reverifications,
        order=40,
    )
)
