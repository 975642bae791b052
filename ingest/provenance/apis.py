"""API of the provenance trace (/api/v1/cricket/provenance/...): reviewers within their
competitions, editors and administrators; everyone else gets 403."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.access import user_can
from accounts.models import Capability
from cricket.stats.selectors import TRACEABLE, cricket_player, scope_from_params
from ingest.provenance.selectors import (
    DEFAULT_FIXTURES,
    FIGURES_OF,
    LINE_KINDS,
    MAX_FIXTURES,
    trace_aggregate,
    trace_line,
)
from ingest.provenance.serializers import (
    ProvenanceAggregateTraceSerializer,
    ProvenanceLineTraceSerializer,
)

SCOPE_PARAMETERS = [
    OpenApiParameter("match_type", str, description="T20, ODI, Test, ... (the format)."),
    OpenApiParameter("gender", str, enum=["male", "female"]),
    OpenApiParameter(
        "competition",
        OpenApiTypes.UUID,
        description="A node and its subtree. A reviewer names one they review; without it "
        "the figure spans every competition.",
    ),
    OpenApiParameter("season", str, description="The season as the source writes it."),
    OpenApiParameter("date_from", OpenApiTypes.DATE),
    OpenApiParameter("date_to", OpenApiTypes.DATE),
    OpenApiParameter("super_overs", str, enum=["exclude", "only"]),
]


class MayTrace(BasePermission):
    """Signed in and reviewing somewhere (or an editor or administrator); the trace itself
    checks the figure's competition."""

    message = "Provenance traces are for reviewers, editors and administrators."

    def has_permission(self, request, view) -> bool:
        return user_can(request.user, Capability.REVIEW)


class _TraceApi(APIView):
    permission_classes = (MayTrace,)

    def _answer(self, build, serializer, **kwargs) -> Response:
        try:
            data = build(user=self.request.user, **kwargs)
        except DjangoPermissionDenied as exc:
            raise PermissionDenied(str(exc)) from exc
        return Response(serializer(data).data)


class LineTraceApi(_TraceApi):
    @extend_schema(
        summary="Trace one figure of a statistic line to its deliveries, corrections, "
        "batches, stored objects, submitters and reviewers",
        parameters=[
            OpenApiParameter(
                "kind", str, OpenApiParameter.PATH, enum=list(LINE_KINDS), required=True
            ),
            OpenApiParameter(
                "figure",
                str,
                enum=list(TRACEABLE),
                description="One of the line's figures: "
                + "; ".join(f"{k}: {', '.join(v)}" for k, v in FIGURES_OF.items())
                + ". The first of the line's kind when omitted.",
            ),
        ],
        responses=ProvenanceLineTraceSerializer,
    )
    def get(self, request: Request, kind: str, pk: int) -> Response:
        return self._answer(
            trace_line,
            ProvenanceLineTraceSerializer,
            kind=kind,
            pk=pk,
            figure=request.query_params.get("figure", ""),
        )


class AggregateTraceApi(_TraceApi):
    @extend_schema(
        summary="Trace a player's figure in a scope, a page of fixtures at a time",
        parameters=[
            OpenApiParameter("figure", str, enum=list(TRACEABLE), required=True),
            *SCOPE_PARAMETERS,
            OpenApiParameter(
                "fixtures",
                int,
                description=f"Fixtures a page (default {DEFAULT_FIXTURES}, at most "
                f"{MAX_FIXTURES}), oldest first.",
            ),
            OpenApiParameter("cursor", str, description="The previous page's next_cursor."),
        ],
        responses=ProvenanceAggregateTraceSerializer,
    )
    def get(self, request: Request, pk) -> Response:
        params = request.query_params
        try:
            fixtures = int(params.get("fixtures") or DEFAULT_FIXTURES)
        except ValueError as exc:
            raise ValidationError({"fixtures": "a whole number"}) from exc
        return self._answer(
            trace_aggregate,
            ProvenanceAggregateTraceSerializer,
            participant=cricket_player(pk),
            figure=params.get("figure", ""),
            scope=scope_from_params(params),
            cursor=params.get("cursor", ""),
            fixtures=fixtures,
        )
