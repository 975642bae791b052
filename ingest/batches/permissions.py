"""Who may submit and review batches: the one place the checks live.

For now the account's application role decides (accounts.models.Role). Competition-scoped
grants (issue 9 item 1) replace the bodies of these two functions; every caller (services,
admin, API, commands) goes through them, so nothing else changes when they do.
"""

from __future__ import annotations

from accounts.models import Role

SUBMITTING_ROLES = frozenset({Role.SUBMITTER, Role.EDITOR, Role.ADMIN})
REVIEWING_ROLES = frozenset({Role.REVIEWER, Role.EDITOR, Role.ADMIN})


def _active(user) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False) and user.is_active)


def can_submit(user, competition=None) -> bool:
    """May ``user`` submit a batch (for ``competition``, when one is named)?"""
    return _active(user) and user.role in SUBMITTING_ROLES


def may_review_batches(user) -> bool:
    """May ``user`` see the review queue at all?"""
    return _active(user) and user.role in REVIEWING_ROLES


def can_review(user, batch) -> bool:
    """May ``user`` decide on ``batch``? Never on their own batch."""
    return may_review_batches(user) and batch.submitter_id != user.pk


def review_refusal(user, batch) -> str:
    """Why ``user`` may not review ``batch`` (empty when they may)."""
    if not may_review_batches(user):
        return f"{getattr(user, 'username', user)} does not hold a reviewing role"
    if batch.submitter_id == user.pk:
        return "a submitter cannot review their own batch"
    return ""
