"""What a product detail's conditional GET compares (omnium.conditional): the product, its
brand and line, its listings and their locations, and its newest price observation
(observations are append-only, so the highest id dates every new price)."""

from __future__ import annotations

from django.db.models import Count, Max, QuerySet
from rest_framework.request import Request

from catalogue.models import Product
from omnium.conditional import CompiledState, parse_uuid


def _product_state(pk) -> QuerySet:
    # A merged id answers with its survivor's data: no validator of its own.
    return (
        Product.objects.filter(pk=pk, merged_into__isnull=True)
        .annotate(
            listings_n=Count("listings", distinct=True),
            listings_changed=Max("listings__updated_at"),
            locations_changed=Max("listings__location__updated_at"),
            newest_observation=Max("listings__observations__id"),
        )
        .values_list(
            "updated_at",
            "brand__updated_at",
            "line__updated_at",
            "listings_n",
            "listings_changed",
            "locations_changed",
            "newest_observation",
        )
    )


_PRODUCT_STATE = CompiledState(_product_state)


def product_freshness(request: Request, pk=None, **_kwargs) -> tuple | None:
    pk = parse_uuid(pk)
    if pk is None:
        return None
    return _PRODUCT_STATE.row(pk)
