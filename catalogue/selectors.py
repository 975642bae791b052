"""Reads that build a public page or API answer across several models."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict
from uuid import UUID

from django.db.models import F, QuerySet
from django.shortcuts import get_object_or_404

from catalogue.models import Brand, Listing, Location, Override, Product, ProductMerge


def product_resolve(product_id: UUID | str) -> Product:
    """The live product an id answers to: a merged id answers under its survivor."""
    product = get_object_or_404(Product.objects.select_related("brand", "line"), pk=product_id)
    seen: set[UUID] = set()
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

    def order(listing: Listing) -> tuple[int, Decimal, str]:
        latest = listing.latest
        if latest is None:
            return (2, Decimal(0), listing.location.iata or "")
        if latest.price_usd is None:
            return (1, latest.price, listing.location.iata or "")
        return (0, latest.price_usd, listing.location.iata or "")

    return sorted(listings, key=order)


def brand_resolve(slug: str) -> tuple[Brand, bool]:
    """The house a brand slug names, following a person's alias; True if it was an alias."""
    brand = get_object_or_404(Brand, slug=slug)
    aliased = False
    seen: set[UUID] = set()
    while brand.canonical_id and brand.pk not in seen:
        seen.add(brand.pk)
        brand = Brand.objects.get(pk=brand.canonical_id)
        aliased = True
    return brand, aliased


def brand_products(brand: Brand) -> QuerySet[Product]:
    """Live, visible products of a house and of every spelling aliased to it."""
    return (
        Product.objects.visible()
        .filter(brand__in=Brand.objects.filter(pk=brand.pk) | brand.aliases.all())
        .select_related("brand", "line")
        .order_by("line__name", "name")
    )


def location_listings(location: Location) -> QuerySet[Listing]:
    return (
        Listing.objects.visible()
        .filter(location=location, product__merged_into__isnull=True)
        .select_related("product", "product__brand")
        .latest_prices()
        .order_by(F("product__name").asc())
    )


# Columns behind each field a person reads on a product, and the override that can own it.
PROVENANCE_FIELDS: list[tuple[str, tuple[str, ...], str | None]] = [
    ("name", ("name",), "name"),
    ("brand", ("brand_id",), None),
    ("line", ("line_id",), "line_id"),
    ("variation", ("attributes",), "variation"),
    ("quantity", ("quantity_value", "quantity_unit", "form", "pack_count"), "quantity"),
    ("category", ("category",), "category"),
    ("barcode", ("gtin",), None),
    ("image", ("image_url",), None),
]


class ProvenanceRow(TypedDict):
    """One field of a product as a person reads it, and where its value came from."""

    field: str
    value: str
    source: str  # override | merge | collected | none | rule
    detail: str


def product_provenance(product: Product) -> list[ProvenanceRow]:
    """Where each value of a product came from: a person's override (who, when, why), a
    merge (who, when, from which row) or a rule (which rules version) / the collection.

    Three queries whatever the product: its overrides, the merges into it, their people.
    """

    overrides = {
        o.field: o
        for o in Override.objects.filter(
            entity_type="product", entity_key=str(product.pk)
        ).select_related("set_by")
    }
    merges = list(
        ProductMerge.objects.filter(to_product=product, undone_at__isnull=True)
        .select_related("merged_by")
        .order_by("-merged_at")
    )
    rows: list[ProvenanceRow] = []
    for label, columns, override_field in PROVENANCE_FIELDS:
        override = overrides.get(override_field) if override_field else None
        merge = next(
            (m for m in merges if set(columns) & set(m.detail.get("to_written", {}))), None
        )
        if override is not None:
            source = "override"
            detail = (
                f"set by {override.set_by or 'someone'} on {override.set_at:%Y-%m-%d %H:%M}: "
                f"{override.reason} (collected: {override.collected_value})"
            )
        elif merge is not None:
            source = "merge"
            detail = (
                f"inherited from {merge.from_product_id} in a merge by {merge.merged_by} on "
                f"{merge.merged_at:%Y-%m-%d %H:%M}: {merge.reason}"
            )
        elif label == "barcode":
            source = "collected" if product.gtin else "none"
            detail = "published by one of its shops" if product.gtin else "no barcode known"
        elif label == "image":
            source = "collected" if product.image_url else "none"
            detail = product.image_source or "no image"
        elif label == "name":
            source, detail = "collected", "as its first shop listed it"
        else:
            source = "rule"
            detail = f"identity rules v{product.identity_rules_version}"
        rows.append(
            {"field": label, "value": _shown(product, label), "source": source, "detail": detail}
        )
    return rows


def _shown(product: Product, label: str) -> str:
    if label == "variation":
        return product.attributes.get("variation") or ""
    if label == "quantity":
        if product.quantity_value is None:
            return product.quantity_state
        return f"{product.quantity_value.normalize():f} {product.quantity_unit} ({product.form})"
    if label == "barcode":
        return product.gtin or ""
    if label == "image":
        return product.image_url
    value = getattr(product, label)
    return "" if value is None else str(value)
