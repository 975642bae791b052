"""Who may read which rows: one reader per model, registered by the app that owns it.

A record's discussion, its console pages and anything else that shows a row to a person ask
the same question: may this reader see this row? The app that owns a model knows the answer
(a fixture is public once its first submission is accepted; a draft article is for editors;
a stored object is its owner's and its reviewers'), so it registers a *reader* for the model
from its ``AppConfig.ready()``:

- ``readable_register(Model, reader)``: ``reader(queryset, user)`` narrows ``queryset`` (of
  ``Model``) to the rows ``user`` may read, in the query itself (no per-row Python check);
- ``readable_register_through(Model, "fixture")``: a row is readable exactly when the row its
  foreign key path points to is (an innings, a delivery, a timeline item: through their
  fixture).

Apps that sit below the owners (discussions beside sports and the catalogue, the console
kit here) ask ``readable(queryset, user)`` and never name another app's model. A model with
no reader is read by whoever the console lets view it (an active staff account whose role
gives the model's ``view`` permission), and by nobody else.

``omnium`` imports no app: readers are keyed by the model's label.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db import models
from django.db.models import CharField, QuerySet
from django.db.models.functions import Cast

__all__ = [
    "Reader",
    "console_may_view",
    "readable",
    "readable_keys",
    "readable_register",
    "readable_register_through",
]

_M = TypeVar("_M", bound=models.Model)

# ``user`` is an account, an anonymous user or None: omnium names no user model.
Reader = Callable[[QuerySet[Any], Any], QuerySet[Any]]

_readers: dict[str, Reader] = {}


def _label(model: type[models.Model]) -> str:
    return (model._meta.concrete_model or model)._meta.label_lower  # proxies read as their model


def readable_register(model: type[models.Model], reader: Reader) -> None:
    """Register (or, on a repeated ``ready()``, replace) the reader of ``model``."""
    _readers[_label(model)] = reader


def readable_register_through(model: type[models.Model], path: str) -> None:
    """Rows of ``model`` are readable exactly when the row at the foreign key ``path``
    (``"fixture"``, ``"innings__fixture"``) is, by that model's own reader."""
    target: type[models.Model] = model
    for name in path.split("__"):
        related = target._meta.get_field(name).related_model
        if related is None or isinstance(related, str):
            raise ValueError(f"{model._meta.label}: {path!r} is not a foreign key path.")
        target = related

    def reader(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        allowed = readable(target._default_manager.all(), user).values("pk")
        return queryset.filter(**{f"{path}__in": allowed})

    readable_register(model, reader)


def console_may_view(user: Any, model: type[models.Model]) -> bool:
    """Whether the console would let ``user`` view ``model`` at all: an active staff account
    whose permissions (its role's group) include the model's ``view`` or ``change``."""
    if not (getattr(user, "is_active", False) and getattr(user, "is_staff", False)):
        return False
    opts = model._meta
    return user.has_perm(f"{opts.app_label}.view_{opts.model_name}") or user.has_perm(
        f"{opts.app_label}.change_{opts.model_name}"
    )


def readable(queryset: QuerySet[_M], user: Any) -> QuerySet[_M]:
    """``queryset`` narrowed to the rows ``user`` may read (one query, filtered in SQL)."""
    reader = _readers.get(_label(queryset.model))
    if reader is not None:
        return reader(queryset, user)
    return queryset if console_may_view(user, queryset.model) else queryset.none()


def readable_keys(model: type[models.Model], user: Any) -> QuerySet[Any] | None:
    """The primary keys of the ``model`` rows ``user`` may read, as text (the form generic
    references store them in), for a subquery; None when every row is readable (the reader
    gave the queryset back unchanged), so the caller can leave the condition out."""
    rows = model._default_manager.all()
    narrowed = readable(rows, user)
    if narrowed is rows:
        return None
    return narrowed.annotate(_key=Cast("pk", CharField())).values("_key")
