"""Public statistics pages: a player's career and innings, the trace of each figure (the
statistics views are in ``board_views``, the records in ``records_views``)."""

from __future__ import annotations

from dataclasses import replace

from django.contrib.postgres.aggregates import ArrayAgg
from django.core.exceptions import ValidationError
from django.db.models import Count, Sum
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse

from cricket.stats.aggregates import expand_merged
from cricket.stats.charts import career_charts
from cricket.stats.figures import innings_rows
from cricket.stats.filter_form import filter_fields, player_options
from cricket.stats.query import StatsQuery
from cricket.stats.refresh import refreshes_pending, staleness
from cricket.stats.selectors import (
    cricket_player,
    figure_deliveries,
    player_career,
    registry_ids,
    scope_from_params,
)

# The innings list's filters on a player's page, in the form's order.
PLAYER_FILTERS = (
    "format",
    "season",
    "opposition",
    "venue",
    "home_away",
    "result",
    "innings",
    "position",
    "date_from",
    "date_to",
)


def player(request: HttpRequest, pk) -> HttpResponse:
    """A player's page: per-format career tables (batting, bowling, fielding), and under
    the URL's filter the innings list with its progression and runs-per-innings charts."""
    person = cricket_player(pk)
    unknown = sorted(set(request.GET) - set(PLAYER_FILTERS))
    if unknown:
        return HttpResponseBadRequest(
            f"{unknown[0]}: unknown parameter; the filters are {', '.join(PLAYER_FILTERS)}"
        )
    try:
        query = StatsQuery.parse(request.GET, view="innings")
    except ValidationError as exc:
        return HttpResponseBadRequest(_problems(exc))
    career = player_career(person)
    for row in career["formats"]:
        # The trace reads the format as match_type; the all-formats row has no filter.
        row["trace_scope"] = "" if row["format"] == "all" else f"&match_type={row['format']}"
    people = expand_merged([person.pk])
    # Oldest first for the charts; the table shows the same rows latest first.
    innings = innings_rows(replace(query, ordering="date"), participant_id=person.pk)
    fields = filter_fields(PLAYER_FILTERS, request.GET, options=player_options(people))
    return render(
        request,
        "cricket/player.html",
        {
            "player": person,
            "registry_ids": registry_ids(person),
            "formats": career["formats"],
            "bowled": any(row.get("bowling_innings") for row in career["formats"]),
            "super_overs": career["super_overs"],
            "innings": innings[::-1],
            "charts": career_charts(innings),
            **staleness(refreshes_pending(participant_ids=[str(person.pk)])),
            "fields": fields,
            "filtered": bool(query.labels),
            "reset_url": reverse("cricket_stats:player", args=[person.pk]),
            "crumbs": [
                ("Cricket statistics", reverse("cricket_stats:leaderboards")),
                (person.name, None),
            ],
        },
    )


def _problems(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return "; ".join(f"{name}: {' '.join(m)}" for name, m in exc.message_dict.items())
    return "; ".join(exc.messages)


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
