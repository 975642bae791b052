"""Public statistics pages: a player's career and the leaderboards."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render

from cricket.stats.aggregates import careers
from cricket.stats.selectors import (
    cricket_player,
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
