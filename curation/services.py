"""Every write to the merge-candidate queue: one function per operation.

Rules propose pairs, people decide them; the admin, the API, the Celery task and
``manage.py suggest`` call these and nothing else. What a level's ids are and what
accepting a pair does belongs to the app that registered the level (``curation.registry``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import audit_record
from curation.models import MergeCandidate
from curation.registry import level_resolver, registered_levels, registered_proposers
from omnium.progress import ProgressCallback

# Reviewers, editors and administrators decide queued pairs (the role groups' permission).
DECIDE_PERMISSION = "curation.change_mergecandidate"


@transaction.atomic
def merge_candidate_propose(
    *,
    level: str,
    left_id: uuid.UUID | str,
    right_id: uuid.UUID | str,
    score: float | None,
    why: str,
    actor: User | None = None,
) -> MergeCandidate:
    """Queue a pair for a person, or return the row already held for it.

    An open row takes the newer score and reason; a decided (or superseded) pair is never
    touched again, so a rule cannot bring back what a person rejected. ``actor`` is None
    when a rule proposes.
    """
    if not (why or "").strip():
        raise ValidationError({"why": "Say in one line why the pair looks like one."})
    # Python orders UUIDs by their 128-bit value, as PostgreSQL does: the check agrees.
    left_id, right_id = sorted(uuid.UUID(str(x)) for x in (left_id, right_id))
    if left_id == right_id:
        raise ValidationError("A pair needs two different rows.")
    # ON CONFLICT DO NOTHING: two suggest runs proposing one pair at once both succeed.
    MergeCandidate.objects.bulk_create(
        [
            MergeCandidate(
                level=level,
                left_id=left_id,
                right_id=right_id,
                score=score,
                why=why,
                detected_at=timezone.now(),
            )
        ],
        ignore_conflicts=True,
    )
    candidate = MergeCandidate.objects.select_for_update().get(
        level=level, left_id=left_id, right_id=right_id
    )
    if candidate.status == MergeCandidate.Status.OPEN and (candidate.score, candidate.why) != (
        score,
        why,
    ):
        candidate.score, candidate.why = score, why
        candidate.save(update_fields=["score", "why"])
    return candidate


@transaction.atomic
def merge_candidate_decide(
    *, candidate: MergeCandidate, accept: bool, actor: User, note: str
) -> MergeCandidate:
    """Record a person's decision on an open candidate.

    Holds a row lock on the candidate and re-reads its status under it: two reviewers
    deciding at once are serialised, the first decision stands and the second is refused,
    so exactly one decision (and one audit row) is recorded. Accepting records the
    decision only; ``merge_candidate_resolve`` also applies it.
    """
    if not (note or "").strip():
        raise ValidationError({"note": "Say why you decided this way."})
    candidate = MergeCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status != MergeCandidate.Status.OPEN:
        raise ValidationError(
            f"This pair was already decided ({candidate.get_status_display().lower()})."
        )
    candidate.status = MergeCandidate.Status.ACCEPTED if accept else MergeCandidate.Status.REJECTED
    candidate.decided_by = actor
    candidate.decided_at = timezone.now()
    candidate.decision_note = note
    candidate.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    audit_record(
        actor=actor,
        action="merge_candidate.decide",
        entity=candidate,
        key=candidate.pk,
        detail={
            "level": candidate.level,
            "left": candidate.left_id,
            "right": candidate.right_id,
            "decision": candidate.status,
            "note": note,
        },
    )
    return candidate


@transaction.atomic
def merge_candidates_supersede(*, actor: User | None = None) -> int:
    """Close every open pair one side of which was merged or aliased away since it was
    queued. A rule closes it, so it names no one; a person's decision is never touched.
    Returns how many pairs were closed. Holds row locks on the open pairs it reads."""
    open_rows = list(
        MergeCandidate.objects.select_for_update()
        .filter(status=MergeCandidate.Status.OPEN)
        .values_list("pk", "level", "left_id", "right_id")
    )
    closing = []
    for level in registered_levels():
        rows = [r for r in open_rows if r[1] == level]
        if not rows:
            continue
        gone = level_resolver(level).gone({x for r in rows for x in r[2:]})
        closing += [r[0] for r in rows if r[2] in gone or r[3] in gone]
    return MergeCandidate.objects.filter(pk__in=closing).update(
        status=MergeCandidate.Status.SUPERSEDED, decided_at=timezone.now()
    )


@dataclass
class SuggestReport:
    proposed: int = 0
    refreshed: int = 0
    already_decided: int = 0
    superseded: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        rules = ", ".join(f"{k} {v}" for k, v in sorted(self.by_rule.items())) or "none"
        return (
            f"suggest: {self.proposed} new candidate(s), {self.refreshed} open ones refreshed, "
            f"{self.already_decided} already decided by a person (left alone), "
            f"{self.superseded} closed as superseded; by rule: {rules}"
        )


@transaction.atomic
def candidates_suggest(
    *, actor: User | None = None, progress: ProgressCallback | None = None
) -> SuggestReport:
    """Run every registered proposer (every level) and queue what they propose.

    First closes pairs whose side went away; then each proposal is handled as
    ``merge_candidate_propose`` would: a new pair is queued, an open one takes the newer
    score and reason, and a pair a person decided is left exactly as it is. Safe to
    repeat. ``progress`` is called with the running count of proposals read.
    """
    report = SuggestReport(superseded=merge_candidates_supersede(actor=actor))
    # Read without locks: a reviewer deciding meanwhile is not held up, and the refresh
    # below only ever touches a row that is still open (checked in the UPDATE itself).
    held = {
        (c.level, str(c.left_id), str(c.right_id)): c
        for c in MergeCandidate.objects.only(
            "level", "left_id", "right_id", "status", "score", "why"
        )
    }
    new: dict[tuple[str, str, str], MergeCandidate] = {}
    n = 0
    for name, proposer in registered_proposers():
        if progress:
            progress(n, step=f"rule {name}")
        for proposal in proposer():
            n += 1
            report.by_rule[proposal.rule] = report.by_rule.get(proposal.rule, 0) + 1
            candidate = held.get(proposal.pair)
            if candidate is None:
                level, left, right = proposal.pair
                if left != right and proposal.pair not in new:
                    new[proposal.pair] = MergeCandidate(
                        level=level,
                        left_id=left,
                        right_id=right,
                        score=proposal.score,
                        why=proposal.why,
                        detected_at=timezone.now(),
                    )
            elif candidate.status != MergeCandidate.Status.OPEN:
                report.already_decided += 1
            elif (candidate.score, candidate.why) != (proposal.score, proposal.why):
                report.refreshed += MergeCandidate.objects.filter(
                    pk=candidate.pk, status=MergeCandidate.Status.OPEN
                ).update(score=proposal.score, why=proposal.why)
            if progress:
                progress(n)
    created = MergeCandidate.objects.bulk_create(
        list(new.values()), ignore_conflicts=True, batch_size=1000
    )
    report.proposed = len(created)
    return report


def candidate_sides(candidate: MergeCandidate) -> tuple[Any, Any]:
    """The two rows of a pair, ``None`` for a side that no longer exists."""
    model = level_resolver(candidate.level).model
    rows = {
        x.pk: x
        for x in model._default_manager.filter(pk__in=[candidate.left_id, candidate.right_id])
    }
    return rows.get(candidate.left_id), rows.get(candidate.right_id)


def candidate_default_survivor(candidate: MergeCandidate) -> Any:
    """Which side accepting keeps unless the person says otherwise (the level's rule)."""
    left, right = candidate_sides(candidate)
    if left is None or right is None:
        return left or right
    return level_resolver(candidate.level).default_survivor(left, right)


@transaction.atomic
def merge_candidate_resolve(
    *,
    candidate: MergeCandidate,
    accept: bool,
    actor: User,
    note: str,
    survivor_id: uuid.UUID | str | None = None,
    confirm_two_barcodes: bool = False,
) -> MergeCandidate:
    """A person's decision on a queued pair, applied: accepting hands the pair to its
    level's owner (products and participants are merged, brands and lines aliased into the
    kept one), rejecting records that they are two. The decision and what it applies stand
    or fall together (one transaction)."""
    candidate = merge_candidate_decide(candidate=candidate, accept=accept, actor=actor, note=note)
    if not accept:
        return candidate
    left, right = candidate_sides(candidate)
    if left is None or right is None:
        raise ValidationError("One side of this pair no longer exists.")
    if survivor_id is None:
        survivor = level_resolver(candidate.level).default_survivor(left, right)
    else:
        survivor = {str(left.pk): left, str(right.pk): right}.get(str(survivor_id))
        if survivor is None:
            raise ValidationError({"survivor": "Keep one of the two sides of the pair."})
    loser = right if survivor.pk == left.pk else left
    level_resolver(candidate.level).apply(
        loser=loser,
        survivor=survivor,
        actor=actor,
        note=note,
        confirm_two_barcodes=confirm_two_barcodes,
    )
    return candidate
