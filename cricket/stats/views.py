"""Public statistics pages: a player's career, the trace of each figure, the leaderboards."""

from __future__ import annotations

from django.contrib.postgres.aggregates import ArrayAgg
from django.core.exceptions import ValidationError
from django.db.models import Count, Sum
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse

from cricket.stats.aggregates import careers
from cricket.stats.selectors import (
    cricket_player,
    figure_deliveries,
    player_career,
    player_innings,
    registry_ids,
    scope_from_params,
)

BOARDS = {
    "runs": ("Most runs", "-runs", {}),
    "wickets": ("Most wickets", "-wickets", {"bowling_innings": 1}),
}


def player(request: HttpRequest, pk) -> HttpResponse:
    person = cricket_player(pk)
    career = player_career(person)
    return render(
        request,
        "cricket/player.html",
        {
            "player": person,
            "registry_ids": registry_ids(person),
            "formats": career["formats"],
            "super_overs": career["super_overs"],
            "innings": player_innings(person),
        },
    )


def leaderboards(request: HttpRequest) -> HttpResponse:
    board = request.GET.get("board") or "runs"
    if board not in BOARDS:
        return HttpResponseBadRequest(f"board: must be one of {', '.join(BOARDS)}")
    try:
        scope = scope_from_params(request.GET)
    except ValidationError as exc:
        return HttpResponseBadRequest("; ".join(exc.messages))
    title, ordering, minimum = BOARDS[board]
    rows = careers(scope, ordering=ordering, limit=50, minimum=minimum)
    return render(
        request,
        "cricket/leaderboards.html",
        {
            "board": board,
            "boards": {key: value[0] for key, value in BOARDS.items()},
            "title": title,
            "rows": rows,
            "scope": scope.as_dict(),
        },
    )


# The figures a career table links to their trace, with how each delivery counts: runs
# and runs conceded add the delivery's runs, every other figure counts deliveries.
TRACE_SUMS = {"runs": "runs_batter", "runs_conceded": "runs_total"}
TRACE_LABELS = {
    "runs": "Runs",
    "balls_faced": "Balls faced",
    "fours": "Fours",
    "sixes": "Sixes",
    "outs": "Dismissals",
    "legal_balls": "Balls bowled",
    "runs_conceded": "Runs conceded",
    "wickets": "Wickets",
    "catches": "Catches",
    "stumpings": "Stumpings",
    "run_outs": "Run outs",
}


def figure_trace(request: HttpRequest, pk) -> HttpResponse:
    """The public part of a figure's trace: which fixtures and deliveries made it and which
    accepted submission each came from. Who submitted and reviewed it, and the stored file,
    stay in the console."""
    person = cricket_player(pk)
    figure = request.GET.get("figure", "")
    if figure not in TRACE_LABELS:
        return HttpResponseBadRequest(f"figure: must be one of {', '.join(TRACE_LABELS)}")
    try:
        scope = scope_from_params(request.GET)
    except ValidationError as exc:
        return HttpResponseBadRequest("; ".join(exc.messages))
    deliveries = figure_deliveries(person, figure, scope)
    value = Sum(TRACE_SUMS[figure]) if figure in TRACE_SUMS else Count("id")
    fixtures = list(
        deliveries.order_by()
        .values(
            "innings__fixture_id",
            "innings__fixture__name",
            "innings__fixture__scheduled_start",
            "submission__source_code",
            "submission__original_filename",
            "submission__accepted_at",
        )
        .annotate(value=value, balls=Count("id"), labels=ArrayAgg("ball_label", ordering="id"))
        .order_by("innings__fixture__scheduled_start", "innings__fixture_id")
    )
    return render(
        request,
        "cricket/trace.html",
        {
            "player": person,
            "figure": figure,
            "figure_label": TRACE_LABELS[figure],
            "scope": scope.as_dict(),
            "fixtures": fixtures,
            "total": sum(row["value"] or 0 for row in fixtures),
            "crumbs": [
                ("Cricket statistics", reverse("cricket_stats:leaderboards")),
                (person.name, reverse("cricket_stats:player", args=[person.pk])),
                (TRACE_LABELS[figure], None),
            ],
        },
    )
