"""Read-only catalogue API: products with prices by airport, brands, airports."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.response import Response

from catalogue.filters import ProductFilter
from catalogue.models import Brand, Location, Product
from catalogue.selectors import (
    brand_products,
    brand_resolve,
    location_listings,
    product_comparison,
    product_resolve,
)
from catalogue.serializers import (
    BrandDetailSerializer,
    LocationListingSerializer,
    LocationSerializer,
    ProductDetailSerializer,
    ProductListSerializer,
)


class ProductViewSet(viewsets.ReadOnlyModelViewSet):
    """Products with at least one visible listing. A merged id answers under its survivor."""

    serializer_class = ProductListSerializer
    filterset_class = ProductFilter

    def get_queryset(self):
        return Product.objects.visible().select_related("brand", "line").order_by("name", "id")

    @extend_schema(responses=ProductDetailSerializer)
    def retrieve(self, request, pk=None):
        product = product_resolve(pk)
        comparison = product_comparison(product)
        serializer = ProductDetailSerializer(product, context={"comparison": comparison})
        return Response(serializer.data)


class BrandViewSet(viewsets.GenericViewSet):
    """A brand by slug; an alias's slug answers with its house."""

    serializer_class = BrandDetailSerializer
    lookup_field = "slug"
    queryset = Brand.objects.none()

    def retrieve(self, request, slug=None):
        brand, _ = brand_resolve(slug)
        brand.visible_products = brand_products(brand)
        return Response(BrandDetailSerializer(brand).data)


class LocationViewSet(viewsets.ReadOnlyModelViewSet):
    """Airports (visible storefronts) and what each carries at its latest price."""

    serializer_class = LocationSerializer
    lookup_field = "code"

    def get_queryset(self):
        return Location.objects.visible().select_related("retailer").order_by("iata", "code")

    @extend_schema(
        operation_id="v1_airports_retrieve", responses=LocationListingSerializer(many=True)
    )
    def retrieve(self, request, code=None):
        location = self.get_object()
        page = self.paginate_queryset(location_listings(location))
        data = LocationListingSerializer(page, many=True).data
        response = self.get_paginated_response(data)
        response.data["location"] = LocationSerializer(location).data
        return response
