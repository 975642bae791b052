"""Signed-in sessions and acting as another account (support)."""

from __future__ import annotations

from django.contrib.sessions.backends.base import SessionBase
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.acting import may_act_as_others
from accounts.models import (
    AccountSession,
    AccountStatus,
    User,
)
from accounts.services.audit import audit_record
from accounts.sessions import ACTING_AS_SESSION_KEY


@transaction.atomic
def session_revoke(*, session: AccountSession, actor: User, reason: str) -> AccountSession:
    """End a signed-in session now; the browser is signed out on its next request.
    Its owner may end it, and so may an administrator."""
    if actor.pk != session.user_id and not may_act_as_others(actor):
        raise PermissionDenied("You can only sign out your own sessions.")
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": "Say why the session is being revoked."})
    session = AccountSession.objects.select_for_update().get(pk=session.pk)
    if session.revoked_at is not None:
        return session
    session.revoked_at = timezone.now()
    session.revoked_by = actor
    session.revoke_reason = reason
    session.save(update_fields=["revoked_at", "revoked_by", "revoke_reason"])
    audit_record(
        actor=actor,
        action="session.revoke",
        entity="accounts.session",
        key=session.key_digest[:16],
        detail={"user": session.user_id, "reason": reason},
    )
    return session


@transaction.atomic
def acting_as_start(*, session: SessionBase, actor: User, target: User, reason: str) -> None:
    """Begin acting as ``target`` in this session (support). Only administrators may, never
    as a superuser (that would be an escalation) nor as themselves."""
    if not may_act_as_others(actor):
        raise PermissionDenied("Only administrators can act as another account.")
    if target.pk == actor.pk or target.is_superuser or target.status != AccountStatus.ACTIVE:
        raise ValidationError("You cannot act as that account.")
    if not reason.strip():
        raise ValidationError({"reason": "Say why you are acting as this account."})
    session[ACTING_AS_SESSION_KEY] = str(target.pk)
    session.save()
    audit_record(
        actor=actor,
        acting_as=target,
        action="account.acting_as.start",
        entity=target,
        key=target.pk,
        detail={"reason": reason.strip()},
    )


@transaction.atomic
def acting_as_stop(*, session: SessionBase, actor: User) -> None:
    target_id = session.pop(ACTING_AS_SESSION_KEY, None)
    if target_id is None:
        return
    session.save()
    target = User.objects.filter(pk=target_id).first()
    audit_record(
        actor=actor,
        acting_as=target,
        action="account.acting_as.stop",
        entity="accounts.user",
        key=target_id,
    )
