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
    path("catalogue/brands/<slug:slug>/", views.brand_detail, name="brand-detail"),
    path("catalogue/airports/<slug:code>/", views.location_detail, name="location-detail"),
]
