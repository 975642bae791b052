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
        )
    )
    proposer_register("catalogue", all_proposals)
