"""What every catalogue service shares: who may edit, and how a curated row's history names
the person and their reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from django.db import models

CENT = Decimal("0.01")
# Who may do what, as role-group permissions: editors curate (merge, alias, override, pin),
# viewers read. Deciding queued pairs is ``curation.services.DECIDE_PERMISSION``.
EDIT_PERMISSION = "catalogue.add_productmerge"


def _by(obj: models.Model, actor, reason: str | None):
    """Stamp a curated row's next history record with the person and their reason (a rule
    passes no actor: the record then names whoever the request belongs to, or no one)."""
    if actor is not None:
        obj._history_user = actor
    if reason:
        obj._change_reason = reason
    return obj


def _record_history(model: type[models.Model], pks: Iterable, *, actor, reason: str) -> None:
    """A history record for rows changed by ``update()``, which saves no history itself."""
    rows = list(model.objects.filter(pk__in=list(pks)))
    model.history.bulk_history_create(
        rows, update=True, default_user=actor, default_change_reason=reason
    )


def _root(model, obj):
    """The row an alias chain ends at (a brand or line with no canonical); a chain that
    loops stops where it closes."""
    seen = set()
    while obj.canonical_id and obj.pk not in seen:
        seen.add(obj.pk)
        obj = model.objects.get(pk=obj.canonical_id)
    return obj
