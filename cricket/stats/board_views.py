"""The public statistics page (``/cricket/leaderboards/``): the batting, bowling, fielding
and team views of the statistics query object under its whole vocabulary, as a filter form
of select lists whose choice is the URL. The rows are the API's (``figures.view_rows``),
so the page and ``/api/v1/cricket/stats/<view>/`` never disagree; a scope with a refresh
still owed says so above its table.

The page's own parameters: ``view`` (batting, the default, bowling, fielding, team) and
``page``; the older ``board`` (runs, wickets) and ``match_type`` still answer, as the
batting or bowling view and the format."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse

from cricket.stats.figures import view_rows
from cricket.stats.filter_form import data_options, filter_fields, query_string
from cricket.stats.query import StatsQuery
from cricket.stats.query_apis import orderings
from cricket.stats.refresh import refreshes_pending, staleness

PAGE_SIZE = 50
VIEW_TITLES = {
    "batting": "Batting",
    "bowling": "Bowling",
    "fielding": "Fielding",
    "team": "Teams",
}
BOARDS = {"runs": "batting", "wickets": "bowling"}

# (row field, heading, what the heading stands for) per view, in the order shown.
COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "batting": [
        ("matches", "Mat", "Matches"),
        ("innings", "Inns", "Innings"),
        ("not_outs", "NO", "Not outs"),
        ("runs", "Runs", ""),
        ("highest_score", "HS", "Highest score"),
        ("average", "Ave", "Average"),
        ("balls_faced", "BF", "Balls faced"),
        ("strike_rate", "SR", "Strike rate"),
        ("hundreds", "100", ""),
        ("fifties", "50", ""),
        ("ducks", "0", "Ducks"),
        ("fours", "4s", ""),
        ("sixes", "6s", ""),
    ],
    "bowling": [
        ("matches", "Mat", "Matches"),
        ("innings", "Inns", "Innings bowled"),
        ("balls", "Balls", ""),
        ("runs", "Runs", ""),
        ("wickets", "Wkts", "Wickets"),
        ("best_innings", "BBI", "Best innings bowling"),
        ("best_match", "BBM", "Best match bowling"),
        ("average", "Ave", "Average"),
        ("economy", "Econ", "Economy rate"),
        ("strike_rate", "SR", "Strike rate"),
        ("four_wickets", "4w", "Four-wicket innings"),
        ("five_wickets", "5w", "Five-wicket innings"),
        ("ten_wickets", "10w", "Ten wickets in a match"),
    ],
    "fielding": [
        ("matches", "Mat", "Matches"),
        ("dismissals", "Dis", "Dismissals (catches and stumpings)"),
        ("catches", "Ct", "Catches"),
        ("stumpings", "St", "Stumpings"),
        ("run_outs", "RO", "Run outs"),
        ("sub_catches", "Sub ct", "Catches as a substitute, counted apart"),
    ],
    "team": [
        ("matches", "Mat", "Matches"),
        ("won", "Won", ""),
        ("lost", "Lost", ""),
        ("tied", "Tied", ""),
        ("drawn", "Drawn", ""),
        ("no_result", "NR", "No result"),
        ("innings", "Inns", "Innings"),
        ("runs", "Runs", ""),
        ("wickets", "Wkts", "Wickets lost"),
        ("run_rate", "RR", "Runs per over"),
        ("average", "Ave", "Runs per wicket"),
        ("highest_total", "HS", "Highest total"),
        ("lowest_total", "LS", "Lowest total"),
    ],
}
FILTERS = (
    "format",
    "gender",
    "team_type",
    "season",
    "team",
    "opposition",
    "venue",
    "host_country",
    "home_away",
    "result",
    "toss",
    "innings",
    "position",
    "date_from",
    "date_to",
    "min_innings",
    "min_balls",
    "min_wickets",
    "group_by",
    "ordering",
    "super_overs",
)
PAGE_PARAMETERS = ("view", "board", "match_type", "page")


def _cell(value: Any) -> str:
    if value is None:
        return "\N{EN DASH}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _ordering_label(value: str) -> str:
    name = value.lstrip("-").replace("_", " ")
    return f"{name}, {'highest' if value.startswith('-') else 'lowest'} first"


def _params(request: HttpRequest) -> tuple[str, dict[str, str]]:
    """The view and the query's parameters, the older names read as the current ones."""
    params = {name: request.GET.get(name, "") for name in request.GET}
    view = params.pop("view", "") or ""
    board = params.pop("board", "")
    if board:
        if board not in BOARDS:
            raise ValidationError({"board": f"{board!r} is not one of {', '.join(BOARDS)}"})
        if view and view != BOARDS[board]:
            raise ValidationError({"board": f"disagrees with view {view!r}"})
        view = BOARDS[board]
    view = view or "batting"
    if view not in VIEW_TITLES:
        raise ValidationError({"view": f"{view!r} is not one of {', '.join(VIEW_TITLES)}"})
    old = params.pop("match_type", "")
    if old:
        if params.get("format") and params["format"].lower() != old.lower():
            raise ValidationError({"match_type": "disagrees with format (its older name)"})
        params["format"] = old
    return view, params


def leaderboards(request: HttpRequest) -> HttpResponse:
    try:
        view, params = _params(request)
        raw_page = params.pop("page", "") or "1"
        if not raw_page.isdigit() or int(raw_page) < 1:
            raise ValidationError({"page": f"{raw_page!r} is not a whole number of at least 1"})
        page = int(raw_page)
        query = StatsQuery.parse(params, view=view)
        offset = (page - 1) * PAGE_SIZE
        rows = view_rows(query, limit=PAGE_SIZE + 1, offset=offset)
    except ValidationError as exc:
        return HttpResponseBadRequest(
            "; ".join(f"{name}: {' '.join(m)}" for name, m in sorted(exc.message_dict.items()))
        )
    more = len(rows) > PAGE_SIZE
    columns = COLUMNS[view]
    table = [
        {
            "rank": rank,
            "participant_id": row.get("participant_id"),
            "name": row["name"],
            "group": (row.get("group") or {}).get("name"),
            "cells": [_cell(row.get(field)) for field, _h, _t in columns],
        }
        for rank, row in enumerate(rows[:PAGE_SIZE], start=offset + 1)
    ]
    current = {k: v for k, v in params.items() if v}
    tabs = [
        (label, "?" + query_string(current, view=None if key == "batting" else key), key == view)
        for key, label in VIEW_TITLES.items()
    ]
    kept = {**current, "view": None if view == "batting" else view}
    names = FILTERS if view != "team" else tuple(f for f in FILTERS if f != "position")
    fields = filter_fields(
        names,
        current,
        options=data_options(names),
        extra={
            "ordering": ("Order by", [(o, _ordering_label(o)) for o in orderings(view)]),
            **(
                {"group_by": ("Group by", [(g, g) for g in ("season", "opposition", "venue")])}
                if view == "team"
                else {}
            ),
        },
    )
    return render(
        request,
        "cricket/leaderboards.html",
        {
            "view": view,
            "title": f"{VIEW_TITLES[view]} statistics",
            "tabs": tabs,
            "columns": columns,
            "rows": table,
            "grouped": query.group_by != "player",
            "group_label": query.group_by.title(),
            "players": view != "team",
            "fields": fields,
            "hidden": [("view", view)] if view != "batting" else [],
            "reset_url": reverse("cricket_stats:leaderboards")
            + ("" if view == "batting" else f"?view={view}"),
            "next_url": f"?{query_string(kept, page=page + 1)}" if more else None,
            "previous_url": f"?{query_string(kept, page=page - 1)}" if page > 1 else None,
            **staleness(refreshes_pending(scope=query.scope())),
            "crumbs": [("Cricket statistics", None)],
        },
    )
