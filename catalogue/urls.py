"""Public site pages of the catalogue app (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from catalogue import views

app_name = "catalogue"

urlpatterns = [
    path("catalogue/", views.product_list, name="product-list"),
    path("catalogue/products/<uuid:product_id>/", views.product_detail, name="product-detail"),
    path(
        "catalogue/products/<uuid:product_id>/prices/",
        views.product_prices,
        name="product-prices",
    ),
    path(
        "catalogue/products/<uuid:product_id>/follow/",
        views.product_follow,
        name="product-follow",
    ),
    path(
        "catalogue/products/<uuid:product_id>/unfollow/",
        views.product_unfollow,
        name="product-unfollow",
    ),
    path("catalogue/follows/", views.follow_list, name="follow-list"),
    path("catalogue/brands/<slug:slug>/", views.brand_detail, name="brand-detail"),
    path("catalogue/airports/<slug:code>/", views.location_detail, name="location-detail"),
]
