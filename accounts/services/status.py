"""Account status, role groups and the first administrator.

A role change itself is ``accounts.access.account_role_change``: it needs the permission
rules that live there, and is the one write of a role.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import (
    AccessEvent,
    AccountSession,
    AccountStatus,
    Role,
    User,
)
from accounts.roles import role_group
from accounts.services.audit import access_history_record, audit_record
from accounts.services.sessions import session_revoke


@transaction.atomic
def admin_account_ensure(*, username: str, password: str) -> tuple[User, bool]:
    """Create the first administrator if ``username`` does not exist; never touch it after.

    Returns the account and whether it was created. An existing account keeps its password:
    re-running ``make run`` must not reset a password someone has since changed.
    """
    user = User.objects.select_for_update().filter(username=username).first()
    if user is not None:
        return user, False
    user = User(
        username=username,
        role=Role.ADMIN,
        status=AccountStatus.ACTIVE,
        is_staff=True,
        is_superuser=True,
    )
    user.set_password(password)
    user.save()
    access_history_record(
        user=user, actor=None, event=AccessEvent.ROLE_CHANGED, role_before=Role.VIEWER,
        role_after=Role.ADMIN, reason="first administrator",
    )  # fmt: skip
    audit_record(
        actor=None,
        action="account.create",
        entity=user,
        key=user.pk,
        detail={"username": username, "role": Role.ADMIN},
    )
    return user, True


@transaction.atomic
def account_status_set(*, user: User, status: str, actor: User, reason: str = "") -> User:
    """Change an account's status. Disabling also revokes its live sessions."""
    user = User.objects.select_for_update().get(pk=user.pk)
    if user.status == status:
        return user
    old = user.status
    user.status = status
    user.disabled_at = timezone.now() if status == AccountStatus.DISABLED else None
    user.save(update_fields=["status", "disabled_at"])
    audit_record(
        actor=actor,
        action="account.status",
        entity=user,
        key=user.pk,
        detail={"status": [old, status], "reason": reason},
    )
    if status == AccountStatus.DISABLED:
        for session in AccountSession.objects.filter(user=user).live():
            session_revoke(session=session, actor=actor, reason=reason or "account disabled")
    return user


def account_groups_sync(*, user: User) -> None:
    """Put the account in its role's group and out of every other role's group."""
    role_names = set(Role.values)
    user.groups.remove(*user.groups.filter(name__in=role_names - {user.role}))
    user.groups.add(role_group(user.role))
