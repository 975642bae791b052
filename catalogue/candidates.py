"""The catalogue's levels of the merge-candidate queue: brands, lines and products.

Registered with ``curation.registry`` from ``CatalogueConfig.ready()``: the queue learns
which table each level's ids point into, when a side no longer stands alone, which side an
accepted pair keeps, what accepting does (a product merge, a brand or line alias), how the
console shows a side, and the rules that propose pairs (``catalogue.suggest``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Count, Prefetch

from catalogue.identity.keys import UNKNOWN
from catalogue.models import Brand, Listing, Product, ProductLine
from catalogue.services import brand_alias_apply, line_alias_apply, product_merge
from catalogue.suggest import KNOWN_REBRANDS, all_proposals
from curation.models import MergeLevel
from curation.registry import LevelResolver, level_register, proposer_register

if TYPE_CHECKING:
    from accounts.models import User

SIDE_TEMPLATE = "catalogue/admin/candidate_side.html"


def _gone_merged(model):
    def gone(ids: set) -> set:
        standing = model.objects.filter(pk__in=ids, merged_into__isnull=True)
        return ids - set(standing.values_list("pk", flat=True))

    return gone


def _gone_aliased(model):
    def gone(ids: set) -> set:
        standing = model.objects.filter(pk__in=ids, canonical__isnull=True)
        return ids - set(standing.values_list("pk", flat=True))

    return gone


def product_survivor(left: Product, right: Product) -> Product:
    """The one with a house, then more listings, then a barcode, then the older."""

    def rank(p):
        housed = not p.match_key.startswith(f"{UNKNOWN}|")
        return (housed, p.listings.count(), bool(p.gtin), -p.created_at.timestamp())

    return max((left, right), key=rank)


def brand_survivor(left: Brand, right: Brand) -> Brand:
    """The new name of a known rebrand, else the house with more products."""
    for old, new, _ in KNOWN_REBRANDS:
        if {left.slug, right.slug} == {old, new}:
            return left if left.slug == new else right
    return max((left, right), key=lambda b: (b.products.count(), -len(b.slug)))


def line_survivor(left: ProductLine, right: ProductLine) -> ProductLine:
    """The shorter one (its words are within the other's), else the one with more products."""
    return min((left, right), key=lambda x: (len(x.key.split()), -x.products.count()))


def _apply_product(
    *, loser: Product, survivor: Product, actor: User, note: str, confirm_two_barcodes: bool
) -> None:
    product_merge(
        loser=loser,
        survivor=survivor,
        actor=actor,
        note=note,
        confirm_two_barcodes=confirm_two_barcodes,
    )


def _apply_brand(
    *, loser: Brand, survivor: Brand, actor: User, note: str, confirm_two_barcodes: bool
) -> None:
    brand_alias_apply(alias=loser, canonical=survivor, actor=actor, note=note)


def _apply_line(
    *,
    loser: ProductLine,
    survivor: ProductLine,
    actor: User,
    note: str,
    confirm_two_barcodes: bool,
) -> None:
    line_alias_apply(alias=loser, canonical=survivor, actor=actor, note=note)


def describe_products(ids: set) -> dict:
    """Names, brands, barcodes, quantities and listings with their latest prices."""
    listings = Listing.objects.select_related("location").latest_prices().order_by("pk")
    sides = Product.objects.filter(pk__in=ids).select_related("brand", "line")
    sides = sides.prefetch_related(Prefetch("listings", queryset=listings))
    return {side.pk: side for side in sides}


def describe_lines(ids: set) -> dict:
    sides = ProductLine.objects.filter(pk__in=ids).select_related("brand")
    sides = sides.prefetch_related(
        Prefetch("products", queryset=Product.objects.canonical().order_by("name"))
    )
    return {side.pk: side for side in sides}


def describe_brands(ids: set) -> dict:
    sides = Brand.objects.filter(pk__in=ids).annotate(products_n=Count("products"))
    sides = sides.prefetch_related(
        Prefetch("lines", queryset=ProductLine.objects.filter(canonical__isnull=True))
    )
    return {side.pk: side for side in sides}


def _size(product: Product) -> str:
    if product.quantity_value:
        return f"{product.quantity_value.normalize():f} {product.quantity_unit}"
    return str(product.quantity_state or "")


def product_facts(product: Product) -> list[tuple[str, str]]:
    """What a person compares on two products (read from ``describe_products``)."""
    listings = list(product.listings.all())
    airports = sorted({x.location.iata or x.location.code for x in listings})
    prices = [
        f"{x.location.iata or x.location.code} {latest.price} {latest.currency}"
        for x in listings
        if (latest := getattr(x, "latest", None)) is not None
    ]
    return [
        ("name", product.name),
        ("brand", str(product.brand or product.brand_name or "")),
        ("line", str(product.line or "")),
        ("variation", str((product.attributes or {}).get("variation") or "")),
        ("size", _size(product)),
        ("barcode", product.gtin or ""),
        ("listings", str(len(listings))),
        ("airports", ", ".join(airports)),
        ("latest prices", "; ".join(prices)),
    ]


def line_facts(line: ProductLine) -> list[tuple[str, str]]:
    products = list(line.products.all())
    return [
        ("name", line.name),
        ("brand", str(line.brand)),
        ("key", line.key),
        ("products", str(len(products))),
        ("some products", ", ".join(p.name for p in products[:4])),
    ]


def brand_facts(brand: Brand) -> list[tuple[str, str]]:
    lines = list(brand.lines.all())
    return [
        ("name", brand.name),
        ("slug", brand.slug),
        ("products", str(getattr(brand, "products_n", ""))),
        ("lines", ", ".join(x.name for x in lines[:6])),
    ]


def product_confirmation(left: Product, right: Product) -> str:
    """Two different barcodes are a veto only a person's explicit check lifts; one barcode
    or none needs no confirmation."""
    if left.gtin and right.gtin and left.gtin != right.gtin:
        return (
            f"They carry different barcodes ({left.gtin} and {right.gtin}) and I have checked "
            "they are one product"
        )
    return ""


def register() -> None:
    """Called from ``CatalogueConfig.ready()``."""
    level_register(
        LevelResolver(
            level=MergeLevel.BRAND,
            model=Brand,
            gone=_gone_aliased(Brand),
            default_survivor=brand_survivor,
            apply=_apply_brand,
            describe=describe_brands,
            side_template=SIDE_TEMPLATE,
            facts=brand_facts,
        )
    )
    level_register(
        LevelResolver(
            level=MergeLevel.LINE,
            model=ProductLine,
            gone=_gone_aliased(ProductLine),
            default_survivor=line_survivor,
            apply=_apply_line,
            describe=describe_lines,
            side_template=SIDE_TEMPLATE,
            facts=line_facts,
        )
    )
    level_register(
        LevelResolver(
            level=MergeLevel.PRODUCT,
            model=Product,
            gone=_gone_merged(Product),
            default_survivor=product_survivor,
            apply=_apply_product,
            describe=describe_products,
            side_template=SIDE_TEMPLATE,
            facts=product_facts,
            confirmation=product_confirmation,
        )
    )
    proposer_register("catalogue", all_proposals)
