from __future__ import annotations

import django_filters
from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from catalogue.models import Brand, Category, Listing, Product, Vertical
from catalogue.search_hook import products_found


class ProductFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label="name, brand or GTIN")
    brand = django_filters.CharFilter(method="filter_brand", label="brand slug (aliases followed)")
    gtin = django_filters.CharFilter(field_name="gtin")
    vertical = django_filters.ChoiceFilter(choices=Vertical.choices)
    category = django_filters.ModelChoiceFilter(
        queryset=Category.objects.in_order(),
        to_field_name="slug",
        method="filter_category",
        label="category of the taxonomy (its slug; a top category takes in those under it)",
    )
    airport = django_filters.CharFilter(
        method="filter_airport", label="sold at this airport (IATA code) or shop (its code)"
    )
    retailer = django_filters.CharFilter(method="filter_retailer", label="sold by (retailer slug)")
    size_min = django_filters.NumberFilter(
        field_name="quantity_value", lookup_expr="gte", label="size at least (ml or g)"
    )
    size_max = django_filters.NumberFilter(
        field_name="quantity_value", lookup_expr="lte", label="size at most (ml or g)"
    )
    price_min = django_filters.NumberFilter(
        method="filter_price_min", label="lowest latest price at least (USD)"
    )
    price_max = django_filters.NumberFilter(
        method="filter_price_max", label="lowest latest price at most (USD)"
    )
    in_stock = django_filters.BooleanFilter(
        method="filter_in_stock", label="some shop's latest price is not out of stock"
    )

    class Meta:
        model = Product
        fields = [
            "q",
            "brand",
            "gtin",
            "vertical",
            "category",
            "airport",
            "retailer",
            "size_min",
            "size_max",
            "price_min",
            "price_max",
            "in_stock",
        ]

    def filter_q(self, queryset, name, value):
        """The site search's products (misspellings, accents, merged names, brand
        spellings) and the barcode and substring matches of ``ProductQuerySet.search``."""
        found = products_found(value)
        if not found:
            return queryset.search(value)
        return queryset.filter(Q(pk__in=found) | Q(pk__in=queryset.search(value).values("pk")))

    def filter_brand(self, queryset, name, value):
        brand = Brand.objects.filter(slug=value).first()
        while brand is not None and brand.canonical_id:
            brand = Brand.objects.filter(pk=brand.canonical_id).first()
        if brand is None:
            return queryset.none()
        return queryset.filter(brand__in=[brand, *brand.aliases.all()])

    @extend_schema_field(OpenApiTypes.STR)
    def filter_category(self, queryset, name, value):
        return queryset.in_category(value.slug)

    def filter_airport(self, queryset, name, value):
        shops = Listing.objects.visible().filter(
            Q(location__iata=value.upper()) | Q(location__code=value)
        )
        return queryset.filter(pk__in=shops.values("product_id"))

    def filter_retailer(self, queryset, name, value):
        shops = Listing.objects.visible().filter(location__retailer__slug=value)
        return queryset.filter(pk__in=shops.values("product_id"))

    def filter_price_min(self, queryset, name, value):
        return queryset.with_price_summary().filter(price_min_usd__gte=value)

    def filter_price_max(self, queryset, name, value):
        return queryset.with_price_summary().filter(price_min_usd__lte=value)

    def filter_in_stock(self, queryset, name, value):
        return queryset.with_price_summary().filter(in_stock_anywhere=value)
