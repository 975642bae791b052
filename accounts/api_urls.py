"""API routes of the accounts app (mounted under /api/v1/ by omnium/urls.py)."""

from rest_framework.routers import SimpleRouter

from accounts.job_apis import JobViewSet

router = SimpleRouter()
router.register("jobs", JobViewSet, basename="job")

urlpatterns = router.urls
