"""API consumers and their keys: registration, issue, revocation, authentication."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import (
    ApiConsumer,
    ApiConsumerStatus,
    ApiKey,
    User,
)
from accounts.services.audit import audit_record

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
