"""Writes on accounts. Every function here is the one place its operation is implemented."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction

from accounts.models import AccountStatus, AuditEntry, Role, User


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
    audit_record(
        actor=None,
        action="account.create",
        entity=user,
        key=user.pk,
        detail={"username": username, "role": Role.ADMIN},
    )
    return user, True
