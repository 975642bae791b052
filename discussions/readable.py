"""Who may read discussions' own rows, registered with ``omnium.readable``.

- **Articles**: everyone reads the published ones; drafts only those who edit (editors
  and administrators), in the console as on the site.
- **Threads** are read by whoever may read their subject, and **comments** with their
  thread (``ThreadQuerySet.readable_by``).
- **Client surfaces**: the running list, feature priorities and quote selections are
  shared with every signed-in account; a to-do and its uploads are their owner's (and the
  moderators'); a quote request is its author's (and the administrators').
- **Notifications** are their recipient's (and the administrators').
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from accounts.access import effective_role
from accounts.models import Capability, Role
from accounts.roles import role_may
from discussions.models import (
    Article,
    ClientTodo,
    ClientUpload,
    Comment,
    DecisionItem,
    FeaturePriority,
    Notification,
    QuoteRequest,
    QuoteSelection,
    Thread,
)
from omnium.readable import readable_register


def _edits(user: Any) -> bool:
    role = effective_role(user)
    return role is not None and role_may(role, Capability.EDIT)


def _administers(user: Any) -> bool:
    return effective_role(user) == Role.ADMIN


def _articles(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    return queryset if _edits(user) else queryset.published()  # type: ignore[attr-defined]


def _signed_in(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    return queryset if effective_role(user) is not None else queryset.none()


def _owned(path: str, *, above: Any) -> Any:
    """Rows of the account at ``path``, and every row for those ``above(user)`` admits."""

    def reader(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        if effective_role(user) is None:
            return queryset.none()
        if above(user):
            return queryset
        return queryset.filter(Q(**{path: user}))

    return reader


def _threads(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    return queryset.readable_by(user)  # type: ignore[attr-defined]


def _comments(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    return queryset.readable_by(user)  # type: ignore[attr-defined]


def register() -> None:
    """Called from ``DiscussionsConfig.ready()``."""
    readable_register(Article, _articles)
    readable_register(Thread, _threads)
    readable_register(Comment, _comments)
    for model in (DecisionItem, FeaturePriority, QuoteSelection):
        readable_register(model, _signed_in)
    readable_register(ClientTodo, _owned("owner", above=_edits))
    readable_register(ClientUpload, _owned("todo__owner", above=_edits))
    readable_register(QuoteRequest, _owned("author", above=_administers))
    readable_register(Notification, _owned("recipient", above=_administers))
