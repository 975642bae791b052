"""Roles as Django groups: what each role may do in the console, as model permissions.

A role is a group of the same name; an account's groups follow its role
(``accounts.services.account_groups_sync``). Rules are by app and action, so a model added
to an app later is covered once ``manage.py sync_role_groups`` (or the first use of a new
group) runs.
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.db.models import Q

from accounts.models import Role

CURATED_APPS = ("sports", "catalogue", "curation", "discussions", "ingest")
_VIEW = {app: ("view",) for app in CURATED_APPS}
ROLE_RULES: dict[str, dict[str, tuple[str, ...]]] = {
    Role.VIEWER: _VIEW,
    Role.SUBMITTER: {**_VIEW, "ingest": ("view", "add")},
    Role.REVIEWER: {
        **_VIEW,
        "ingest": ("view", "add", "change"),
        "catalogue": ("view", "change"),
        "curation": ("view", "change"),
    },
    Role.EDITOR: {app: ("view", "add", "change") for app in CURATED_APPS},
    Role.ADMIN: {
        **{app: ("view", "add", "change") for app in CURATED_APPS},
        "accounts": ("view", "add", "change"),
    },
}


def role_permissions(role: str):
    match = Q(pk__in=[])
    for app, actions in ROLE_RULES[role].items():
        match |= Q(content_type__app_label=app, codename__regex=rf"^({'|'.join(actions)})_")
    return Permission.objects.filter(match)


def role_group(role: str, *, refresh: bool = False) -> Group:
    """The group of ``role``, created with its permissions on first use."""
    group, created = Group.objects.get_or_create(name=role)
    if created or refresh:
        group.permissions.set(role_permissions(role))
    return group
