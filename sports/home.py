"""The sports panels of the home page (registered in ``SportsConfig.ready``)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max, Min
from django.http import HttpRequest

from omnium.home import Panel, panel_register
from sports.models import Competition, Fixture

LATEST_RESULTS = 8


def _competitions(request: HttpRequest) -> dict[str, Any] | None:
    """Each sport's top-level competitions, with how many published fixtures they hold and
    the dates they span."""
    roots = list(
        Competition.objects.canonical()
        .filter(parent__isnull=True)
        .select_related("sport")
        .order_by("sport__name", "name")
    )
    if not roots:
        return None
    spans = {
        row["competition__tree_id"]: row
        for row in Fixture.objects.public()
        .values("competition__tree_id")
        .annotate(fixtures=Count("id"), first=Min("scheduled_start"), last=Max("scheduled_start"))
    }
    groups: dict[str, list[dict[str, Any]]] = {}
    for root in roots:
        label = root.sport.name if root.sport_id else "Multi-sport"
        groups.setdefault(label, []).append({"node": root, "span": spans.get(root.tree_id)})
    return {"groups": sorted(groups.items())}


def _latest(request: HttpRequest) -> dict[str, Any] | None:
    fixtures = list(
        Fixture.objects.public()
        .filter(result__isnull=False, scheduled_start__isnull=False)
        .select_related("sport", "competition")
        .order_by("-scheduled_start", "code")[:LATEST_RESULTS]
    )
    return {"fixtures": fixtures} if fixtures else None


def register() -> None:
    panel_register(Panel("competitions", "sports/home_competitions.html", _competitions, 10))
    panel_register(Panel("latest-results", "sports/home_latest.html", _latest, 20))
