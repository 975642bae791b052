"""Writes on accounts. Every function here is the one place its operation is implemented."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.backends.base import SessionBase
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.acting import may_act_as_others
from accounts.models import (
    AccessEvent,
    AccountGrant,
    AccountPreference,
    AccountSession,
    AccountStatus,
    AccountToken,
    AnonymousMinute,
    AnonymousSourceMinute,
    ApiConsumer,
    ApiConsumerStatus,
    ApiKey,
    ApiUsage,
    ApiUsagePeriod,
    AuditEntry,
    EmailSend,
    Role,
    Subscriber,
    TokenPurpose,
    User,
)
from accounts.roles import role_group
from accounts.sessions import ACTING_AS_SESSION_KEY
from omnium.clients import daily_pseudonym


def _entity_label(entity: str | models.Model | type[models.Model]) -> str:
    if isinstance(entity, str):
        return entity
    return entity._meta.label_lower


def _json_safe(detail: Mapping[str, Any] | None) -> dict[str, Any]:
    # Services hand in UUIDs, dates and Decimals; the JSON column needs plain values, and
    # the same encoder as the rest of Django keeps their text forms familiar in the admin.
    if not detail:
        return {}

    return json.loads(json.dumps(dict(detail), cls=DjangoJSONEncoder))


def audit_record(
    *,
    actor: User | None,
    action: str,
    entity: str | models.Model | type[models.Model],
    key: object,
    detail: Mapping[str, Any] | None = None,
    acting_as: User | None = None,
) -> AuditEntry:
    """Append one audit row: who (really) acted, as whom, what, on which record.

    Call it inside the transaction of the change it records, so the row exists exactly when
    the change does. ``entity`` is a label such as ``"catalogue.product"`` or a model
    (instance or class; its ``app_label.model`` is used); ``key`` is the record's key.
    ``actor`` is None only for changes no person made (a scheduled job).
    ``acting_as`` is the account the actor was acting as, when different from the actor.
    """
    if acting_as is not None and actor is not None and acting_as.pk == actor.pk:
        acting_as = None
    return AuditEntry.objects.create(
        actor=actor,
        acting_as=acting_as,
        action=action,
        entity_type=_entity_label(entity),
        entity_key="" if key is None else str(key),
        detail=_json_safe(detail),
    )


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
    from accounts.access import access_history_record

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


# --- mail caps ---------------------------------------------------------------------------


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


# --- tokens: welcome and reset links ----------------------------------------------------

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
    from accounts.access import access_history_record, subject_revoked

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


# --- status, role, grants ----------------------------------------------------------------


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


@transaction.atomic
def account_role_set(*, user: User, role: str, actor: User | None, reason: str = "") -> User:
    """Change the application role; the access history and the audit log each get a row.
    Permission checks belong to the caller (``accounts.access.account_role_change``)."""
    from accounts.access import access_history_record

    user = User.objects.select_for_update().get(pk=user.pk)
    if user.role == role:
        return user
    old = user.role
    user.role = role
    user.save(update_fields=["role"])
    account_groups_sync(user=user)
    access_history_record(
        user=user, actor=actor, event=AccessEvent.ROLE_CHANGED, role_before=old, role_after=role,
        reason=reason,
    )  # fmt: skip
    audit_record(
        actor=actor, action="account.role", entity=user, key=user.pk, detail={"role": [old, role]}
    )
    return user


@transaction.atomic
def grant_set(*, user: User, subject: models.Model, role: str, actor: User) -> AccountGrant:
    """Give ``user`` ``role`` on one record; replaces an earlier grant on the same record."""
    subject_type = ContentType.objects.get_for_model(subject)
    grant, created = AccountGrant.objects.select_for_update().get_or_create(
        user=user,
        subject_type=subject_type,
        subject_id=str(subject.pk),
        defaults={"role": role, "granted_by": actor},
    )
    if not created:
        if grant.role == role:
            return grant
        old = grant.role
        grant.role, grant.granted_by = role, actor
        grant.save(update_fields=["role", "granted_by"])
    audit_record(
        actor=actor,
        action="account.grant",
        entity=subject,
        key=subject.pk,
        detail={"user": user.pk, "role": [None if created else old, role]},
    )
    return grant


@transaction.atomic
def grant_remove(*, user: User, subject: models.Model, actor: User) -> None:
    subject_type = ContentType.objects.get_for_model(subject)
    deleted, _ = AccountGrant.objects.filter(
        user=user, subject_type=subject_type, subject_id=str(subject.pk)
    ).delete()
    if deleted:
        audit_record(
            actor=actor,
            action="account.grant_remove",
            entity=subject,
            key=subject.pk,
            detail={"user": user.pk},
        )


# --- sessions and acting as --------------------------------------------------------------


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


# --- preferences -------------------------------------------------------------------------


@transaction.atomic
def preference_mail_set(*, user: User, enabled: bool, actor: User) -> AccountPreference:
    preference, _ = AccountPreference.objects.select_for_update().get_or_create(user=user)
    if preference.mail_notifications == enabled:
        return preference
    preference.mail_notifications = enabled
    preference.save(update_fields=["mail_notifications", "updated_at"])
    audit_record(
        actor=actor,
        action="account.preference.mail",
        entity=user,
        key=user.pk,
        detail={"mail_notifications": enabled},
    )
    return preference


# --- subscribers -------------------------------------------------------------------------


@transaction.atomic
def subscriber_signup(
    *,
    email: str,
    consent_text: str,
    first_name: str = "",
    last_name: str = "",
    home_airport: str = "",
    interests: list[str] | None = None,
    source: str = "site",
) -> Subscriber:
    """Record a newsletter signup with the consent sentence shown and when it was ticked.

    Signing up again with the same address refreshes the consent (and ends an earlier
    unsubscription); the address is the identity, compared lowercased.
    """
    email = email.strip().lower()
    if not consent_text.strip():
        raise ValidationError({"consent": "Consent is required."})
    now = timezone.now()
    fields = {
        "first_name": first_name.strip(),
        "last_name": last_name.strip(),
        "home_airport": home_airport.strip().upper(),
        "interests": sorted(set(interests or [])),
        "consent_text": consent_text,
        "consent_at": now,
        "source": source,
        "unsubscribed_at": None,
    }
    subscriber, created = Subscriber.objects.select_for_update().get_or_create(
        email=email, defaults=fields
    )
    if not created:
        for name, value in fields.items():
            setattr(subscriber, name, value)
        subscriber.save()
    audit_record(
        actor=None,
        action="subscriber.signup" if created else "subscriber.resubscribe",
        entity=subscriber,
        key=subscriber.pk,
    )
    return subscriber


@transaction.atomic
def subscriber_unsubscribe(*, email: str, actor: User | None = None) -> Subscriber | None:
    """Withdraw: the row stays as the record of consent given and withdrawn."""
    subscriber = Subscriber.objects.select_for_update().filter(email=email.strip().lower()).first()
    if subscriber is None or subscriber.unsubscribed_at is not None:
        return subscriber
    subscriber.unsubscribed_at = timezone.now()
    subscriber.save(update_fields=["unsubscribed_at"])
    audit_record(actor=actor, action="subscriber.unsubscribe", entity=subscriber, key=subscriber.pk)
    return subscriber


# --- API consumers and keys --------------------------------------------------------------

# Fields a person may set on a consumer; the rest (creation time, keys) belongs to services.
API_CONSUMER_FIELDS = (
    "name",
    "kind",
    "contact_name",
    "contact_email",
    "owner",
    "status",
    "per_minute_limit",
    "daily_quota",
)


def _consumer_values(consumer: ApiConsumer) -> dict[str, Any]:
    return {
        name: getattr(consumer, "owner_id" if name == "owner" else name)
        for name in API_CONSUMER_FIELDS
    }


@transaction.atomic
def api_consumer_create(*, actor: User, **fields: Any) -> ApiConsumer:
    """Register a consumer. ``fields`` are those in ``API_CONSUMER_FIELDS``."""
    unknown = set(fields) - set(API_CONSUMER_FIELDS)
    if unknown:
        raise TypeError(f"unknown consumer fields: {sorted(unknown)}")
    consumer = ApiConsumer(**fields)
    consumer.full_clean()
    consumer.save()
    audit_record(
        actor=actor,
        action="api_consumer.create",
        entity=consumer,
        key=consumer.pk,
        detail=_consumer_values(consumer),
    )
    return consumer


@transaction.atomic
def api_consumer_change(*, consumer: ApiConsumer, actor: User, **fields: Any) -> ApiConsumer:
    """Change a consumer's details, limits or status; the audit row keeps old and new.

    Locks the row so two administrators editing at once are recorded in a true order.
    """
    unknown = set(fields) - set(API_CONSUMER_FIELDS)
    if unknown:
        raise TypeError(f"unknown consumer fields: {sorted(unknown)}")
    consumer = ApiConsumer.objects.select_for_update().get(pk=consumer.pk)
    before = _consumer_values(consumer)
    for name, value in fields.items():
        setattr(consumer, name, value)
    after = _consumer_values(consumer)
    changed = [name for name in API_CONSUMER_FIELDS if before[name] != after[name]]
    if not changed:
        return consumer
    consumer.full_clean()
    consumer.save(update_fields=[f"{name}_id" if name == "owner" else name for name in changed])
    audit_record(
        actor=actor,
        action="api_consumer.change",
        entity=consumer,
        key=consumer.pk,
        detail={name: [before[name], after[name]] for name in changed},
    )
    return consumer


API_KEY_PREFIX_BYTES = 6  # 12 hex characters: enough to never collide in practice, short to read


def api_key_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@transaction.atomic
def api_key_issue(
    *, consumer: ApiConsumer, actor: User, expires_at: datetime | None = None
) -> tuple[ApiKey, str]:
    """Issue a new key; returns it with its plaintext ``<prefix>.<secret>``.

    The plaintext exists only in the return value: show it once and drop it. Older keys stay
    live, which is how a key is rotated without downtime (issue, deploy, then revoke the old).
    """
    now = timezone.now()
    if expires_at is not None and expires_at <= now:
        raise ValidationError({"expires_at": "The expiry must be in the future."})
    prefix = secrets.token_hex(API_KEY_PREFIX_BYTES)
    secret = secrets.token_urlsafe(32)
    key = ApiKey.objects.create(
        consumer=consumer,
        prefix=prefix,
        secret_hash=api_key_digest(secret),
        created_at=now,
        created_by=actor,
        expires_at=expires_at,
    )
    audit_record(
        actor=actor,
        action="api_key.issue",
        entity=consumer,
        key=consumer.pk,
        detail={"key": key.pk, "prefix": prefix, "expires_at": expires_at},
    )
    return key, f"{prefix}.{secret}"


@transaction.atomic
def api_key_revoke(*, key: ApiKey, actor: User, reason: str) -> ApiKey:
    """Revoke a key for good; its next request gets a 401. Revoking twice changes nothing.

    Locks the key row so the first of two concurrent revocations is the one recorded.
    """
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": "Say why the key is being revoked."})
    key = ApiKey.objects.select_for_update().get(pk=key.pk)
    if key.revoked_at is not None:
        return key
    key.revoked_at = timezone.now()
    key.revoked_by = actor
    key.revoke_reason = reason
    key.save(update_fields=["revoked_at", "revoked_by", "revoke_reason"])
    audit_record(
        actor=actor,
        action="api_key.revoke",
        entity=key.consumer,
        key=key.consumer_id,
        detail={"key": key.pk, "prefix": key.prefix, "reason": reason},
    )
    return key


def api_key_authenticate(*, presented: str) -> ApiKey | None:
    """The live key behind a presented ``<prefix>.<secret>``, or None.

    None covers unknown, wrong secret, revoked, expired, suspended consumer and an owner who
    may no longer sign in: a caller learns only that the key does not work.
    """
    prefix, dot, secret = presented.strip().partition(".")
    if not dot or not prefix or not secret:
        return None
    key = ApiKey.objects.select_related("consumer__owner").filter(prefix=prefix).first()
    if key is None:
        return None
    # Constant-time comparison: the response time must not reveal how much of a digest matched.
    if not hmac.compare_digest(key.secret_hash, api_key_digest(secret)):
        return None
    if not key.is_live():
        return None
    if key.consumer.status != ApiConsumerStatus.ACTIVE or not key.consumer.owner.can_sign_in:
        return None
    return key


# --- API usage and limits ----------------------------------------------------------------


@dataclass(frozen=True)
class Admission:
    """The answer for one keyed request: admitted or not, and the figures for the
    ``RateLimit-*`` headers of the limit closest to running out (or the one exceeded)."""

    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int


def usage_bucket(at: datetime, period: str) -> tuple[datetime, datetime]:
    """The UTC minute or day holding ``at``: its start and its end."""
    at = at.astimezone(UTC)
    if period == ApiUsagePeriod.MINUTE:
        start = at.replace(second=0, microsecond=0)
        return start, start + timedelta(minutes=1)
    start = at.replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


def _usage_bump(*, key: ApiKey, period: str, bucket_start: datetime) -> int:
    """Add one to the key's counter and return the consumer's total over all its keys.

    Runs inside ``api_usage_admit``'s transaction, after the consumer's row lock: the
    statement's snapshot is taken once that lock is ours, so it sees every other key's
    committed count and the total is exact even while two keys are in use (a rotation).
    """
    table = ApiUsage._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH bumped AS (
                INSERT INTO {table} (consumer_id, key_id, period, bucket_start, count)
                VALUES (%(consumer)s, %(key)s, %(period)s, %(start)s, 1)
                ON CONFLICT (key_id, period, bucket_start)
                DO UPDATE SET count = {table}.count + 1
                RETURNING count
            )
            SELECT (SELECT count FROM bumped) + COALESCE(
                (SELECT SUM(count) FROM {table}
                 WHERE consumer_id = %(consumer)s AND period = %(period)s
                   AND bucket_start = %(start)s AND key_id <> %(key)s),
                0)
            """,  # noqa: S608 -- the table name is the model's own; values are parameters.
            {
                "consumer": key.consumer_id,
                "key": key.pk,
                "period": period,
                "start": bucket_start,
            },
        )
        return int(cursor.fetchone()[0])


def api_usage_admit(*, key: ApiKey, at: datetime) -> Admission:
    """Count one request by ``key`` at ``at`` against its consumer's per-minute limit, then
    its UTC daily quota, and say whether to serve it.

    Buckets are UTC minutes and UTC days, so every limit resets at a UTC boundary.
    A request refused by the minute limit does not touch the daily quota; attempts over a
    limit are still counted in that limit's row (the console then shows how hard a consumer
    pushed).

    One short transaction that first locks the consumer's row (``FOR NO KEY UPDATE``: it
    queues the consumer's concurrent admissions behind each other but not the counter
    rows' foreign-key checks), so admissions of one consumer are serialised across every
    process and key and never admit more than a limit (margin zero). The lock is held for
    the two counter statements only, never for the request.
    """
    consumer = key.consumer
    checks = (
        (ApiUsagePeriod.MINUTE, consumer.per_minute_limit),
        (ApiUsagePeriod.DAY, consumer.daily_quota),
    )
    answers = []
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {ApiConsumer._meta.db_table} WHERE id = %s FOR NO KEY UPDATE",  # noqa: S608
                [consumer.pk],
            )
        for period, limit in checks:
            start, end = usage_bucket(at, period)
            total = _usage_bump(key=key, period=period, bucket_start=start)
            answer = Admission(
                allowed=total <= limit,
                limit=limit,
                remaining=max(0, limit - total),
                reset_seconds=max(1, math.ceil((end - at).total_seconds())),
            )
            if not answer.allowed:
                return answer
            answers.append(answer)
    # Report the limit that will run out first; on a tie the one that resets sooner.
    return min(answers, key=lambda a: (a.remaining, a.reset_seconds))


# Minute counters matter only while their minute is current; two days of them let the
# console show how hard a consumer pushed yesterday. Day counters are the usage history
# and are kept.
API_USAGE_MINUTE_RETENTION = timedelta(days=2)


def api_usage_prune(*, now: datetime) -> int:
    """Delete minute counters older than ``API_USAGE_MINUTE_RETENTION``; returns how many.

    No audit row: counters are not decisions, and a row per scheduled run would be noise.
    Safe to repeat and to run beside live traffic: the current minute's rows are never old
    enough to be touched, so no admission can lose its count.
    """
    deleted, _ = ApiUsage.objects.filter(
        period=ApiUsagePeriod.MINUTE, bucket_start__lt=now - API_USAGE_MINUTE_RETENTION
    ).delete()
    return deleted


# --- Anonymous API limits ------------------------------------------------------------------


def api_anonymous_admit(*, address: str, at: datetime) -> Admission:
    """Count one anonymous request from ``address`` at ``at`` and say whether to serve it.

    Two limits per UTC minute, both from settings: ``API_ANON_PER_MINUTE`` for one source
    and ``API_ANON_GLOBAL_PER_MINUTE`` for all anonymous traffic together. The address is
    turned into the day's pseudonym here and goes no further (``daily_pseudonym``).

    One statement, so one transaction, taking its locks in one order: the minute's global
    row first, then the source's row. The global row is locked ``FOR UPDATE`` (PostgreSQL
    hands back its latest count once the lock is ours), or, on the minute's first request,
    inserted already counting this request (a new minute has spent nothing, and no source
    row exists for it yet). The source upsert reads the global row's result, so it cannot
    run before the lock is held; the global count goes up only when both limits allow.
    The statement commits asynchronously (``synchronous_commit`` off for its own
    transaction only, set inside it: no extra round trip): the global row's lock is held
    for the statement, not for a WAL flush. A crash of the database server or the machine
    can lose at most the last fraction of a second of counts (the WAL writer flushes within
    ``3 x wal_writer_delay``; a clean restart loses nothing); the counts stay atomic and
    the limits exact while the server runs.
    Every admission of the minute queues on the global row, so however many processes or
    replicas serve the API the caps are exact, and no two requests hold the two locks in
    opposite orders. A source over its own limit does not spend the global budget, so one
    busy client cannot lock everyone else out. Requests racing to open a minute find the
    row committed after their snapshot: they run the statement again, once.
    """
    source = daily_pseudonym(address, at=at, scope="anonymous-api")
    start, end = usage_bucket(at, ApiUsagePeriod.MINUTE)
    source_limit = settings.API_ANON_PER_MINUTE
    minutes, sources = AnonymousMinute._meta.db_table, AnonymousSourceMinute._meta.db_table
    params = {
        "start": start,
        "source": source,
        "source_limit": source_limit,
        "global_limit": settings.API_ANON_GLOBAL_PER_MINUTE,
    }
    admit = f"""
        WITH opened AS (
            INSERT INTO {minutes} (bucket_start, count) VALUES (%(start)s, 1)
            ON CONFLICT (bucket_start) DO NOTHING
            RETURNING id, count
        ), locked AS (
            SELECT id, count FROM {minutes} WHERE bucket_start = %(start)s FOR UPDATE
        ), minute AS (
            SELECT id, count, true AS opened FROM opened
            UNION ALL
            SELECT id, count, false FROM locked
        ), src AS (
            INSERT INTO {sources} (bucket_start, source, count)
            SELECT %(start)s, %(source)s, 1 FROM minute
            ON CONFLICT (bucket_start, source) DO UPDATE SET count = {sources}.count + 1
            RETURNING count
        ), relaxed AS (
            SELECT set_config('synchronous_commit', 'off', true)
        ), admitted AS (
            UPDATE {minutes} SET count = {minutes}.count + 1 FROM minute, src
             WHERE {minutes}.id = minute.id
               AND NOT minute.opened
               AND src.count <= %(source_limit)s
               AND minute.count < %(global_limit)s
            RETURNING {minutes}.count
        )
        SELECT src.count,
               EXISTS (SELECT 1 FROM minute WHERE opened) OR EXISTS (SELECT 1 FROM admitted)
          FROM src, relaxed
    """  # noqa: S608 -- table names are the models' own; values are parameters.
    with connection.cursor() as cursor:
        cursor.execute(admit, params)
        row = cursor.fetchone()
        if row is None:  # another request opened the minute after this statement began
            cursor.execute(admit, params)
            row = cursor.fetchone()
    source_count, allowed = row
    return Admission(
        allowed=bool(allowed),
        limit=source_limit,
        remaining=max(0, source_limit - source_count) if allowed else 0,
        reset_seconds=max(1, math.ceil((end - at).total_seconds())),
    )


# Source rows hold pseudonyms: kept only while they can still matter for a limit, plus a
# margin for a late clock. Global rows hold no pseudonym and show the day's anonymous load.
API_ANON_SOURCE_RETENTION = timedelta(hours=1)
API_ANON_GLOBAL_RETENTION = timedelta(days=2)


def api_anonymous_usage_prune(*, now: datetime) -> int:
    """Delete anonymous counters past their retention; returns how many rows went.

    Like ``api_usage_prune``: no audit row, safe to repeat and beside live traffic (the
    current minute's rows are never old enough to go).
    """
    sources, _ = AnonymousSourceMinute.objects.filter(
        bucket_start__lt=now - API_ANON_SOURCE_RETENTION
    ).delete()
    minutes, _ = AnonymousMinute.objects.filter(
        bucket_start__lt=now - API_ANON_GLOBAL_RETENTION
    ).delete()
    return sources + minutes
