"""Reads of the merge-candidate queue that build a page."""

from __future__ import annotations

from typing import Any

from django.db.models import F

from curation.models import MergeCandidate
from curation.registry import level_resolver


def queue_page(level: str, *, limit: int, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
    """Open candidates of one level, highest score first, each with both sides ready to
    show side by side (the level owner's description of each side and the template that
    shows it). A constant number of queries whatever the page size."""
    queue = MergeCandidate.objects.filter(level=level, status="open").order_by(
        F("score").desc(nulls_last=True), "detected_at", "pk"
    )
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
        }
        for c in candidates
    ]
    return rows, total
