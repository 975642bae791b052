"""Public cricket pages: a fixture's scorecard."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

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
    return render(
        request,
        "cricket/scorecard.html",
        {"fixture": fixture, "ancestors": ancestors, "innings": fixture_scorecard(fixture)},
    )
