"""Who may submit and review batches: the one place the checks live.

Everything asks ``accounts.access`` (``user_can``, ``competitions_for``): the account's role
is authoritative, submitters and reviewers act only inside the competitions their grants
cover (a grant on a node covers its subtree, a grant on ``"*"`` every competition), editors
and administrators act everywhere, and an account that cannot sign in does nothing.

A batch is judged by its **target competition** (``Batch.competition``): the one its
submitter named, or the nearest node holding all of its matches. A batch with no target
(its matches in different trees, or in a competition that does not exist yet) can be
submitted and reviewed only by someone who may act on every competition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet
from django.urls import reverse

from accounts.access import (
    capability_refusal,
    competitions_for,
    effective_role,
    user_can,
    user_can_everywhere,
)
from accounts.models import Capability, User

if TYPE_CHECKING:
    from ingest.batches.models import Batch
    from sports.models import Competition

# Every check takes whoever is asking, signed in or not: an anonymous user may do nothing.
Asker = User | AnonymousUser


def _name(user: Asker) -> str:
    return getattr(user, "username", None) or str(user)


def _competition(competition: Competition) -> str:
    return f"{competition.name} ({competition.code})"


# --- submitting ----------------------------------------------------------------------------


def may_submit_batches(user: Asker) -> bool:
    """May ``user`` submit a batch for at least one competition?"""
    return user_can(user, Capability.SUBMIT)


def submit_batches_refusal(user: Asker) -> str:
    """Why ``user`` may not submit any batch: the rule and what to do (empty when they may)."""
    refusal = capability_refusal(user, Capability.SUBMIT)
    return f"{_name(user)} may not submit batches: {refusal}" if refusal else ""


def can_submit(user: Asker, competition: Competition | None) -> bool:
    """May ``user`` submit a batch whose target is ``competition`` (None: no single target)?"""
    return not submit_refusal(user, competition)


def submit_refusal(user: Asker, competition: Competition | None) -> str:
    """Why ``user`` may not submit for ``competition`` (empty when they may)."""
    if not may_submit_batches(user):
        return submit_batches_refusal(user)
    if competition is None:
        if user_can_everywhere(user, Capability.SUBMIT):
            return ""
        return (
            f"{_name(user)} may not submit a batch without a target competition: only a "
            "submitter for every competition may; name the competition (its files must all "
            "belong to it)"
        )
    if user_can(user, Capability.SUBMIT, competition):
        return ""
    return (
        f"{_name(user)} may not submit for {_competition(competition)}: no grant of theirs "
        f"covers it; {_name(user)} can ask for access on {reverse('accounts:my-access')} "
        "(an administrator decides), or an administrator can grant it in Accounts "
        "(Account grants)"
    )


# --- reviewing ----------------------------------------------------------------------------


def may_review_batches(user: Asker) -> bool:
    """May ``user`` see the review queue at all (review somewhere)?"""
    return user_can(user, Capability.REVIEW)


def can_review(user: Asker, batch: Batch) -> bool:
    """May ``user`` decide on ``batch``? Never on their own batch."""
    return not review_refusal(user, batch)


def review_refusal(user: Asker, batch: Batch) -> str:
    """Why ``user`` may not review ``batch`` (empty when they may)."""
    if not may_review_batches(user):
        why = capability_refusal(user, Capability.REVIEW)
        return f"{_name(user)} may not review batches: {why}"
    competition = batch.competition  # no query for a batch without a target
    if competition is None:
        if not user_can_everywhere(user, Capability.REVIEW):
            return (
                f"batch {batch.pk} has no single target competition; only a reviewer of "
                "every competition may review it: leave it to an editor, or an "
                "administrator can grant a review of every competition in Accounts "
                "(Account grants, on '*')"
            )
    elif not user_can(user, Capability.REVIEW, competition):
        return (
            f"{_name(user)} may not review batches for {_competition(competition)}: "
            "no grant covers it; an administrator can grant one in Accounts (Account grants)"
        )
    if batch.submitter_id == user.pk:
        return (
            f"{_name(user)} submitted batch {batch.pk}, and a submitter cannot review their "
            "own batch; another reviewer of its competition decides it"
        )
    return ""


def reviewable_batches(user: Asker, batches: QuerySet[Batch]) -> QuerySet[Batch]:
    """``batches`` narrowed to those ``user`` may review: their competitions only (one
    subquery). Their own batches stay in when covered; deciding on them is still refused."""
    if effective_role(user) is None:
        return batches.none()
    if user_can_everywhere(user, Capability.REVIEW):
        return batches
    return batches.filter(competition__in=competitions_for(user, Capability.REVIEW))


def visible_batches(user: Asker, batches: QuerySet[Batch]) -> QuerySet[Batch]:
    """What ``user`` may read through the API: the batches they may review and their own."""
    # An anonymous user has no role either; the isinstance check says so to the type checker.
    if isinstance(user, AnonymousUser) or effective_role(user) is None:
        return batches.none()
    if not may_review_batches(user):
        return batches.filter(submitter=user)
    if user_can_everywhere(user, Capability.REVIEW):
        return batches
    return batches.filter(
        Q(submitter=user) | Q(competition__in=competitions_for(user, Capability.REVIEW))
    )
