"""Cricket API: a fixture's scorecard and its deliveries in occurrence order (public, for
public fixtures only: the fixture's first submission must be accepted); corrections of a
delivery (editors) and its history of revisions and corrections (editors, reviewers and
administrators).
"""

from __future__ import annotations

from django.db.models import F, Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.generics import ListAPIView
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.acting import request_actors
from cricket.api_examples import SCORECARD_EXAMPLE
from cricket.corrections import (
    CorrectionConflict,
    delivery_correct,
    may_correct,
    may_read_history,
)
from cricket.freshness import scorecard_freshness
from cricket.models import (
    Delivery,
    DeliveryCorrectionHistory,
    DeliveryWicket,
    DeliveryWicketFielder,
)
from cricket.selectors import fixture_scorecard
from cricket.serializers import (
    DeliveryCorrectionRequestSerializer,
    DeliveryCorrectionResultSerializer,
    DeliveryHistorySerializer,
    DeliverySerializer,
    ScorecardSerializer,
)
from omnium.apis import ApiView
from omnium.auth import signed_in
from omnium.conditional import conditional, if_match_version
from sports.apis import IF_MATCH, STALE
from sports.models import Fixture

# Occurrence order across a whole fixture in one sortable number: the innings ordinal, then
# the within-innings sequence assigned at ingest (which a correction inherits).
OCCURRENCE = F("innings__ordinal") * 1_000_000 + F("sequence")


def _public_fixture(pk) -> Fixture:
    return get_object_or_404(Fixture.objects.public().filter(sport__code="cricket"), pk=pk)


def _with_events(deliveries):
    """Deliveries with what their serializer reads, in a fixed number of queries."""
    return deliveries.select_related("innings", "batter", "bowler", "non_striker").prefetch_related(
        Prefetch(
            "wickets",
            queryset=DeliveryWicket.objects.select_related("kind", "player_out")
            .prefetch_related(
                Prefetch(
                    "fielders",
                    queryset=DeliveryWicketFielder.objects.select_related("participant").order_by(
                        "ordinal"
                    ),
                )
            )
            .order_by("ordinal"),
        )
    )


@extend_schema(summary="A cricket fixture's live deliveries in occurrence order")
class FixtureDeliveriesApi(ListAPIView):
    queryset = Delivery.objects.none()
    serializer_class = DeliverySerializer
    cursor_ordering = ("occurrence",)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation: no fixture
            return self.queryset
        fixture = _public_fixture(self.kwargs["pk"])
        return _with_events(
            Delivery.objects.current()
            .filter(innings__fixture=fixture)
            .annotate(occurrence=OCCURRENCE)
        )


class FixtureScorecardApi(ApiView):
    @extend_schema(
        summary="A cricket fixture's scorecard, read from its statistic lines (derived from "
        "its live deliveries; stale lines are rebuilt before they are read)",
        responses=ScorecardSerializer,
        examples=[SCORECARD_EXAMPLE],
    )
    # The fixture's version heads the ETag (second in the freshness tuple), so a correction
    # can name the scorecard it was made from in If-Match.
    @conditional(scorecard_freshness, cache_seconds=300, version_at=1)
    def get(self, request: Request, pk) -> Response:
        fixture = _public_fixture(pk)
        cards = fixture_scorecard(fixture)
        return Response(
            ScorecardSerializer({"pk": fixture.pk, "name": fixture.name, "innings": cards}).data
        )


class MayCorrectDeliveries(BasePermission):
    message = "Only editors and administrators may correct deliveries."

    def has_permission(self, request, view) -> bool:
        return may_correct(request.user)


class MayReadCorrectionHistory(BasePermission):
    message = "Correction history is for editors, reviewers and administrators."

    def has_permission(self, request, view) -> bool:
        return may_read_history(request.user)


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


class DeliveryCorrectionsApi(ApiView):
    permission_classes = (MayCorrectDeliveries,)

    @extend_schema(
        summary="Correct a delivery: insert its next revision (editors)",
        request=DeliveryCorrectionRequestSerializer,
        parameters=[IF_MATCH],
        responses={
            201: DeliveryCorrectionResultSerializer,
            400: OpenApiResponse(description="A value or the reason is missing or invalid."),
            403: OpenApiResponse(description="Not an editor or administrator."),
            404: OpenApiResponse(description="No such delivery."),
            409: OpenApiResponse(description="The delivery was corrected first by someone else."),
            412: STALE,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        delivery = get_object_or_404(Delivery.objects.only("pk"), pk=pk)
        data = DeliveryCorrectionRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        reason = values.pop("reason")
        wickets = values.pop("wickets", None)
        try:
            result = delivery_correct(
                delivery=delivery,
                changes=values,
                wicket_changes=None if wickets is None else [dict(w) for w in wickets],
                reason=reason,
                actor=signed_in(request_actors(request)["actor"]),
                expected_version=if_match_version(request),
            )
        except CorrectionConflict as exc:
            raise Conflict(detail=" ".join(exc.messages)) from exc
        result.delivery = _with_events(Delivery.objects.filter(pk=result.delivery.pk)).get()
        body = DeliveryCorrectionResultSerializer(
            {
                "delivery": result.delivery,
                "previous": result.previous,
                "history": result.history,
                "fixture_id": result.fixture_id,
                "participant_ids": sorted(result.participant_ids),
                "relabelled": [d.pk for d in result.relabelled],
            }
        )
        return Response(body.data, status=status.HTTP_201_CREATED)


class DeliveryHistoryApi(ApiView):
    permission_classes = (MayReadCorrectionHistory,)

    @extend_schema(
        summary="A delivery's revisions and correction records (editors, reviewers, admins)",
        responses={
            200: DeliveryHistorySerializer,
            403: OpenApiResponse(description="Not an editor, reviewer or administrator."),
            404: OpenApiResponse(description="No such delivery."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        lineage = get_object_or_404(Delivery.objects.only("source_event_id"), pk=pk).source_event_id
        revisions = _with_events(Delivery.objects.filter(source_event_id=lineage)).order_by(
            "revision"
        )
        corrections = DeliveryCorrectionHistory.objects.of_lineage(lineage).select_related(
            "reviewed_by"
        )
        body = DeliveryHistorySerializer(
            {"source_event_id": lineage, "revisions": revisions, "corrections": corrections}
        )
        return Response(body.data)
