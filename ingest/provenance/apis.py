"""API of the provenance trace (/api/v1/cricket/provenance/...): reviewers within their
competitions, editors and administrators; everyone else gets 403."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.access import user_can
from accounts.models import Capability
from cricket.stats.selectors import cricket_player, scope_from_params
from ingest.provenance.selectors import (
    DEFAULT_FIXTURES,
    LINE_KINDS,
    trace_aggregate,
    trace_line,
)
from ingest.provenance.serializers import (
    AggregateTraceQuerySerializer,
    LineTraceQuerySerializer,
    ProvenanceAggregateTraceSerializer,
    ProvenanceLineTraceSerializer,
)
from omnium.apis import ApiView


class MayTrace(BasePermission):
    """Signed in and reviewing somewhere (or an editor or administrator); the trace itself
    checks the figure's competition."""

    message = "Provenance traces are for reviewers, editors and administrators."

    def has_permission(self, request, view) -> bool:
        return user_can(request.user, Capability.REVIEW)


class _TraceApi(ApiView):
    permission_classes = (MayTrace,)

    def _answer(self, build, serializer, **kwargs) -> Response:
        try:
            data = build(user=self.request.user, **kwargs)
        except DjangoPermissionDenied as exc:
            raise PermissionDenied(str(exc)) from exc
        return Response(serializer(data).data)


class LineTraceApi(_TraceApi):
    query_serializer_class = LineTraceQuerySerializer

    @extend_schema(
        summary="Trace one figure of a statistic line to its deliveries, corrections, "
        "batches, stored objects, submitters and reviewers",
        parameters=[
            OpenApiParameter(
                "kind", str, OpenApiParameter.PATH, enum=list(LINE_KINDS), required=True
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
            figure=self.query.get("figure", ""),
        )


class AggregateTraceApi(_TraceApi):
    query_serializer_class = AggregateTraceQuerySerializer

    @extend_schema(
        summary="Trace a player's figure in a scope, a page of fixtures at a time",
        responses=ProvenanceAggregateTraceSerializer,
    )
    def get(self, request: Request, pk) -> Response:
        return self._answer(
            trace_aggregate,
            ProvenanceAggregateTraceSerializer,
            participant=cricket_player(pk),
            figure=self.query["figure"],
            scope=scope_from_params(self.query_serializer.scope_params()),
            cursor=self.query.get("cursor", ""),
            fixtures=self.query.get("fixtures") or DEFAULT_FIXTURES,
        )
