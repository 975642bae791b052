"""API routes of the ingest app (mounted under /api/v1/ by omnium/urls.py)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from ingest.batches.apis import BatchViewSet
from ingest.provenance.apis import AggregateTraceApi, LineTraceApi

router = SimpleRouter()
router.register("batches", BatchViewSet, basename="batch")

urlpatterns: list = [
    *router.urls,
    path(
        "cricket/provenance/lines/<str:kind>/<int:pk>/",
        LineTraceApi.as_view(),
        name="cricket-provenance-line",
    ),
    path(
        "cricket/provenance/players/<uuid:pk>/",
        AggregateTraceApi.as_view(),
        name="cricket-provenance-player",
    ),
]
