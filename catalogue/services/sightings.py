"""A collector's sighting of one listing: the listed layer kept verbatim, the standard layer
by the identity rules, the product resolved (pin, barcode, match key) or created.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from catalogue.collection_records import IdentityMode, RawRecord
from catalogue.identity.brands import display_name
from catalogue.identity.houses import HOUSES
from catalogue.identity.keys import House, Listed, Standard, vetoed
from catalogue.identity.quantity import Unit
from catalogue.identity.text import slug_fold
from catalogue.models import (
    LISTED_IDENTITY_COLUMNS,
    Brand,
    Listing,
    Location,
    Product,
    ProductLine,
)
from catalogue.services.book import IdentityBook, identity_book, standard_for
from catalogue.services.listings import product_follow_merges
from catalogue.services.prices import FxBook, ObservedPrice, _append_observation

if TYPE_CHECKING:
    from accounts.models import User


@dataclass(frozen=True)
class Sighting:
    """One listing as one collection saw it (the listed layer verbatim)."""

    location: Location
    source_sku: str
    listed: Listed
    vertical: str
    seen_at: datetime
    category: str = ""
    url: str = ""
    identity_mode: str = IdentityMode.GTIN_THEN_KEY


@dataclass(frozen=True)
class RawFragment:
    """The parsed fragment a sighting's listed layer was read from, kept as a RawRecord."""

    payload: dict[str, Any]
    parser_version: str
    run_id: int | None = None
    row_number: int | None = None


@dataclass(frozen=True)
class SightingResult:
    listing: Listing
    product: Product
    resolved_by: str  # pin | listing | gtin | match_key | merge (via a merged row) | new
    listing_created: bool
    product_created: bool
    standard: Standard
    price_written: bool = False


def _brand_for(standard: Standard, listed_brand: str | None, book: IdentityBook) -> Brand | None:
    """The Brand row of the listing's house: the brand field's own row is kept (a spelling
    seen), and the house the rules read (from the title, for a placeholder or a brand field
    naming no house) is the product's brand."""
    if standard.house is None:
        return None
    brand = None
    if standard.brand_key:
        brand = book.brands.get(standard.brand_key)
        if brand is None:
            brand, _ = Brand.objects.get_or_create(
                slug=standard.brand_key,
                defaults={"name": display_name([listed_brand or standard.brand_key])},
            )
            book.brands[brand.slug] = brand
            book.houses.setdefault(brand.slug, House(slug=brand.slug, spellings=(brand.name,)))
    house_slug = standard.house.slug
    house = book.brands.get(house_slug)
    if house is None and (brand is None or brand.slug != house_slug):
        rule = HOUSES.get(house_slug)
        house, _ = Brand.objects.get_or_create(
            slug=house_slug, defaults={"name": rule.display if rule else house_slug}
        )
        book.brands[house.slug] = house
    return house or brand


def _line_for(
    brand: Brand | None, standard: Standard, book: IdentityBook | None = None
) -> ProductLine | None:
    if brand is None or not standard.line_key:
        return None
    cache_key = (brand.pk, standard.line_key)
    if book is not None and cache_key in book.lines:
        return book.lines[cache_key]
    line, _ = ProductLine.objects.get_or_create(
        brand=brand,
        key=standard.line_key,
        defaults={"name": standard.line_key.title(), "slug": slug_fold(standard.line_key)[:300]},
    )
    seen: set[UUID] = set()
    while line.canonical_id and line.pk not in seen:
        seen.add(line.pk)
        line = ProductLine.objects.get(pk=line.canonical_id)
    if book is not None:
        book.lines[cache_key] = line
    return line


def _standard_fields(standard: Standard) -> dict[str, Any]:
    q = standard.quantity
    fields = {
        "match_key": standard.match_key,
        "brand_key": standard.brand_key or "",
        "name_key": standard.name_key,
        "vertical": standard.vertical,
        "quantity_value": q.value,
        "quantity_unit": str(q.unit) if q.unit else "",
        "pack_count": q.pack_count,
        "pack_unit_value": q.pack_unit_value,
        "form": str(q.form),
        "set_contents": list(q.set_contents) if q.set_contents else None,
        "quantity_state": str(q.state),
        "size_value": q.size_value,
        "size_unit": q.size_unit or "",
        "size_ml": q.size_ml if q.unit == Unit.ML else None,
        "abv": standard.abv,
        "identity_rules_version": standard.rules_version,
    }
    return fields


def _product_attributes(standard: Standard) -> dict[str, Any]:
    attributes = dict(standard.attributes)
    if standard.abv is not None:
        attributes["abv"] = str(standard.abv)
    return attributes


def _resolve_by_rules(standard: Standard, *, identity_mode: str) -> tuple[Product | None, str]:
    if identity_mode == IdentityMode.OWN_ONLY:
        return None, "new"
    gtin = standard.gtin.gtin
    if gtin and identity_mode == IdentityMode.GTIN_THEN_KEY:
        product = Product.objects.canonical().filter(gtin=gtin).first()
        if product is not None:
            return product, "gtin"
        # A barcode a person's merge dropped is kept on the merged row: follow it.
        merged = Product.objects.filter(gtin=gtin, merged_into__isnull=False).first()
        if merged is not None:
            return product_follow_merges(merged), "merge"
    if not standard.keyable:
        return None, "new"
    mine = _product_attributes(standard)
    rows = Product.objects.filter(match_key=standard.match_key)
    # Live rows first; then merged rows, which keep the key of the current rules so a new
    # listing worded like a merged product follows the person's merge to its survivor.
    for candidate in rows.order_by(F("merged_into").asc(nulls_first=True), "created_at"):
        via_merge = candidate.merged_into_id is not None
        if via_merge:
            candidate = product_follow_merges(candidate)
        # Two different barcodes are a veto no rule overrides.
        if gtin and candidate.gtin and candidate.gtin != gtin:
            continue
        if vetoed(standard.vertical, mine, candidate.attributes):
            continue
        return candidate, "merge" if via_merge else "match_key"
    return None, "new"


def _product_create(
    standard: Standard, *, listed: Listed, category: str, book: IdentityBook, gtin_checked: bool
) -> Product:
    brand = _brand_for(standard, listed.brand, book)
    gtin = standard.gtin.gtin
    if gtin and not gtin_checked and Product.objects.canonical().filter(gtin=gtin).exists():
        # The barcode already belongs to another product (e.g. a key-only source): this
        # row keeps its barcode in the raw record and the listed layer, not on the product.
        gtin = None
    return Product.objects.create(
        gtin=gtin,
        gtin_source="collected" if gtin else "",
        brand_name=listed.brand or "",
        brand=brand,
        line=_line_for(brand, standard, book),
        name=" ".join((listed.name or "").split())[:300] or standard.match_key[:300],
        category=category,
        attributes=_product_attributes(standard),
        **_standard_fields(standard),
    )


def _listed_columns(standard: Standard, listed: Listed) -> dict[str, Any]:
    q = standard.quantity
    return {
        "listed_brand": listed.brand,
        "listed_name": listed.name,
        "listed_variant": listed.variant,
        "listed_quantity_text": listed.quantity_text,
        "listed_category": listed.category,
        "listed_gtin": listed.gtin,
        "listed_brand_key": standard.brand_key,
        "listed_name_key": standard.name_key[:300] if listed.name else None,
        "listed_quantity_value": q.value,
        "listed_quantity_unit": str(q.unit) if q.unit else None,
    }


def _raw_record_keep(listing: Listing, raw: RawFragment) -> int:
    record = RawRecord.objects.create(
        listing_id=listing.pk,
        run_id=raw.run_id,
        row_number=raw.row_number,
        payload=raw.payload,
        parser_version=raw.parser_version,
    )
    return record.pk


def _raw_record_for(listing: Listing, raw: RawFragment) -> int:
    """The listing's raw record holding exactly this fragment, kept once: a replayed row
    (or one of two rows a shop lists under one SKU) points at the record already kept."""
    kept = (
        RawRecord.objects.filter(
            listing_id=listing.pk, parser_version=raw.parser_version, payload=raw.payload
        )
        .order_by("-created_at")
        .values_list("pk", flat=True)
        .first()
    )
    return kept if kept is not None else _raw_record_keep(listing, raw)


@transaction.atomic
def listing_record_sighting(
    *,
    sighting: Sighting,
    book: IdentityBook | None = None,
    price: ObservedPrice | None = None,
    raw: RawFragment | None = None,
    fx: FxBook | None = None,
    actor: User | None = None,
) -> SightingResult:
    """Write one sighting: find or create its listing and product, refresh the listed layer,
    keep the raw record and append the price, all or nothing.

    Resolution order: the listing's pin, the listing's current product (following merges),
    then for a new listing the GTIN, the match key (house and variation through aliases,
    vetoes applied) and finally a new product. Holds a row lock on an existing listing.
    ``raw``, when given, is kept as a RawRecord of the listing and becomes its listed record,
    unless one of the listing's raw records already holds the same fragment (then that one
    becomes its listed record again and nothing new is kept).
    """
    book = book if book is not None else identity_book()
    standard = standard_for(sighting.listed, vertical=sighting.vertical, book=book)
    listing = (
        Listing.objects.select_for_update()
        .filter(location=sighting.location, source_sku=sighting.source_sku)
        .first()
    )
    product_created = False
    if listing is not None and listing.pinned_product is not None:
        product = product_follow_merges(listing.pinned_product)
        resolved_by = "pin"
    elif listing is not None:
        product = product_follow_merges(listing.product)
        resolved_by = "listing"
    else:
        found, resolved_by = _resolve_by_rules(standard, identity_mode=sighting.identity_mode)
        if found is not None:
            product = found
        else:
            product = _product_create(
                standard,
                listed=sighting.listed,
                category=sighting.category,
                book=book,
                # Resolution already looked the barcode up when the mode allows it.
                gtin_checked=sighting.identity_mode == IdentityMode.GTIN_THEN_KEY,
            )
            product_created = True

    if (
        not product_created
        and not product.gtin
        and standard.gtin.gtin
        and sighting.identity_mode == IdentityMode.GTIN_THEN_KEY
        and not Product.objects.canonical().filter(gtin=standard.gtin.gtin).exists()
    ):
        # The shop published a barcode for a product we knew without one.
        product.gtin = standard.gtin.gtin
        product.gtin_source = "collected"
        product.save(update_fields=["gtin", "gtin_source", "updated_at"])

    columns = _listed_columns(standard, sighting.listed)
    listing_created = listing is None
    if listing is None:
        listing = Listing(
            product=product,
            location=sighting.location,
            source_sku=sighting.source_sku,
            url=sighting.url,
            last_seen_at=sighting.seen_at,
            **columns,
        )
        # The id is made in Python and foreign keys are checked at commit, so the raw
        # record can be written first and the listing inserted already pointing at it.
        if raw is not None:
            listing.listed_record_id = _raw_record_keep(listing, raw)
        listing.save(force_insert=True)
    else:
        if raw is not None:
            columns["listed_record_id"] = _raw_record_for(listing, raw)
        changed = {k: v for k, v in columns.items() if getattr(listing, k) != v}
        if changed.keys() & set(LISTED_IDENTITY_COLUMNS) and any(
            getattr(listing, k) is not None for k in LISTED_IDENTITY_COLUMNS
        ):
            # What the shop says the product is changed (a first fill of a listing that
            # held none of it is not a change): later than its last check, the listing
            # waits for a fresh read (services.reverifications_queue_changed_data).
            changed["listed_changed_at"] = timezone.now()
        if listing.product_id != product.pk:
            changed["product"] = product
        if sighting.url and listing.url != sighting.url:
            changed["url"] = sighting.url
        if listing.last_seen_at is None or sighting.seen_at > listing.last_seen_at:
            changed["last_seen_at"] = sighting.seen_at
        for key, value in changed.items():
            setattr(listing, key, value)
        if changed:
            fields = ["listed_record" if k == "listed_record_id" else k for k in changed]
            listing.save(update_fields=[*fields, "updated_at"])
    observation = None
    if price is not None:
        observation = _append_observation(listing, price, fx)
    return SightingResult(
        listing=listing,
        product=product,
        resolved_by=resolved_by,
        listing_created=listing_created,
        product_created=product_created,
        standard=standard,
        price_written=observation is not None,
    )
