"""API routes of the curation app (mounted under /api/v1/ by omnium/urls.py)."""

from rest_framework.routers import SimpleRouter

from curation.apis import CandidateViewSet

router = SimpleRouter()
router.register("curation/candidates", CandidateViewSet, basename="curation-candidate")

urlpatterns = router.urls
