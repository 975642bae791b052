"""Welcome and reset links (single-use tokens), invitations and password resets."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import (
    AccessEvent,
    AccountSession,
    AccountStatus,
    AccountToken,
    Role,
    TokenPurpose,
    User,
)
from accounts.services.audit import access_history_record, audit_record
from accounts.services.mail import email_send_reserve
from accounts.services.sessions import session_revoke
from accounts.services.status import account_groups_sync
from accounts.subjects import subject_revoked

TOKEN_LIFETIME = timedelta(hours=48)
_INVALID_LINK = "This link is invalid, already used or expired. Ask for a new one."


def token_digest(raw_token: str) -> str:
    return hashlib.sha256(raw_token.encode()).hexdigest()


def _send_token_mail(*, user: User, purpose: str, raw_token: str) -> None:
    path = reverse("accounts:token-redeem", kwargs={"token": raw_token})
    link = f"{settings.SITE_URL.rstrip('/')}{path}"
    if purpose == TokenPurpose.WELCOME:
        subject = "Your omnium account"
        body = f"An account has been created for you. Choose your password here:\n\n{link}\n"
    else:
        subject = "Reset your omnium password"
        body = f"Someone asked to reset your password. If it was you, continue here:\n\n{link}\n"
    body += "\nThe link works once and expires in 48 hours.\n"
    send_mail(subject, body, None, [user.email])


@transaction.atomic
def account_token_issue(*, user: User, purpose: str, actor: User | None) -> AccountToken:
    """Create a single-use 48-hour token and mail its link once the transaction commits.

    Only the digest is stored; the raw token exists in the e-mail alone.
    """
    if not user.email:
        raise ValidationError({"email": "The account has no e-mail address to send a link to."})
    if not email_send_reserve(bucket=f"auth:{user.pk}"):
        raise ValidationError("Too many sign-in e-mails to this account lately; try later.")
    raw_token = secrets.token_urlsafe(32)
    now = timezone.now()
    token = AccountToken.objects.create(
        token_hash=token_digest(raw_token),
        user=user,
        purpose=purpose,
        created_at=now,
        expires_at=now + TOKEN_LIFETIME,
        created_by=actor,
    )
    audit_record(
        actor=actor,
        action=f"account.token.{purpose}",
        entity=user,
        key=user.pk,
        detail={"token": str(token.pk), "expires_at": token.expires_at},
    )
    transaction.on_commit(lambda: _send_token_mail(user=user, purpose=purpose, raw_token=raw_token))
    return token


def account_token_check(*, raw_token: str) -> AccountToken:
    """The live token behind a link, or a ValidationError (used, expired or unknown)."""
    token = (
        AccountToken.objects.select_related("user")
        .filter(token_hash=token_digest(raw_token), used_at__isnull=True)
        .first()
    )
    if token is None or token.expires_at <= timezone.now():
        raise ValidationError(_INVALID_LINK)
    return token


@transaction.atomic
def account_token_redeem(*, raw_token: str, password: str) -> User:
    """Set the password from a welcome/reset link; the token is spent; an invited account
    becomes active. Locks the token row so two submissions of one link cannot both win."""
    token = (
        AccountToken.objects.select_for_update()
        .select_related("user")
        .filter(token_hash=token_digest(raw_token))
        .first()
    )
    if token is None or token.used_at is not None or token.expires_at <= timezone.now():
        raise ValidationError(_INVALID_LINK)
    user = token.user
    if user.status == AccountStatus.DISABLED:
        raise ValidationError(_INVALID_LINK)
    password_validation.validate_password(password, user)
    token.used_at = timezone.now()
    token.save(update_fields=["used_at"])
    # A new password makes every other outstanding link and every signed-in browser
    # stale: whoever might hold an older link or a stolen session loses it now.
    AccountToken.objects.filter(user=user, used_at__isnull=True).update(used_at=token.used_at)
    for session in AccountSession.objects.filter(user=user).live():
        session_revoke(session=session, actor=user, reason="password changed")
    old_status = user.status
    user.set_password(password)
    user.status = AccountStatus.ACTIVE
    user.save(update_fields=["password", "status"])
    audit_record(
        actor=user,
        action="account.password_set",
        entity=user,
        key=user.pk,
        detail={"via": token.purpose, "status": [old_status, user.status]},
    )
    return user


@transaction.atomic
def account_invite(
    *,
    actor: User,
    username: str,
    email: str,
    display_name: str = "",
    role: str = Role.VIEWER,
) -> User:
    """Create an invited account (no usable password) and send its welcome link."""
    if User.objects.filter(username=username).exists():
        raise ValidationError({"username": "That username is taken."})
    if subject_revoked(username) or subject_revoked(email):
        raise ValidationError("That username or address belonged to a deleted account.")
    user = User(
        username=username,
        email=email,
        display_name=display_name,
        role=role,
        status=AccountStatus.INVITED,
        invited_by=actor,
        is_staff=role != Role.VIEWER,
    )
    user.set_unusable_password()
    user.save()
    account_groups_sync(user=user)
    if role != Role.VIEWER:
        access_history_record(
            user=user, actor=actor, event=AccessEvent.ROLE_CHANGED, role_before=Role.VIEWER,
            role_after=role, reason="invited",
        )  # fmt: skip
    audit_record(
        actor=actor,
        action="account.invite",
        entity=user,
        key=user.pk,
        detail={"username": username, "role": role},
    )
    account_token_issue(user=user, purpose=TokenPurpose.WELCOME, actor=actor)
    return user


@transaction.atomic
def password_reset_request(*, email: str) -> AccountToken | None:
    """Mail a reset link to the active account with this address, if there is exactly one.

    The caller answers the same whatever happens, so the form cannot be used to learn which
    addresses have accounts.
    """
    users = list(User.objects.filter(email__iexact=email.strip(), status=AccountStatus.ACTIVE)[:2])
    if len(users) != 1:
        return None
    try:
        return account_token_issue(user=users[0], purpose=TokenPurpose.RESET, actor=None)
    except ValidationError:
        # The account's mail cap is full: answering differently would reveal the account.
        return None
