"""The statistics query API: batting, bowling, fielding and team views and a player's
innings list, every one read through ``cricket.stats.query.StatsQuery`` (an unknown
parameter or a bad value is a 400 naming it).

Pages: ``page_size`` rows (default 50, at most 200) and an opaque ``cursor`` naming the
next page (``next`` and ``previous`` are full links). A ranking by a folded figure has no
stable row key, so the cursor holds the position in the ordering; the rows are ranked
again on every page.

Freshness: a response whose scope has a refresh still owed (queued or failed) says
``stale: true`` and ``refresh_queued_at`` (the oldest such refresh's queue time), so a
figure never looks current while a write to its inputs waits.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cricket.stats.figures import view_rows
from cricket.stats.query import PAGE_PARAMETERS, StatsQuery
from cricket.stats.refresh import refreshes_pending, staleness
from cricket.stats.selectors import cricket_player
from cricket.stats.serializers import (
    BattingViewSerializer,
    BowlingViewSerializer,
    FieldingViewSerializer,
    InningsViewSerializer,
    TeamViewSerializer,
)

DEFAULT_PAGE = 50
MAX_PAGE = 200

QUERY_PARAMETERS = [
    OpenApiParameter("format", str, description="Test, ODI, T20, IT20, ODM or MDM (any case)."),
    OpenApiParameter("gender", str, enum=["male", "female"]),
    OpenApiParameter("team_type", str, enum=["international", "club"]),
    OpenApiParameter("competition", OpenApiTypes.UUID, description="A node and its subtree."),
    OpenApiParameter("season", str),
    OpenApiParameter("date_from", OpenApiTypes.DATE),
    OpenApiParameter("date_to", OpenApiTypes.DATE),
    OpenApiParameter("team", str, description="A team id or name."),
    OpenApiParameter("opposition", str, description="A team id or name."),
    OpenApiParameter("venue", str, description="A venue id, code or name."),
    OpenApiParameter("host_country", str, description="ISO 3166 alpha-3."),
    OpenApiParameter("home_away", str, enum=["home", "away", "neutral"]),
    OpenApiParameter("result", str, enum=["won", "lost", "tied", "drawn", "no_result"]),
    OpenApiParameter("toss", str, enum=["won", "lost"]),
    OpenApiParameter("innings", int, description="The innings number of the match."),
    OpenApiParameter("position", int, description="The batting position."),
    OpenApiParameter("min_innings", int),
    OpenApiParameter("min_balls", int),
    OpenApiParameter("min_wickets", int),
    OpenApiParameter("group_by", str, enum=["player", "season", "opposition", "venue", "innings"]),
    OpenApiParameter("ordering", str, description="A figure of the view, '-' for descending."),
    OpenApiParameter("super_overs", str, enum=["exclude", "only"]),
    OpenApiParameter("cursor", str),
    OpenApiParameter("page_size", int, description=f"At most {MAX_PAGE}."),
]


def _query(request: Request, view: str) -> StatsQuery:
    try:
        return StatsQuery.parse(request.query_params, view=view, allowed_extra=PAGE_PARAMETERS)
    except DjangoValidationError as exc:
        raise ValidationError(exc.message_dict) from exc


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode().rstrip("=")


def _page(request: Request) -> tuple[int, int]:
    raw_size = request.query_params.get("page_size") or str(DEFAULT_PAGE)
    try:
        size = int(raw_size)
    except ValueError as exc:
        raise ValidationError({"page_size": f"{raw_size!r} is not a whole number"}) from exc
    if not 1 <= size <= MAX_PAGE:
        raise ValidationError({"page_size": f"{size} is not between 1 and {MAX_PAGE}"})
    cursor = request.query_params.get("cursor")
    if not cursor:
        return size, 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        offset = int(json.loads(base64.urlsafe_b64decode(padded))["o"])
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise ValidationError({"cursor": "is not a cursor this API gave"}) from exc
    if offset < 0:
        raise ValidationError({"cursor": "is not a cursor this API gave"})
    return size, offset


def _link(request: Request, offset: int | None) -> str | None:
    if offset is None:
        return None
    params = request.query_params.copy()
    if offset:
        params["cursor"] = _cursor(offset)
    else:
        params.pop("cursor", None)
    return request.build_absolute_uri(f"{request.path}?{params.urlencode()}")


def _respond(
    request: Request,
    query: StatsQuery,
    serializer: type,
    *,
    participant_id: Any = None,
    pending_for: list[str] | None = None,
) -> Response:
    size, offset = _page(request)
    try:
        rows = view_rows(query, participant_id=participant_id, limit=size + 1, offset=offset)
    except DjangoValidationError as exc:
        raise ValidationError(exc.message_dict) from exc
    more = len(rows) > size
    rows = rows[:size]
    for rank, row in enumerate(rows, start=offset + 1):
        row["rank"] = rank
    # A player's list owes only their own careers' refreshes; a view, its scope's fixtures'.
    pending = refreshes_pending(
        scope=None if pending_for is not None else query.scope(), participant_ids=pending_for
    )
    data = {
        "query": query.as_dict(),
        **staleness(pending),
        "next": _link(request, offset + size if more else None),
        "previous": _link(request, max(offset - size, 0) if offset else None),
        "results": rows,
    }
    return Response(serializer(data).data)


def _view_api(view: str, serializer: type, summary: str) -> type[APIView]:
    class _Api(APIView):
        @extend_schema(summary=summary, parameters=QUERY_PARAMETERS, responses=serializer)
        def get(self, request: Request) -> Response:
            return _respond(request, _query(request, view), serializer)

    _Api.__name__ = _Api.__qualname__ = f"{view.title()}StatsApi"
    return _Api


BattingStatsApi = _view_api(
    "batting", BattingViewSerializer, "Batting figures per player (or group) under a query"
)
BowlingStatsApi = _view_api(
    "bowling", BowlingViewSerializer, "Bowling figures per player (or group) under a query"
)
FieldingStatsApi = _view_api(
    "fielding", FieldingViewSerializer, "Fielding figures per player (or group) under a query"
)
TeamStatsApi = _view_api("team", TeamViewSerializer, "Team figures per team under a query")


class PlayerInningsApi(APIView):
    @extend_schema(
        summary="A player's batting innings under a query, latest first",
        parameters=QUERY_PARAMETERS,
        responses=InningsViewSerializer,
    )
    def get(self, request: Request, pk) -> Response:
        player = cricket_player(pk)
        query = _query(request, "innings")
        return _respond(
            request,
            query,
            InningsViewSerializer,
            participant_id=player.pk,
            pending_for=[str(player.pk)],
        )


__all__ = [
    "BattingStatsApi",
    "BowlingStatsApi",
    "FieldingStatsApi",
    "PlayerInningsApi",
    "TeamStatsApi",
]
