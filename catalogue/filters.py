from __future__ import annotations

import django_filters

from catalogue.models import Brand, Product, Vertical


class ProductFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label="name, brand or GTIN")
    brand = django_filters.CharFilter(method="filter_brand", label="brand slug (aliases followed)")
    gtin = django_filters.CharFilter(field_name="gtin")
    vertical = django_filters.ChoiceFilter(choices=Vertical.choices)
    category = django_filters.CharFilter(field_name="category", lookup_expr="iexact")

    class Meta:
        model = Product
        fields = ["q", "brand", "gtin", "vertical", "category"]

    def filter_q(self, queryset, name, value):
        return queryset.search(value)

    def filter_brand(self, queryset, name, value):
        brand = Brand.objects.filter(slug=value).first()
        while brand is not None and brand.canonical_id:
            brand = Brand.objects.filter(pk=brand.canonical_id).first()
        if brand is None:
            return queryset.none()
        return queryset.filter(brand__in=[brand, *brand.aliases.all()])
