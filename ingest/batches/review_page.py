"""What a batch's review page shows a person: each file with its match (teams and dates),
how its people resolved, its validation problems by name, a correction's diff as a table,
and the onboarding tasks it holds, read from the batch's rows with no raw JSON.

Built once per page for ``BatchAdmin.change_view``; the rows' raw fields stay on the page
behind a "raw" disclosure.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError

from ingest.batches.models import Batch, BatchItem, ItemOperation, OnboardingDecision
from ingest.batches.selectors import correction_diff
from ingest.batches.services import ItemBytesGone, item_bytes


@dataclass
class ReviewItem:
    item: BatchItem
    teams: str = ""
    dates: str = ""
    event: str = ""
    problems: list[dict[str, str]] = field(default_factory=list)
    people: dict[str, int] = field(default_factory=dict)
    match: str = ""
    diff: list[Any] = field(default_factory=list)
    diff_note: str = ""


def _match_facts(item: BatchItem) -> tuple[str, str, str]:
    """Teams, dates and event from the file's ``info`` (the bytes may have expired)."""
    try:
        info = json.loads(item_bytes(item)).get("info", {})
    except (ItemBytesGone, ValueError, AttributeError):
        return "", "", ""
    teams = " v ".join(str(t) for t in info.get("teams", []))
    dates = ", ".join(str(d) for d in info.get("dates", []))
    event = info.get("event", {})
    event_name = event.get("name", "") if isinstance(event, dict) else str(event)
    return teams, dates, str(event_name)


_MATCH_RESOLUTION = {
    "new": "a new match",
    "same_bytes": "already published from these very bytes",
    "correction_target": "a correction of a published match",
}


def review_items(batch: Batch) -> list[ReviewItem]:
    """Every file of ``batch``, in submission order, ready to read."""
    items = batch.items.select_related("stored_object", "fixture", "correction_target")
    rows = []
    for item in items.order_by("ordinal"):
        teams, dates, event = _match_facts(item)
        resolution = item.resolution or {}
        people = Counter(p.get("resolution", "?") for p in resolution.get("people", []))
        row = ReviewItem(
            item=item,
            teams=teams,
            dates=dates,
            event=event,
            problems=[
                {
                    "rule": str(p.get("rule", "")),
                    "message": str(p.get("message", "")),
                    "path": str(p.get("path", "")),
                }
                for p in (item.problems or [])
                if isinstance(p, dict)
            ],
            people=dict(sorted(people.items())),
            match=_MATCH_RESOLUTION.get(
                (resolution.get("fixture") or {}).get("resolution", ""), ""
            ),
        )
        if item.operation == ItemOperation.CORRECT and item.fixture_id is None:
            try:
                row.diff = correction_diff(item)
            except ValidationError as error:
                row.diff_note = "; ".join(error.messages)
        rows.append(row)
    return rows


def review_context(batch: Batch) -> dict[str, Any]:
    """The readable page of ``batch``: its files and its outstanding onboarding tasks."""
    tasks = batch.onboarding_tasks.order_by("created_at", "pk")
    return {
        "review_items": review_items(batch),
        "review_tasks": list(tasks),
        "review_open_tasks": sum(1 for t in tasks if t.decision == OnboardingDecision.OUTSTANDING),
    }
