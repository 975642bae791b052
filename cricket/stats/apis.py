"""Cricket statistics API: leaderboards, a player's career, the deliveries behind a figure,
and dataset releases.

Leaderboards, careers and traces are public and read only lines of public fixtures.
Releases are for editors, reviewers and administrators.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import GenericAPIView
from rest_framework.mixins import ListModelMixin
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from cricket.api_examples import CAREER_EXAMPLE, LEADERBOARD_EXAMPLE
from cricket.freshness import career_freshness, leaderboard_freshness
from cricket.stats.aggregates import career_count, careers
from cricket.stats.models import DatasetRelease, DatasetReleaseJob
from cricket.stats.refresh import refreshes_pending, staleness
from cricket.stats.release import (
    dataset_release_request,
    private_storage,
    release_file,
    scope_from_dict,
)
from cricket.stats.selectors import (
    cricket_player,
    figure_deliveries,
    player_career,
    player_innings,
    registry_ids,
    scope_from_params,
)
from cricket.stats.serializers import (
    DatasetReleaseJobSerializer,
    DatasetReleaseSerializer,
    LeaderboardPageSerializer,
    LeaderboardQuerySerializer,
    PlayerCareerSerializer,
    ReleaseRequestSerializer,
    TracePageSerializer,
    TraceQuerySerializer,
    leaderboard_query,
)
from omnium.apis import ApiView
from omnium.auth import signed_in
from omnium.conditional import conditional
from omnium.pagination import PositionCursorPagination

STAFF_ROLES = ("editor", "reviewer", "admin")


def _page(view: ApiView, request: Request, fetch) -> tuple[list, dict]:
    """One page of a computed list: ``fetch(limit, offset)`` is asked for one row more than
    the page, which says whether a next page exists."""
    limit, offset = view.paginator.window(request)
    rows = list(fetch(limit + 1, offset))
    return rows[:limit], view.paginator.links(has_next=len(rows) > limit)


class IsStatisticsStaff(BasePermission):
    """Editors, reviewers and administrators."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and getattr(user, "role", "") in STAFF_ROLES)


def _owed(pending) -> tuple:
    return (len(pending), pending[0].requested_at if pending else None)


def _leaderboard_state(request: Request, **kwargs) -> tuple | None:
    """The leaderboard's freshness plus the refreshes its scope still owes: a refresh
    queued after the last one finished is a new answer (it says ``stale``)."""
    state = leaderboard_freshness(request, **kwargs)
    if state is None:
        return None
    try:
        scope = scope_from_params(request.query_params)
    except DjangoValidationError:  # a bad scope answers 400 from the view, uncached
        return None
    # kept on the request, so the view says what the validator saw without asking again
    owed = vars(request)["_owed_refreshes"] = refreshes_pending(scope=scope)
    return (*state, *_owed(owed))


def _career_state(request: Request, pk=None, **kwargs) -> tuple | None:
    """The career's freshness plus the refreshes their careers still owe."""
    state = career_freshness(request, pk=pk, **kwargs)
    if state is None:
        return None
    owed = vars(request)["_owed_refreshes"] = refreshes_pending(participant_ids=[pk])
    return (*state, *_owed(owed))


def _owed_by(request: Request, **where) -> list:
    """The owed refreshes the freshness check read for this request, else read now."""
    owed = vars(request).get("_owed_refreshes")
    return owed if owed is not None else refreshes_pending(**where)


class _LeaderboardApi(ApiView):
    default_ordering = "-runs"
    minimum: dict[str, int] = {}
    query_serializer_class = LeaderboardQuerySerializer
    pagination_class = PositionCursorPagination

    @conditional(_leaderboard_state, cache_seconds=300)
    def get(self, request: Request) -> Response:
        scope = scope_from_params(self.query_serializer.scope_params())
        ordering = self.query.get("ordering") or self.default_ordering
        rows, links = _page(
            self,
            request,
            lambda limit, offset: careers(
                scope, ordering=ordering, limit=limit, offset=offset, minimum=self.minimum
            ),
        )
        for rank, row in enumerate(rows, start=self.paginator.offset + 1):
            row["rank"] = rank
        count = career_count(scope, bowlers=bool(self.minimum))
        data = {
            "scope": scope.as_dict(),
            "ordering": ordering,
            "count": count,
            **staleness(_owed_by(request, scope=scope)),
            "results": rows,
            **links,
        }
        return Response(LeaderboardPageSerializer(data).data)


@extend_schema(
    summary="Batting leaderboard (most runs by default) for a scope",
    responses=LeaderboardPageSerializer,
    examples=[LEADERBOARD_EXAMPLE],
)
class BattingLeaderboardApi(_LeaderboardApi):
    default_ordering = "-runs"
    query_serializer_class = leaderboard_query("-runs")


@extend_schema(
    summary="Bowling leaderboard (most wickets by default) for a scope",
    responses=LeaderboardPageSerializer,
)
class BowlingLeaderboardApi(_LeaderboardApi):
    default_ordering = "-wickets"
    query_serializer_class = leaderboard_query("-wickets")
    minimum = {"bowling_innings": 1}


class PlayerCareerApi(ApiView):
    @extend_schema(
        summary="A cricket player's career: per format, the super-over scope, latest innings",
        responses=PlayerCareerSerializer,
        examples=[CAREER_EXAMPLE],
    )
    @conditional(_career_state, cache_seconds=300)
    def get(self, request: Request, pk) -> Response:
        player = cricket_player(pk)
        career = player_career(player)
        data = {
            "id": player.pk,
            "name": player.name,
            "registry_ids": registry_ids(player),
            **staleness(_owed_by(request, participant_ids=[player.pk])),
            **career,
            "innings": list(player_innings(player)),
        }
        return Response(PlayerCareerSerializer(data).data)


class FigureTraceApi(ApiView):
    query_serializer_class = TraceQuerySerializer
    pagination_class = PositionCursorPagination
    list_order = "fixture start, then ball order"

    @extend_schema(
        summary="The live deliveries behind one of a player's figures, with their submissions",
        responses=TracePageSerializer,
    )
    def get(self, request: Request, pk) -> Response:
        player = cricket_player(pk)
        scope = scope_from_params(self.query_serializer.scope_params())
        figure = self.query["figure"]
        deliveries = figure_deliveries(player, figure, scope)
        rows, links = _page(
            self, request, lambda limit, offset: deliveries[offset : offset + limit]
        )
        data = {
            "participant_id": player.pk,
            "figure": figure,
            "scope": scope.as_dict(),
            "count": deliveries.count(),
            "results": rows,
            **links,
        }
        return Response(TracePageSerializer(data).data)


class DatasetReleaseListApi(ListModelMixin, GenericAPIView):
    """Releases are appended and never change: a keyset cursor, newest first."""

    permission_classes = (IsStatisticsStaff,)
    queryset = DatasetRelease.objects.all()
    serializer_class = DatasetReleaseSerializer
    cursor_ordering = ("-created_at", "-id")

    @extend_schema(summary="Dataset releases, newest first")
    def get(self, request: Request) -> Response:
        return self.list(request)

    @extend_schema(
        summary="Request a dataset release (built by a background job)",
        request=ReleaseRequestSerializer,
        responses={202: DatasetReleaseJobSerializer},
    )
    def post(self, request: Request) -> Response:
        if getattr(request.user, "role", "") not in ("editor", "admin"):
            raise PermissionDenied("Only editors and administrators release datasets.")
        form = ReleaseRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        values = {k: (str(v) if v is not None else None) for k, v in form.validated_data.items()}
        job = dataset_release_request(scope=scope_from_dict(values), actor=signed_in(request.user))
        return Response(DatasetReleaseJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class DatasetReleaseJobApi(ApiView):
    permission_classes = (IsStatisticsStaff,)

    @extend_schema(summary="A dataset release job's state", responses=DatasetReleaseJobSerializer)
    def get(self, request: Request, pk) -> Response:
        job = get_object_or_404(DatasetReleaseJob, pk=pk)
        return Response(DatasetReleaseJobSerializer(job).data)


class DatasetReleaseFileApi(ApiView):
    permission_classes = (IsStatisticsStaff,)

    @extend_schema(
        summary="Download one file of a dataset release",
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
    )
    def get(self, request: Request, pk, name: str):
        release = get_object_or_404(DatasetRelease, pk=pk)
        try:
            entry = release_file(release, name)
        except Exception as exc:
            raise Http404(str(exc)) from exc
        handle = private_storage().open(entry["storage_key"], "rb")
        return FileResponse(handle, as_attachment=True, filename=entry["name"])


__all__ = [
    "BattingLeaderboardApi",
    "BowlingLeaderboardApi",
    "DatasetReleaseFileApi",
    "DatasetReleaseJobApi",
    "DatasetReleaseListApi",
    "FigureTraceApi",
    "PlayerCareerApi",
]
