"""Cricket read API: a fixture's scorecard and its deliveries in occurrence order.

Public (the project default), read-only, and only for public fixtures: the fixture's first
submission must be accepted.
"""

from __future__ import annotations

from django.db.models import F, Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from omnium.conditional import conditional
from omnium.pagination import StableCursorPagination
from sports.cricket.models import Delivery, DeliveryWicket, DeliveryWicketFielder
from sports.cricket.selectors import fixture_scorecard
from sports.cricket.serializers import DeliverySerializer, ScorecardSerializer
from sports.freshness import scorecard_freshness
from sports.models import Fixture

# Occurrence order across a whole fixture in one sortable number: the innings ordinal, then
# the within-innings sequence assigned at ingest (which a correction inherits).
OCCURRENCE = F("innings__ordinal") * 1_000_000 + F("sequence")


def _public_fixture(pk) -> Fixture:
    return get_object_or_404(Fixture.objects.public().filter(sport__code="cricket"), pk=pk)


class DeliveryCursorPagination(StableCursorPagination):
    ordering = "occurrence"
    page_size = 120


@extend_schema(summary="A cricket fixture's live deliveries in occurrence order")
class FixtureDeliveriesApi(ListAPIView):
    queryset = Delivery.objects.none()
    serializer_class = DeliverySerializer
    pagination_class = DeliveryCursorPagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation: no fixture
            return self.queryset
        fixture = _public_fixture(self.kwargs["pk"])
        return (
            Delivery.objects.current()
            .filter(innings__fixture=fixture)
            .annotate(occurrence=OCCURRENCE)
            .select_related("innings", "batter", "bowler", "non_striker")
            .prefetch_related(
                Prefetch(
                    "wickets",
                    queryset=DeliveryWicket.objects.select_related("kind", "player_out")
                    .prefetch_related(
                        Prefetch(
                            "fielders",
                            queryset=DeliveryWicketFielder.objects.select_related(
                                "participant"
                            ).order_by("ordinal"),
                        )
                    )
                    .order_by("ordinal"),
                )
            )
        )


class FixtureScorecardApi(APIView):
    @extend_schema(
        summary="A cricket fixture's scorecard, derived from its live deliveries",
        responses=ScorecardSerializer,
    )
    @conditional(scorecard_freshness, cache_seconds=300)
    def get(self, request: Request, pk) -> Response:
        fixture = _public_fixture(pk)
        cards = fixture_scorecard(fixture)
        return Response(
            ScorecardSerializer({"pk": fixture.pk, "name": fixture.name, "innings": cards}).data
        )
