"""Cricket API routes (mounted under /api/v1/ by omnium/urls.py)."""

from django.urls import path

from cricket.apis import (
    DeliveryCorrectionsApi,
    DeliveryHistoryApi,
    FixtureDeliveriesApi,
    FixtureScorecardApi,
)

urlpatterns = [
    path(
        "cricket/fixtures/<uuid:pk>/scorecard/",
        FixtureScorecardApi.as_view(),
        name="cricket-fixture-scorecard",
    ),
    path(
        "cricket/fixtures/<uuid:pk>/deliveries/",
        FixtureDeliveriesApi.as_view(),
        name="cricket-fixture-deliveries",
    ),
    path(
        "cricket/deliveries/<int:pk>/corrections/",
        DeliveryCorrectionsApi.as_view(),
        name="cricket-delivery-corrections",
    ),
    path(
        "cricket/deliveries/<int:pk>/history/",
        DeliveryHistoryApi.as_view(),
        name="cricket-delivery-history",
    ),
]
