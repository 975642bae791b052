"""Reads that build a public page or API answer across several models."""

from __future__ import annotations

from django.db.models import F
from django.shortcuts import get_object_or_404

from catalogue.models import Brand, Listing, Location, Product


def product_resolve(product_id) -> Product:
    """The live product an id answers to: a merged id answers under its survivor."""
    product = get_object_or_404(Product.objects.select_related("brand", "line"), pk=product_id)
    seen = set()
    while product.merged_into_id and product.pk not in seen:
        seen.add(product.pk)
        product = Product.objects.select_related("brand", "line").get(pk=product.merged_into_id)
    return product


def product_comparison(product: Product) -> list[Listing]:
    """The product at every visible location, latest price first by USD then as shown.

    Each row carries ``listing.latest`` (price, currency as shown, USD, date) or None.
    """
    listings = list(
        Listing.objects.filter(product=product)
        .visible()
        .select_related("location", "location__retailer")
        .latest_prices()
    )

    def order(listing):
        latest = listing.latest
        if latest is None:
            return (2, 0, listing.location.iata or "")
        if latest.price_usd is None:
            return (1, latest.price, listing.location.iata or "")
        return (0, latest.price_usd, listing.location.iata or "")

    return sorted(listings, key=order)


def brand_resolve(slug: str) -> tuple[Brand, bool]:
    """The house a brand slug names, following a person's alias; True if it was an alias."""
    brand = get_object_or_404(Brand, slug=slug)
    aliased = False
    seen = set()
    while brand.canonical_id and brand.pk not in seen:
        seen.add(brand.pk)
        brand = Brand.objects.get(pk=brand.canonical_id)
        aliased = True
    return brand, aliased


def brand_products(brand: Brand):
    """Live, visible products of a house and of every spelling aliased to it."""
    return (
        Product.objects.visible()
        .filter(brand__in=Brand.objects.filter(pk=brand.pk) | brand.aliases.all())
        .select_related("brand", "line")
        .order_by("line__name", "name")
    )


def location_listings(location: Location):
    return (
        Listing.objects.visible()
        .filter(location=location, product__merged_into__isnull=True)
        .select_related("product", "product__brand")
        .latest_prices()
        .order_by(F("product__name").asc())
    )
