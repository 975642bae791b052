"""API routes of the ingest app (mounted under /api/v1/ by omnium/urls.py)."""

from rest_framework.routers import SimpleRouter

from ingest.batches.apis import BatchViewSet

router = SimpleRouter()
router.register("batches", BatchViewSet, basename="batch")

urlpatterns: list = router.urls
