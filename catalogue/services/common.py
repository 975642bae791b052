"""What every catalogue service shares: who may edit, and how a curated row's history names
the person and their reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, TypeVar
from uuid import UUID

from django.db import models

from catalogue.models import Brand, Product, ProductLine

if TYPE_CHECKING:
    from accounts.models import User

CENT = Decimal("0.01")
# Who may do what, as role-group permissions: editors curate (merge, alias, override, pin),
# viewers read. Deciding queued pairs is ``curation.services.DECIDE_PERMISSION``.
EDIT_PERMISSION = "catalogue.add_productmerge"

_Curated = TypeVar("_Curated", bound=models.Model)
# The two levels that alias to a canonical row of their own kind.
_Aliased = TypeVar("_Aliased", Brand, ProductLine)


def _by(obj: _Curated, actor: User | None, reason: str | None) -> _Curated:
    """Stamp a curated row's next history record with the person and their reason (a rule
    passes no actor: the record then names whoever the request belongs to, or no one)."""
    # simple-history reads these two instance attributes at the next save; they are not
    # model fields, so the stubs cannot know them.
    if actor is not None:
        obj._history_user = actor  # type: ignore[attr-defined]
    if reason:
        obj._change_reason = reason  # type: ignore[attr-defined]
    return obj


def _record_history(
    model: type[Product], pks: Iterable[UUID], *, actor: User | None, reason: str
) -> None:
    """A history record for rows changed by ``update()``, which saves no history itself."""
    rows = list(model.objects.filter(pk__in=list(pks)))
    model.history.bulk_history_create(
        rows, update=True, default_user=actor, default_change_reason=reason
    )


def _root(model: type[_Aliased], obj: _Aliased) -> _Aliased:
    """The row an alias chain ends at (a brand or line with no canonical); a chain that
    loops stops where it closes."""
    seen: set[UUID] = set()
    while obj.canonical_id and obj.pk not in seen:
        seen.add(obj.pk)
        obj = model.objects.get(pk=obj.canonical_id)
    return obj
