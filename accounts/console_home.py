"""The console's home page: the queues of the role at the keyboard, then its models.

The admin index is replaced for everyone: a reviewer sees the batches awaiting review in
their competitions, the merge candidates by level and the onboarding tasks, oldest first;
an editor sees their recent changes, the pending reverifications, the unmapped rows (where
a feed produced any) and the data-quality queues; an administrator sees every queue. The
queues are registered by the apps that own their rows (``omnium.console.home_queue_register``
from each admin module), so this page names no model of another app.

The model list under the queues is the role's (``accounts.roles.ROLE_TABLE``'s
``console_models``): models nobody in the role works with are not listed, in the sidebar
either. Listing is not permission; the permissions stay the role table's.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse

from accounts.models import AuditEntry, Role, User
from accounts.roles import ROLE_TABLE
from omnium.console import HomeItem, HomeQueue, HomeRows, home_queue_register, home_queues

HOME_TEMPLATE = "admin/omnium/home.html"
# Rows each queue shows on the home page; its count and its link cover the rest.
HOME_ROWS = 5


def console_role(request: HttpRequest) -> str:
    """The role whose home page and model list ``request`` gets (a superuser's is the
    administrator's)."""
    user = request.user
    if not isinstance(user, User):
        return Role.VIEWER
    return Role.ADMIN if user.is_superuser else user.role


def listed_models(role: str) -> frozenset[str] | None:
    """The models the console lists for ``role`` ("app_label.Model"); None: every one."""
    return ROLE_TABLE[role].console_models


class ConsoleSite(admin.AdminSite):
    site_header = "omnium console"
    site_title = "omnium console"
    index_title = "Your queues"

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[Any]:
        apps = super().get_app_list(request, app_label)
        listed = listed_models(console_role(request))
        if listed is None:
            return apps
        kept = []
        for app in apps:
            models = [
                m for m in app["models"] if f"{app['app_label']}.{m['object_name']}" in listed
            ]
            if models:
                kept.append({**app, "models": models})
        return kept

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None):
        role = console_role(request)
        queues = []
        for queue in home_queues(role):
            rows = queue.rows(request, HOME_ROWS)
            if queue.hide_when_empty and not rows.count:
                continue
            queues.append({"queue": queue, "rows": rows})
        context = {
            **self.each_context(request),
            "title": self.index_title,
            "subtitle": None,
            "app_list": self.get_app_list(request),
            "role": Role(role).label,
            "queues": queues,
            **(extra_context or {}),
        }
        request.current_app = self.name
        return TemplateResponse(request, HOME_TEMPLATE, context)


def entity_url(entity_type: str, key: str) -> str:
    """The console page of the row an audit entry names (``"app_label.model"`` and its key),
    or "" when it has none. No query."""
    app_label, _, model_name = entity_type.partition(".")
    if not (app_label and model_name and key):
        return ""
    try:
        return reverse(f"admin:{app_label}_{model_name.lower()}_change", args=[key])
    except NoReverseMatch:
        return ""


def _recent_changes(request: HttpRequest, limit: int) -> HomeRows:
    """The person's own latest changes, newest first (the audit log names who acted)."""
    mine = AuditEntry.objects.filter(actor=getattr(request.user, "pk", None))
    items = [
        HomeItem(
            label=entry.action,
            url=entity_url(entry.entity_type, entry.entity_key),
            since=entry.at,
            note=str(entry.detail.get("reason") or entry.detail.get("note") or entry.entity_type),
        )
        for entry in mine.order_by("-at", "-pk")[:limit]
    ]
    return HomeRows(count=mine.count(), items=items, url="")


home_queue_register(
    HomeQueue(
        key="recent-changes",
        title="Your recent changes",
        roles=frozenset({Role.EDITOR, Role.ADMIN}),
        rows=_recent_changes,
        order=5,
        help="Newest first, from the audit log.",
    )
)
