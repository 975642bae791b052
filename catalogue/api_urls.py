"""API routes of the catalogue app (mounted under /api/v1/ by omnium/urls.py)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from catalogue.apis import (
    AwardViewSet,
    BrandViewSet,
    LocationViewSet,
    MergeViewSet,
    OverrideViewSet,
    ProductPriceHistoryApi,
    ProductViewSet,
)
from catalogue.follow_apis import FollowViewSet

router = SimpleRouter()
router.register("products", ProductViewSet, basename="catalogue-product")
router.register("brands", BrandViewSet, basename="catalogue-brand")
router.register("airports", LocationViewSet, basename="catalogue-location")
router.register("follows", FollowViewSet, basename="catalogue-follow")

router.register("curation/merges", MergeViewSet, basename="curation-merge")
router.register("curation/overrides", OverrideViewSet, basename="curation-override")
router.register("curation/awards", AwardViewSet, basename="curation-award")

urlpatterns = [
    path(
        "products/<uuid:pk>/prices/history/",
        ProductPriceHistoryApi.as_view(),
        name="catalogue-product-price-history",
    ),
    *router.urls,
]
