"""The statistics query API: batting, bowling, fielding and team views and a player's
innings list, every one read through ``cricket.stats.query.StatsQuery`` (an unknown
parameter or a bad value is a 400 naming it).

Pages: the project's position cursor (``omnium.pagination.PositionCursorPagination``):
``page_size`` rows (default 50, at most 200) and an opaque ``cursor`` naming the next page
(``next`` and ``previous`` are full links). A ranking by a folded figure has no stable row
key, so the cursor holds the position in the ordering; the rows are ranked again on every
page.

Freshness: a response whose scope has a refresh still owed (queued or failed) says
``stale: true`` and ``refresh_queued_at`` (the oldest such refresh's queue time), so a
figure never looks current while a write to its inputs waits.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from cricket.stats.figures import (
    BATTING_VIEW,
    BOWLING_VIEW,
    DEFAULT_ORDERING,
    FIELDING_VIEW,
    INNINGS_FIELDS,
    TEAM_FIELDS,
    view_rows,
)
from cricket.stats.query import PAGE_PARAMETERS, PARAMETERS, StatsQuery
from cricket.stats.refresh import refreshes_pending, staleness
from cricket.stats.selectors import cricket_player
from cricket.stats.serializers import (
    BattingViewSerializer,
    BowlingViewSerializer,
    FieldingViewSerializer,
    InningsViewSerializer,
    TeamViewSerializer,
)
from omnium.apis import ApiView
from omnium.exceptions import ParameterError
from omnium.pagination import PositionCursorPagination

# The figures each view can be ordered by (and ``name``), ascending or descending.
VIEW_FIELDS: dict[str, tuple[str, ...]] = {
    "batting": tuple(BATTING_VIEW),
    "bowling": tuple(BOWLING_VIEW),
    "fielding": tuple(FIELDING_VIEW),
    "team": TEAM_FIELDS,
    "innings": INNINGS_FIELDS,
}


def orderings(view: str) -> list[str]:
    """The ``ordering`` values a view accepts, its default first."""
    names = [f"{sign}{name}" for name in (*VIEW_FIELDS[view], "name") for sign in ("-", "")]
    default = DEFAULT_ORDERING[view]
    return [default, *(name for name in names if name != default)]


def query_parameters(view: str) -> list[OpenApiParameter]:
    """The documented filters of a view (the paging parameters come from the paginator)."""
    return [
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
        OpenApiParameter(
            "group_by", str, enum=["player", "season", "opposition", "venue", "innings"]
        ),
        OpenApiParameter(
            "ordering",
            str,
            enum=orderings(view),
            default=DEFAULT_ORDERING[view],
            description="A figure of the view (or name); a '-' prefix is descending.",
        ),
        OpenApiParameter("super_overs", str, enum=["exclude", "only"]),
        OpenApiParameter(
            "as_of",
            str,
            description=(
                "The figures as they stood at a moment: an ISO 8601 date-time with its zone"
                " (2025-06-01T00:00Z), a date (midnight UTC) or now; not in the future."
            ),
        ),
    ]


def _query(request: Request, view: str) -> StatsQuery:
    try:
        return StatsQuery.parse(request.query_params, view=view, allowed_extra=PAGE_PARAMETERS)
    except DjangoValidationError as exc:
        raise ParameterError(problems=exc.message_dict) from exc


class _StatsApi(ApiView):
    """A statistics view: every ``StatsQuery`` parameter and the position cursor."""

    pagination_class = PositionCursorPagination

    def query_parameter_names(self) -> set[str]:
        return super().query_parameter_names() | set(PARAMETERS)

    def respond(
        self,
        request: Request,
        query: StatsQuery,
        serializer: type,
        *,
        participant_id: Any = None,
        pending_for: list[str] | None = None,
    ) -> Response:
        limit, offset = self.paginator.window(request)
        try:
            rows = view_rows(query, participant_id=participant_id, limit=limit + 1, offset=offset)
        except DjangoValidationError as exc:
            raise ParameterError(problems=exc.message_dict) from exc
        links = self.paginator.links(has_next=len(rows) > limit)
        rows = rows[:limit]
        for rank, row in enumerate(rows, start=offset + 1):
            row["rank"] = rank
        # A player's list owes only their own careers' refreshes; a view, its scope's fixtures'.
        pending = refreshes_pending(
            scope=None if pending_for is not None else query.scope(), participant_ids=pending_for
        )
        data = {"query": query.as_dict(), **staleness(pending), **links, "results": rows}
        return Response(serializer(data).data)


def _view_api(view: str, serializer: type, summary: str) -> type[ApiView]:
    class _Api(_StatsApi):
        @extend_schema(summary=summary, parameters=query_parameters(view), responses=serializer)
        def get(self, request: Request) -> Response:
            return self.respond(request, _query(request, view), serializer)

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


class PlayerInningsApi(_StatsApi):
    @extend_schema(
        summary="A player's batting innings under a query, latest first",
        parameters=query_parameters("innings"),
        responses=InningsViewSerializer,
    )
    def get(self, request: Request, pk) -> Response:
        player = cricket_player(pk)
        query = _query(request, "innings")
        return self.respond(
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
