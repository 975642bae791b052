"""API routes of the sports app (mounted under /api/v1/ by omnium/urls.py)."""

from rest_framework.routers import SimpleRouter

from sports.apis import CompetitionViewSet, FixtureViewSet, ParticipantViewSet, SportViewSet

router = SimpleRouter()
router.register("sports", SportViewSet, basename="sport")
router.register("competitions", CompetitionViewSet, basename="competition")
router.register("fixtures", FixtureViewSet, basename="fixture")
router.register("participants", ParticipantViewSet, basename="participant")

urlpatterns = router.urls
