"""API routes of the discussions app (mounted under /api/v1/ by omnium/urls.py)."""

from rest_framework.routers import SimpleRouter

from discussions.apis import (
    ArticleViewSet,
    ClientTodoViewSet,
    CommentViewSet,
    DecisionItemViewSet,
    FeaturePriorityViewSet,
    NotificationViewSet,
    QuoteRequestViewSet,
    QuoteSelectionViewSet,
    ThreadViewSet,
)

router = SimpleRouter()
router.register("articles", ArticleViewSet, basename="article")
router.register("threads", ThreadViewSet, basename="thread")
router.register("comments", CommentViewSet, basename="comment")
router.register("notifications", NotificationViewSet, basename="notification")
router.register("feature-priorities", FeaturePriorityViewSet, basename="feature-priority")
router.register("quote-selections", QuoteSelectionViewSet, basename="quote-selection")
router.register("quote-requests", QuoteRequestViewSet, basename="quote-request")
router.register("decision-items", DecisionItemViewSet, basename="decision-item")
router.register("todos", ClientTodoViewSet, basename="todo")

urlpatterns = router.urls
