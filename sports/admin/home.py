"""The console home page's spine queue: rows a feed could not map to a record, oldest
first, shown only while some wait (``omnium.console.home_queue_register``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from accounts.models import Role
from omnium.console import HomeItem, HomeQueue, HomeRows, home_queue_register
from sports.models import UnmatchedRow


def _unmapped_rows(request: HttpRequest, limit: int) -> HomeRows:
    waiting = UnmatchedRow.objects.filter(resolved_at__isnull=True).order_by("created_at", "pk")
    items = [
        HomeItem(
            label=f"{row.get_entity_type_display()} {row.name or row.external_id}",
            url=reverse("admin:sports_unmatchedrow_change", args=[row.pk]),
            since=row.created_at,
            note=f"{row.source_code}: {row.reason[:80]}",
        )
        for row in waiting[:limit]
    ]
    url = reverse("admin:sports_unmatchedrow_changelist")
    return HomeRows(count=waiting.count(), items=items, url=url)


home_queue_register(
    HomeQueue(
        key="unmapped-rows",
        title="Unmapped feed rows",
        roles=frozenset({Role.EDITOR, Role.ADMIN}),
        rows=_unmapped_rows,
        order=50,
        hide_when_empty=True,
    )
)
