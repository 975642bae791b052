"""Reads of the merge-candidate queue that build a page."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import F

from curation.models import MergeCandidate
from curation.registry import level_resolver


def side_by_side(level: str, left: Any, right: Any) -> list[dict[str, Any]]:
    """Both sides' key facts lined up, each marked when the two differ (a gone side has
    none)."""
    facts = level_resolver(level).facts
    lefts = dict(facts(left)) if left is not None else {}
    rights = dict(facts(right)) if right is not None else {}
    labels = list(lefts) + [x for x in rights if x not in lefts]
    return [
        {
            "label": label,
            "left": lefts.get(label, ""),
            "right": rights.get(label, ""),
            "differs": lefts.get(label, "") != rights.get(label, ""),
        }
        for label in labels
    ]


def pair_confirmation(level: str, left: Any, right: Any) -> str:
    """What accepting the pair asks a person to confirm besides the note ("" for nothing)."""
    if left is None or right is None:
        return ""
    return level_resolver(level).confirmation(left, right)


def queue_page(
    level: str, *, limit: int, offset: int = 0, skipped: Iterable[str] = ()
) -> tuple[list[dict[str, Any]], int]:
    """Open candidates of one level, highest score first, each with both sides ready to
    show side by side (the level owner's description of each side and the template that
    shows it, their facts lined up, what accepting asks to confirm). Pairs the person
    ``skipped`` (ids) this session are left off. A constant number of queries whatever the
    page size."""
    queue = MergeCandidate.objects.filter(level=level, status="open").order_by(
        F("score").desc(nulls_last=True), "detected_at", "pk"
    )
    skipped = list(skipped)
    if skipped:
        queue = queue.exclude(pk__in=skipped)
    total = queue.count()
    candidates = list(queue[offset : offset + limit])
    ids = {x for c in candidates for x in (c.left_id, c.right_id)}
    resolver = level_resolver(level)
    by_id = resolver.describe(ids)
    rows = [
        {
            "candidate": c,
            "left": by_id.get(c.left_id),
            "right": by_id.get(c.right_id),
            "side_template": resolver.side_template,
            "facts": side_by_side(level, by_id.get(c.left_id), by_id.get(c.right_id)),
            "confirmation": pair_confirmation(level, by_id.get(c.left_id), by_id.get(c.right_id)),
        }
        for c in candidates
    ]
    return rows, total
