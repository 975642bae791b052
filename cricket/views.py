"""Public cricket pages: a fixture's scorecard."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from cricket.charts import scorecard_charts
from cricket.selectors import fixture_scorecard
from sports.models import Fixture


def scorecard(request: HttpRequest, pk) -> HttpResponse:
    fixture = get_object_or_404(
        Fixture.objects.public()
        .filter(sport__code="cricket")
        .select_related("competition", "venue"),
        pk=pk,
    )
    ancestors = []
    if fixture.competition_id:
        ancestors = list(fixture.competition.get_ancestors(include_self=True).only("id", "name"))
    innings = fixture_scorecard(fixture)
    charts = scorecard_charts(
        fixture.pk, {card.ordinal: card.team for card in innings if not card.super_over}
    )
    crumbs: list[tuple[str, str | None]] = [("Competitions", reverse("sports:competition-list"))]
    crumbs += [(a.name, reverse("sports:competition-detail", args=[a.pk])) for a in ancestors]
    crumbs.append((fixture.name or fixture.code, None))
    return render(
        request,
        "cricket/scorecard.html",
        {
            "fixture": fixture,
            "ancestors": ancestors,
            "innings": innings,
            "charts": charts,
            "crumbs": crumbs,
        },
    )
