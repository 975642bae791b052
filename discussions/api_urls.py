"""API routes of the discussions app (mounted under /api/v1/ by omnium/urls.py)."""

from rest_framework.routers import SimpleRouter

from discussions.apis import CommentViewSet, NotificationViewSet, ThreadViewSet

router = SimpleRouter()
router.register("threads", ThreadViewSet, basename="thread")
router.register("comments", CommentViewSet, basename="comment")
router.register("notifications", NotificationViewSet, basename="notification")

urlpatterns = router.urls
