"""The audit log and the access history: the two append-only records every write leaves.

The lowest layer of the services: every other module, and ``accounts.access``, records
through these two functions and nothing here imports them back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from mptt.models import MPTTModel

from accounts.models import (
    AccessHistory,
    AccessRequest,
    AuditEntry,
    User,
)


def _entity_label(entity: str | models.Model | type[models.Model]) -> str:
    if isinstance(entity, str):
        return entity
    return entity._meta.label_lower


def _json_safe(detail: Mapping[str, Any] | None) -> dict[str, Any]:
    # Services hand in UUIDs, dates and Decimals; the JSON column needs plain values, and
    # the same encoder as the rest of Django keeps their text forms familiar in the admin.
    if not detail:
        return {}
    # A JSON object in, so a JSON object out.
    plain: dict[str, Any] = json.loads(json.dumps(dict(detail), cls=DjangoJSONEncoder))
    return plain


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


def access_history_record(
    *,
    user: User,
    actor: User | None,
    event: str,
    role_before: str = "",
    role_after: str = "",
    competition: MPTTModel | None = None,
    every_competition: bool = False,
    request: AccessRequest | None = None,
    reason: str = "",
) -> AccessHistory:
    """Append one access-history row (who may submit, review or edit what, and who said so).

    Call it inside the transaction of the change it records. ``competition`` is a
    ``sports.Competition``, typed as its base class (a django-mptt node) because accounts
    reaches that model only through its foreign keys (``accounts.access.Competition``).
    """
    return AccessHistory.objects.create(
        user=user,
        actor=actor,
        event=event,
        role_before=role_before,
        role_after=role_after,
        competition=competition,
        every_competition=every_competition,
        request=request,
        reason=reason,
    )
