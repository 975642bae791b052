"""Every catalogue write with an invariant: one function per operation.

Collectors, the admin, the API and management commands call these and nothing else. A
human decision (a listing pin, an alias, an override) is read first and never overwritten.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.services import audit_record
from catalogue.identity import RULES_VERSION
from catalogue.identity.brands import display_name
from catalogue.identity.keys import UNKNOWN, House, Listed, Standard, derive, vetoed
from catalogue.identity.quantity import Unit, parse_quantity
from catalogue.identity.text import slug_fold
from catalogue.models import (
    Award,
    Brand,
    FxRate,
    Listing,
    Location,
    ObservationSourceKind,
    Override,
    PriceObservation,
    PriceType,
    Product,
    ProductLine,
    ProductMerge,
    Retailer,
    VariationAlias,
)
from curation.models import MergeCandidate, MergeLevel
from curation.services import merge_candidates_supersede

CENT = Decimal("0.01")
# Who may do what, as role-group permissions: editors curate (merge, alias, override, pin),
# viewers read. Deciding queued pairs is ``curation.services.DECIDE_PERMISSION``.
EDIT_PERMISSION = "catalogue.add_productmerge"


def _by(obj: models.Model, actor, reason: str | None):
    """Stamp a curated row's next history record with the person and their reason (a rule
    passes no actor: the record then names whoever the request belongs to, or no one)."""
    if actor is not None:
        obj._history_user = actor
    if reason:
        obj._change_reason = reason
    return obj


def _record_history(model: type[models.Model], pks: Iterable, *, actor, reason: str) -> None:
    """A history record for rows changed by ``update()``, which saves no history itself."""
    rows = list(model.objects.filter(pk__in=list(pks)))
    model.history.bulk_history_create(
        rows, update=True, default_user=actor, default_change_reason=reason
    )


class IdentityMode:
    """Mirrors ``ingest.models.IdentityMode`` values; catalogue does not import ingest."""

    GTIN_THEN_KEY = "gtin_then_key"
    KEY_ONLY = "key_only"
    OWN_ONLY = "own_only"


# --- What people decided, loaded once per run -------------------------------------------


@dataclass
class IdentityBook:
    """Brand houses and variation aliases as people decided them, held for one run."""

    houses: dict[str, House] = field(default_factory=dict)
    brands: dict[str, Brand] = field(default_factory=dict)
    variation_aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    lines: dict[tuple, ProductLine | None] = field(default_factory=dict)
    # (house slug, line key) of an aliased line -> the key of its canonical line.
    line_aliases: dict[tuple[str, str], str] = field(default_factory=dict)

    def house_brand(self, slug: str) -> Brand | None:
        return self.brands.get(slug)


def identity_book() -> IdentityBook:
    """Load every brand (with its alias chain) and variation alias; both tables are small."""
    brands = {b.slug: b for b in Brand.objects.all()}
    by_id = {b.pk: b for b in brands.values()}

    def root(brand: Brand) -> Brand:
        seen = set()
        while brand.canonical_id and brand.canonical_id not in seen:
            seen.add(brand.pk)
            brand = by_id[brand.canonical_id]
        return brand

    members: dict[str, list[Brand]] = {}
    for brand in brands.values():
        members.setdefault(root(brand).slug, []).append(brand)
    houses = {}
    for brand in brands.values():
        house = root(brand)
        spellings = tuple(sorted({m.name for m in members[house.slug]}))
        houses[brand.slug] = House(slug=house.slug, spellings=spellings)
    aliases: dict[str, dict[str, str]] = {}
    for alias in VariationAlias.objects.all():
        aliases.setdefault(alias.vertical, {})[" ".join(alias.raw.lower().split())] = (
            alias.canonical
        )
    line_aliases = {}
    aliased = ProductLine.objects.filter(canonical__isnull=False).select_related("brand")
    if aliased:
        line_by_id = {line.pk: line for line in ProductLine.objects.filter(
            Q(canonical__isnull=False) | Q(aliases__isnull=False)).distinct()}  # fmt: skip
        for line in aliased:
            target, seen = line, set()
            while target.canonical_id and target.pk not in seen:
                seen.add(target.pk)
                target = line_by_id[target.canonical_id]
            line_aliases[(houses[line.brand.slug].slug, line.key)] = target.key
    return IdentityBook(
        houses=houses, brands=brands, variation_aliases=aliases, line_aliases=line_aliases
    )


def standard_for(listed: Listed, *, vertical: str, book: IdentityBook) -> Standard:
    """The standard layer of one listing under what people decided: the house through brand
    aliases, the variation through variation aliases, then the line through line aliases.
    Ingest, rederive and every alias service call this one function."""
    standard = derive(
        listed,
        vertical=vertical,
        houses=book.houses,
        variation_aliases=book.variation_aliases.get(vertical, {}),
    )
    if standard.house and book.line_aliases:
        canonical = book.line_aliases.get((standard.house.slug, standard.line_key))
        if canonical:
            standard = dataclasses.replace(standard, line_key=canonical)
    return standard


# --- Retailers and locations ------------------------------------------------------------


@transaction.atomic
def retailer_ensure(*, slug: str, name: str, actor=None, homepage: str = "") -> Retailer:
    retailer, _ = Retailer.objects.get_or_create(
        slug=slug, defaults={"name": name, "homepage": homepage}
    )
    return retailer


@transaction.atomic
def location_ensure(
    *,
    retailer: Retailer,
    code: str,
    name: str,
    currency: str,
    iata: str | None = None,
    city: str = "",
    country: str = "",
    is_catalogue_only: bool = False,
    visible: bool = False,
    actor=None,
) -> Location:
    """Create a location once; an existing one keeps whatever people since changed on it."""
    location, _ = Location.objects.get_or_create(
        code=code,
        defaults={
            "retailer": retailer,
            "name": name,
            "currency": currency,
            "iata": iata,
            "city": city,
            "country": country,
            "is_catalogue_only": is_catalogue_only,
            "visible": visible and not is_catalogue_only,
        },
    )
    return location


@transaction.atomic
def location_set_visible(*, location: Location, visible: bool, actor) -> Location:
    if location.visible == visible:
        return location
    if visible and location.is_catalogue_only:
        raise ValidationError(
            {"visible": "A catalogue-only location has no storefront to show on the site."}
        )
    location.visible = visible
    location.save(update_fields=["visible", "updated_at"])
    return location


# --- Listings: pins and ignores (human decisions) ---------------------------------------


def product_follow_merges(product: Product) -> Product:
    """The live product an id answers to, following ``merged_into`` to its end."""
    seen = set()
    while product.merged_into_id and product.pk not in seen:
        seen.add(product.pk)
        product = Product.objects.get(pk=product.merged_into_id)
    return product


@transaction.atomic
def listing_pin(*, listing: Listing, product: Product, reason: str, actor) -> Listing:
    """Pin a listing to a product; ingest honours the pin at every later sighting."""
    if not reason.strip():
        raise ValidationError({"reason": "Say why this listing is pinned."})
    product = product_follow_merges(product)
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    listing.pinned_product = product
    listing.pinned_by = actor
    listing.pinned_at = timezone.now()
    listing.pin_reason = reason
    listing.product = product
    listing.save(
        update_fields=[
            "pinned_product",
            "pinned_by",
            "pinned_at",
            "pin_reason",
            "product",
            "updated_at",
        ]
    )
    audit_record(
        actor=actor,
        action="listing.pin",
        entity=listing,
        key=listing.pk,
        detail={"product": product.pk, "reason": reason},
    )
    return listing


@transaction.atomic
def listing_unpin(*, listing: Listing, reason: str, actor) -> Listing:
    """Release a pin: the listing stays with its product until a person or a merge moves it,
    and later sightings follow the listing's product as for any other listing."""
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the pin is released."})
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    if listing.pinned_product_id is None:
        return listing
    was = listing.pinned_product_id
    listing.pinned_product, listing.pinned_by, listing.pinned_at = None, None, None
    listing.pin_reason = ""
    listing.save(
        update_fields=["pinned_product", "pinned_by", "pinned_at", "pin_reason", "updated_at"]
    )
    audit_record(
        actor=actor,
        action="listing.unpin",
        entity=listing,
        key=listing.pk,
        detail={"was_pinned_to": was, "reason": reason},
    )
    return listing


@transaction.atomic
def listing_ignore(*, listing: Listing, reason: str, actor) -> Listing:
    """Hide a listing from the site; its prices keep being collected."""
    if not reason.strip():
        raise ValidationError({"reason": "Say why this listing is ignored."})
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    if listing.ignored_at:
        return listing
    listing.ignored_at = timezone.now()
    listing.ignored_by = actor
    listing.ignore_reason = reason
    listing.save(update_fields=["ignored_at", "ignored_by", "ignore_reason", "updated_at"])
    audit_record(
        actor=actor, action="listing.ignore", entity=listing, key=listing.pk,
        detail={"reason": reason},
    )  # fmt: skip
    return listing


@transaction.atomic
def listing_unignore(*, listing: Listing, reason: str, actor) -> Listing:
    """Show an ignored listing on the site again."""
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the listing is shown again."})
    listing = Listing.objects.select_for_update().get(pk=listing.pk)
    if listing.ignored_at is None:
        return listing
    listing.ignored_at, listing.ignored_by, listing.ignore_reason = None, None, ""
    listing.save(update_fields=["ignored_at", "ignored_by", "ignore_reason", "updated_at"])
    audit_record(
        actor=actor, action="listing.unignore", entity=listing, key=listing.pk,
        detail={"reason": reason},
    )  # fmt: skip
    return listing


# --- Ingest: a sighting of one listing --------------------------------------------------


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
class SightingResult:
    listing: Listing
    product: Product
    resolved_by: str  # pin | listing | gtin | match_key | merge (via a merged row) | new
    listing_created: bool
    product_created: bool
    standard: Standard
    price_written: bool = False


def _brand_for(standard: Standard, listed_brand: str | None, book: IdentityBook) -> Brand | None:
    if not standard.brand_key:
        return None
    brand = book.brands.get(standard.brand_key)
    if brand is None:
        brand, _ = Brand.objects.get_or_create(
            slug=standard.brand_key,
            defaults={"name": display_name([listed_brand or standard.brand_key])},
        )
        book.brands[brand.slug] = brand
        book.houses.setdefault(brand.slug, House(slug=brand.slug, spellings=(brand.name,)))
    house_slug = standard.house.slug if standard.house else brand.slug
    return book.brands.get(house_slug, brand)


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
    seen = set()
    while line.canonical_id and line.pk not in seen:
        seen.add(line.pk)
        line = ProductLine.objects.get(pk=line.canonical_id)
    if book is not None:
        book.lines[cache_key] = line
    return line


def _standard_fields(standard: Standard) -> dict:
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


def _product_attributes(standard: Standard) -> dict:
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


def _listed_columns(standard: Standard, listed: Listed) -> dict:
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


@transaction.atomic
def listing_record_sighting(
    *,
    sighting: Sighting,
    book: IdentityBook | None = None,
    price: ObservedPrice | None = None,
    keep_raw: Callable[[Listing], int] | None = None,
    fx: FxBook | None = None,
    actor=None,
) -> SightingResult:
    """Write one sighting: find or create its listing and product, refresh the listed layer,
    keep the raw record and append the price, all or nothing.

    Resolution order: the listing's pin, the listing's current product (following merges),
    then for a new listing the GTIN, the match key (house and variation through aliases,
    vetoes applied) and finally a new product. Holds a row lock on an existing listing.
    ``keep_raw`` stores the fragment the listed layer was read from and returns its id (the
    collector owns raw records; the catalogue only points at them).
    """
    book = book if book is not None else identity_book()
    standard = standard_for(sighting.listed, vertical=sighting.vertical, book=book)
    listing = (
        Listing.objects.select_for_update()
        .filter(location=sighting.location, source_sku=sighting.source_sku)
        .first()
    )
    product_created = False
    if listing is not None and listing.pinned_product_id:
        product = product_follow_merges(listing.pinned_product)
        resolved_by = "pin"
    elif listing is not None:
        product = product_follow_merges(listing.product)
        resolved_by = "listing"
    else:
        product, resolved_by = _resolve_by_rules(standard, identity_mode=sighting.identity_mode)
        if product is None:
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
    if listing_created:
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
        if keep_raw is not None:
            listing.listed_record_id = keep_raw(listing)
        listing.save(force_insert=True)
    else:
        if keep_raw is not None:
            columns["listed_record_id"] = keep_raw(listing)
        changed = {k: v for k, v in columns.items() if getattr(listing, k) != v}
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


# --- Prices ----------------------------------------------------------------------------


class FxBook:
    """Rates to USD for one run: the latest rate on or before the observed day."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, object], FxRate | None] = {}

    def rate(self, currency: str, when: datetime) -> tuple[Decimal, str] | None:
        if currency == "USD":
            return Decimal(1), "identity"
        day = when.date()
        key = (currency, day)
        if key not in self._cache:
            self._cache[key] = (
                FxRate.objects.filter(currency=currency, as_of__lte=day)
                .order_by("-as_of", "source")
                .first()
            )
        fx = self._cache[key]
        if fx is None:
            return None
        return fx.rate_to_usd, f"{fx.source} ({fx.as_of})"


@dataclass(frozen=True)
class ObservedPrice:
    """What a listing showed at one moment, as a collector read it."""

    price: Decimal
    currency: str
    observed_at: datetime
    source_kind: str = ObservationSourceKind.FEED
    price_type: str = PriceType.REGULAR
    was_price: Decimal | None = None
    in_stock: bool | None = None
    run_id: int | None = None


def _append_observation(
    listing: Listing, observed: ObservedPrice, fx: FxBook | None
) -> PriceObservation | None:
    """The write behind price_observation_record; callers hold a transaction."""
    if observed.price is None or observed.price <= 0:
        raise ValidationError(
            {"price": f"A price must be a positive amount, not {observed.price!r}."}
        )
    if PriceObservation.objects.filter(listing=listing, observed_at=observed.observed_at).exists():
        return None
    rate = (fx or FxBook()).rate(observed.currency, observed.observed_at)
    price_usd = fx_rate = None
    if rate is not None:
        fx_rate = rate[0]
        price_usd = (observed.price * fx_rate).quantize(CENT, rounding=ROUND_HALF_UP)
    return PriceObservation.objects.create(
        listing=listing,
        price=observed.price,
        currency=observed.currency,
        price_usd=price_usd,
        fx_rate=fx_rate,
        was_price=observed.was_price,
        price_type=observed.price_type,
        in_stock=observed.in_stock,
        observed_at=observed.observed_at,
        run_id=observed.run_id,
        source_kind=observed.source_kind,
    )


@transaction.atomic
def price_observation_record(
    *,
    listing: Listing,
    price: Decimal,
    currency: str,
    observed_at: datetime,
    source_kind: str = ObservationSourceKind.FEED,
    price_type: str = PriceType.REGULAR,
    was_price: Decimal | None = None,
    in_stock: bool | None = None,
    run_id: int | None = None,
    fx: FxBook | None = None,
    actor=None,
) -> PriceObservation | None:
    """Append what a listing showed at ``observed_at``; None if that moment is already known.

    The currency is kept as shown; the USD figure uses the day's rate when one is known and
    stays empty (never estimated) when none is.
    """
    observed = ObservedPrice(
        price=price,
        currency=currency,
        observed_at=observed_at,
        source_kind=source_kind,
        price_type=price_type,
        was_price=was_price,
        in_stock=in_stock,
        run_id=run_id,
    )
    return _append_observation(listing, observed, fx)


@transaction.atomic
def fx_rate_record(
    *, currency: str, rate_to_usd: Decimal, as_of, source: str, actor=None
) -> FxRate:
    fx, _ = FxRate.objects.get_or_create(
        currency=currency, as_of=as_of, source=source, defaults={"rate_to_usd": rate_to_usd}
    )
    return fx


# --- Rederive ---------------------------------------------------------------------------


@dataclass
class RederiveReport:
    checked: int = 0
    changed: int = 0
    fields: dict[str, int] = field(default_factory=dict)
    kept_by_override: int = 0

    def line(self) -> str:
        detail = ", ".join(f"{k} {v}" for k, v in sorted(self.fields.items())) or "nothing"
        return (
            f"rederive: {self.checked} products checked, {self.changed} changed ({detail}); "
            f"{self.kept_by_override} values kept by a person's override"
        )


_OVERRIDE_FIELDS = {
    Override.Field.NAME: ("name",),
    Override.Field.LINE: ("line",),
    Override.Field.CATEGORY: ("category",),
    Override.Field.QUANTITY: (
        "quantity_value",
        "quantity_unit",
        "pack_count",
        "pack_unit_value",
        "form",
        "set_contents",
        "quantity_state",
        "size_ml",
    ),
    Override.Field.VARIATION: (),
}


def _note_disagreement(standard: Standard, human: dict[str, Override]) -> None:
    """Date when the rules first read something other than a person's value (and clear it
    when they agree again), so the console can show overrides the collection now disputes.
    The person's value stands either way."""
    ruled = {
        Override.Field.VARIATION: standard.variation.canonical,
        Override.Field.QUANTITY: standard.quantity.key(),
    }
    for name, override in human.items():
        if name not in ruled:
            continue
        mine = override.value
        if name == Override.Field.QUANTITY and isinstance(mine, str):
            mine = parse_quantity(mine, dedicated=True).key()
        disagrees = ruled[name] != mine
        if disagrees == (override.collector_disagrees_since is not None):
            continue
        override.collector_disagrees_since = timezone.now() if disagrees else None
        Override.objects.filter(pk=override.pk).update(
            collector_disagrees_since=override.collector_disagrees_since
        )


def _overridden(standard: Standard, human: dict[str, Override]) -> tuple[Standard, set[str]]:
    """The standard layer with a person's quantity and line in place of the rules' own, so
    the key agrees with what the person decided. Returns the fields read from overrides."""
    read = set()
    quantity = human.get(Override.Field.QUANTITY)
    if quantity is not None and isinstance(quantity.value, str):
        parsed = parse_quantity(quantity.value, dedicated=True)
        if parsed.state == "stated":
            standard = dataclasses.replace(standard, quantity=parsed)
            read.add(Override.Field.QUANTITY)
    line = human.get(Override.Field.LINE)
    if line is not None and line.value:
        chosen = ProductLine.objects.filter(pk=line.value).first()
        if chosen is not None:
            standard = dataclasses.replace(standard, line_key=_root(ProductLine, chosen).key)
            read.add(Override.Field.LINE)
    return standard, read


def _founding_listed(product: Product) -> Listed:
    own = Listing.objects.filter(product=product, pinned_product__isnull=True)
    if product.merged_into_id:
        # A merged row's listings moved to its survivor; its key is still read from the
        # listings that were its own, as its merge record lists them.
        moved = [
            row["id"]
            for detail in ProductMerge.objects.filter(
                from_product=product, undone_at__isnull=True
            ).values_list("detail", flat=True)
            for row in detail.get("listings", [])
        ]
        if moved:
            own = Listing.objects.filter(pk__in=moved, pinned_product__isnull=True)
    listing = own.order_by("created_at").first()
    if listing is not None:
        return Listed(
            brand=listing.listed_brand,
            name=listing.listed_name,
            variant=listing.listed_variant,
            quantity_text=listing.listed_quantity_text,
            category=listing.listed_category,
            gtin=listing.listed_gtin,
            abv=product.attributes.get("abv"),
        )
    return Listed(brand=product.brand_name, name=product.name, abv=product.attributes.get("abv"))


@transaction.atomic
def products_rederive(
    *,
    rules_version: int | None = None,
    products: Iterable[Product] | None = None,
    actor=None,
    reason: str = "",
) -> RederiveReport:
    """Re-resolve products under the current rules and report what changed.

    Safe to repeat: a second run changes nothing. Merged rows are rekeyed too, so ingest can
    follow a person's merge under the current rules. A field a person overrode keeps the
    person's value; a barcode and a human-set name are never touched.
    """
    book = identity_book()
    report = RederiveReport()
    queryset = Product.objects.all() if products is None else products
    if rules_version is not None and products is None:
        queryset = queryset.filter(identity_rules_version=rules_version)
    overrides: dict[str, dict[str, Override]] = {}
    for o in Override.objects.filter(entity_type="product"):
        overrides.setdefault(o.entity_key, {})[o.field] = o
    for product in queryset.select_related("brand").order_by("created_at"):
        report.checked += 1
        standard = standard_for(_founding_listed(product), vertical=product.vertical, book=book)
        human = overrides.get(str(product.pk), {})
        _note_disagreement(standard, human)
        standard, read_from_override = _overridden(standard, human)
        wanted = _standard_fields(standard)
        attributes = {**product.attributes, **_product_attributes(standard)}
        variation_override = human.get(Override.Field.VARIATION)
        if variation_override is not None:
            attributes["variation"] = variation_override.value
            report.kept_by_override += 1
            parts = wanted["match_key"].split("|")
            parts[2] = str(variation_override.value or "")
            wanted["match_key"] = "|".join(parts)
        wanted["attributes"] = attributes
        brand = _brand_for(standard, product.brand_name or None, book)
        if brand is not None:
            wanted["brand"] = brand
            wanted["line"] = _line_for(brand, standard, book)
        for name in human:
            if name not in read_from_override:
                for column in _OVERRIDE_FIELDS.get(name, ()):
                    wanted.pop(column, None)
            if name == Override.Field.QUANTITY:
                report.kept_by_override += 1
            if name == Override.Field.LINE:
                wanted.pop("line", None)
                report.kept_by_override += 1
        changed = []
        for column, value in wanted.items():
            current = getattr(product, column)
            if isinstance(current, Decimal) and value is not None:
                same = Decimal(current) == Decimal(value)
            else:
                same = current == value
            if not same:
                setattr(product, column, value)
                changed.append(column)
                report.fields[column] = report.fields.get(column, 0) + 1
        if changed:
            report.changed += 1
            _by(product, actor, reason or f"rederive under identity rules v{RULES_VERSION}")
            product.save(update_fields=[*changed, "updated_at"])
    return report


# --- Merges: a person's decision, recorded and reversible -------------------------------


def _row(obj: models.Model) -> dict:
    """Every column of a row as plain JSON values, exact enough to compare and restore.

    Not DjangoJSONEncoder: it drops microseconds from datetimes, and an undo must put
    ``updated_at`` back to the microsecond.
    """
    row = {}
    for f in obj._meta.concrete_fields:
        value = getattr(obj, f.attname)
        if value is None or isinstance(f, models.JSONField):
            row[f.attname] = value
        elif isinstance(value, datetime):
            row[f.attname] = value.isoformat()
        elif isinstance(value, bool | int | str):
            row[f.attname] = value
        else:  # Decimal, UUID, date
            row[f.attname] = str(value)
    return row


def _column_value(model: type[models.Model], attname: str, value):
    """A snapshot value back in the column's Python type."""
    f = next(f for f in model._meta.concrete_fields if f.attname == attname)
    if value is None or isinstance(f, models.JSONField):
        return value
    return f.to_python(value)


def _put_back(model: type[models.Model], pk, before: dict, written: dict) -> list[str]:
    """Return each column a merge wrote to the value ``before`` it, where it still holds
    what the merge wrote; a column someone changed since keeps their value (listed in the
    return). When the row is then exactly as before, ``updated_at`` goes back too, so an
    untouched merge and undo leave no trace on the row."""
    current = _row(model.objects.select_for_update().get(pk=pk))
    values, kept = {}, []
    for column, merge_value in written.items():
        if current[column] == merge_value:
            values[column] = before[column]
        else:
            kept.append(column)
    after = {**current, **values}
    if all(after[c] == before[c] for c in before if c != "updated_at"):
        values["updated_at"] = before["updated_at"]
    elif "updated_at" in before:
        values["updated_at"] = timezone.now().isoformat()
    # update() rather than save(): auto_now would otherwise stamp updated_at anew.
    model.objects.filter(pk=pk).update(**{c: _column_value(model, c, v) for c, v in values.items()})
    return kept


# Fields the survivor takes from the merged row when it has no value of its own (M7), in
# groups that move together, with the override field that makes each group a person's.
_QUANTITY_COLUMNS = _OVERRIDE_FIELDS[Override.Field.QUANTITY] + ("size_value", "size_unit")
_INHERITED_GROUPS: list[tuple[str, tuple[str, ...], str | None]] = [
    ("quantity", _QUANTITY_COLUMNS, Override.Field.QUANTITY),
    ("category", ("category",), Override.Field.CATEGORY),
    ("line", ("line_id",), Override.Field.LINE),
    ("brand", ("brand_id",), None),
    ("strength", ("abv",), None),
    ("origin", ("country_of_origin",), None),
]
_IMAGE_COLUMNS = ("image_url", "thumb_url", "image_source", "image_checked")


def _lacks(product: Product, group: str, columns: tuple[str, ...]) -> bool:
    if group == "quantity":
        # A quantity the rules could not read is as good as none; a stated one is kept.
        return product.quantity_state != "stated"
    return all(getattr(product, c) in (None, "") for c in columns)


def _inherit(
    survivor: Product, loser: Product, *, note: str, confirm_two_barcodes: bool
) -> tuple[list[str], dict]:
    """Apply M7 to ``survivor`` in memory; return the columns changed and the record."""
    changed: list[str] = []
    record: dict = {}
    if survivor.gtin and loser.gtin and survivor.gtin != loser.gtin:
        # Two barcodes are a veto no rule overrides: only a person may confirm the pair.
        if not confirm_two_barcodes:
            raise ValidationError(
                {
                    "confirm_two_barcodes": (
                        f"The products carry different barcodes ({survivor.gtin} and "
                        f"{loser.gtin}); only a person who has checked may confirm them."
                    )
                }
            )
        record["barcode"] = {"won": survivor.gtin, "dropped": loser.gtin, "why": note}
    elif not survivor.gtin and loser.gtin:
        # The survivor's own shops never published this barcode: gtin_source says so.
        survivor.gtin, survivor.gtin_source = loser.gtin, "merge"
        changed += ["gtin", "gtin_source"]
        record["barcode"] = {"inherited": loser.gtin, "from": str(loser.pk)}
    if not survivor.image_url and loser.image_url:
        for column in _IMAGE_COLUMNS:
            setattr(survivor, column, getattr(loser, column))
        changed += list(_IMAGE_COLUMNS)
        record["image"] = {"from": str(loser.pk), "source": loser.image_source}
    decided = set(
        Override.objects.filter(entity_type="product", entity_key=str(survivor.pk)).values_list(
            "field", flat=True
        )
    )
    taken = []
    for group, columns, override_field in _INHERITED_GROUPS:
        if override_field in decided:
            continue  # A person's value on the survivor, even an empty one, stands.
        if _lacks(survivor, group, columns) and not _lacks(loser, group, columns):
            for column in columns:
                setattr(survivor, column, getattr(loser, column))
            changed += list(columns)
            taken.append(group)
    missing = {k: v for k, v in loser.attributes.items() if k not in survivor.attributes}
    if Override.Field.VARIATION in decided:
        missing.pop("variation", None)
    if missing:
        survivor.attributes = {**survivor.attributes, **missing}
        changed.append("attributes")
        taken.append("attributes")
    if taken:
        record["fields"] = {"from": str(loser.pk), "taken": taken}
    return changed, record


@transaction.atomic
def product_merge(
    *,
    loser: Product,
    survivor: Product,
    actor,
    note: str,
    confirm_two_barcodes: bool = False,
) -> ProductMerge:
    """Merge ``loser`` into ``survivor`` as a person decided, and record it.

    The loser keeps its row with ``merged_into`` set; its listings and awards move to the
    survivor; the survivor inherits by M7 (barcode, image, then the fields it lacks) and a
    person's override on it is never overwritten. Two different barcodes refuse unless
    ``confirm_two_barcodes`` (the note then says why). Holds row locks on both products,
    taken in key order so two merges of the same pair cannot deadlock.
    """
    if not (note or "").strip():
        raise ValidationError({"note": "Say why these are one product."})
    if loser.pk == survivor.pk:
        raise ValidationError("A product cannot be merged into itself.")
    rows = Product.objects.select_for_update().filter(pk__in=[loser.pk, survivor.pk])
    locked = {p.pk: p for p in rows.order_by("pk")}
    loser, survivor = locked[loser.pk], locked[survivor.pk]
    for product in (loser, survivor):
        if product.merged_into_id:
            raise ValidationError(f"{product} is already merged into another product.")

    from_before, to_before = _row(loser), _row(survivor)
    listings = list(Listing.objects.select_for_update().filter(product=loser).order_by("pk"))
    awards = list(Award.objects.select_for_update().filter(product=loser).order_by("pk"))
    changed, record = _inherit(
        survivor, loser, note=note, confirm_two_barcodes=confirm_two_barcodes
    )

    # The loser stops being live first: the survivor may take its barcode, and a barcode
    # is unique among live products only.
    loser.merged_into = survivor
    _by(loser, actor, f"merged: {note}").save(update_fields=["merged_into", "updated_at"])
    if changed:
        _by(survivor, actor, f"inherited in a merge: {note}")
        survivor.save(update_fields=[*changed, "updated_at"])
    Listing.objects.filter(pk__in=[x.pk for x in listings]).update(
        product=survivor, updated_at=timezone.now()
    )
    Award.objects.filter(pk__in=[x.pk for x in awards]).update(
        product=survivor, updated_at=timezone.now()
    )

    # A queued pair with the loser in it is about a row that no longer stands alone.
    superseded = list(
        MergeCandidate.objects.select_for_update()
        .filter(level=MergeLevel.PRODUCT, status=MergeCandidate.Status.OPEN)
        .filter(Q(left_id=loser.pk) | Q(right_id=loser.pk))
        .values_list("pk", flat=True)
    )
    MergeCandidate.objects.filter(pk__in=superseded).update(
        status=MergeCandidate.Status.SUPERSEDED, decided_at=timezone.now()
    )

    loser.refresh_from_db()
    survivor.refresh_from_db()
    survivor_row = _row(survivor)
    merge = ProductMerge.objects.create(
        from_product=loser,
        to_product=survivor,
        merged_by=actor,
        merged_at=timezone.now(),
        reason=note,
        detail={
            **record,
            # What the merge wrote to each row, so an undo can tell its own work from
            # a change someone made since.
            "from_written": {"merged_into_id": str(survivor.pk)},
            "to_written": {c: survivor_row[c] for c in _attnames(Product, changed)},
            "listings": [_row(x) for x in listings],
            "awards": [_row(x) for x in awards],
            "superseded_candidates": [str(pk) for pk in superseded],
        },
        from_snapshot=from_before,
        to_snapshot=to_before,
    )
    audit_record(
        actor=actor,
        action="product.merge",
        entity=loser,
        key=loser.pk,
        detail={
            "into": survivor.pk,
            "merge": merge.pk,
            "note": note,
            "listings": len(listings),
            "awards": len(awards),
            **record,
        },
    )
    return merge


def _attnames(model: type[models.Model], names: Iterable[str]) -> list[str]:
    by_name = {f.name: f.attname for f in model._meta.concrete_fields}
    by_name.update({f.attname: f.attname for f in model._meta.concrete_fields})
    return [by_name[n] for n in dict.fromkeys(names)]


@transaction.atomic
def product_unmerge(*, merge: ProductMerge, actor, note: str) -> ProductMerge:
    """Undo a merge from its record: both products, their listings and awards go back to
    what they were, except where a person changed something since (that stays, and the
    audit row lists it).

    Refused when the survivor has itself been merged since (undo that merge first). Holds
    row locks on the merge record and both products.
    """
    if not (note or "").strip():
        raise ValidationError({"note": "Say why this merge is undone."})
    merge = ProductMerge.objects.select_for_update().get(pk=merge.pk)
    if merge.undone_at is not None:
        raise ValidationError("This merge has already been undone.")
    rows = Product.objects.select_for_update().filter(
        pk__in=[merge.from_product_id, merge.to_product_id]
    )
    products = {p.pk: p for p in rows.order_by("pk")}
    loser, survivor = products[merge.from_product_id], products[merge.to_product_id]
    if survivor.merged_into_id:
        raise ValidationError(
            f"{survivor} has since been merged into another product; undo that merge first."
        )
    if loser.merged_into_id != survivor.pk:
        raise ValidationError(f"{loser} no longer forwards to {survivor}.")

    detail = merge.detail
    kept: dict[str, list[str]] = {}
    # The survivor gives back an inherited barcode before the loser is live again.
    kept["to"] = _put_back(Product, survivor.pk, merge.to_snapshot, detail["to_written"])
    kept["from"] = _put_back(Product, loser.pk, merge.from_snapshot, detail["from_written"])
    _record_history(Product, [survivor.pk, loser.pk], actor=actor, reason=f"merge undone: {note}")
    written_product = {"product_id": str(survivor.pk)}
    for model, key in ((Listing, "listings"), (Award, "awards")):
        for before in detail[key]:
            if _put_back(model, before["id"], before, written_product):
                kept.setdefault(key, []).append(before["id"])

    # Pairs this merge closed are open again, unless a person has decided them since.
    MergeCandidate.objects.filter(
        pk__in=detail.get("superseded_candidates", []),
        status=MergeCandidate.Status.SUPERSEDED,
    ).update(status=MergeCandidate.Status.OPEN, decided_at=None)

    merge.undone_at = timezone.now()
    merge.undone_by = actor
    merge.undo_reason = note
    merge.save(update_fields=["undone_at", "undone_by", "undo_reason"])
    audit_record(
        actor=actor,
        action="product.unmerge",
        entity=loser,
        key=loser.pk,
        detail={
            "from": survivor.pk,
            "merge": merge.pk,
            "note": note,
            "kept": {k: v for k, v in kept.items() if v},
        },
    )
    return merge


# --- Aliases at three levels: a person's decision, followed by every reader --------------


@dataclass
class AliasReport:
    """What applying one alias did, for the person who applied it and the audit row."""

    moved_lines: int = 0
    aliased_lines: int = 0
    moved_products: int = 0
    rekeyed: int = 0
    folded: int = 0
    left_for_a_person: int = 0
    superseded: int = 0

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _root(model, obj):
    seen = set()
    while obj.canonical_id and obj.pk not in seen:
        seen.add(obj.pk)
        obj = model.objects.get(pk=obj.canonical_id)
    return obj


@transaction.atomic
def products_fold(*, products: Iterable[Product], actor, note: str) -> tuple[int, int]:
    """Merge every live product that now agrees on all key parts with one of ``products``
    into the oldest of its key, as the person who applied the alias decided.

    Two different barcodes or a vetoing attribute are never folded by a rule: those pairs
    stay apart for ``suggest`` to offer. Returns (folded, left for a person).
    """
    keys = set(
        Product.objects.canonical()
        .filter(pk__in=[p.pk for p in products])
        .exclude(match_key__startswith=f"{UNKNOWN}|")
        .values_list("match_key", flat=True)
    )
    folded = left = 0
    for key in sorted(keys):
        standard_parts = key.split("|")
        if UNKNOWN in standard_parts[:2] or standard_parts[3] == "unknown":
            continue  # An unknown house, line or quantity never agrees with anything.
        group = list(Product.objects.canonical().filter(match_key=key).order_by("created_at"))
        survivor = group[0]
        for other in group[1:]:
            survivor.refresh_from_db()
            two_barcodes = survivor.gtin and other.gtin and survivor.gtin != other.gtin
            if two_barcodes or vetoed(survivor.vertical, survivor.attributes, other.attributes):
                left += 1
                continue
            product_merge(loser=other, survivor=survivor, actor=actor, note=f"Folded: {note}")
            folded += 1
    return folded, left


def _rekey_and_fold(products, *, actor, note: str, report: AliasReport) -> None:
    affected = list(products)
    ids = [p.pk for p in affected]
    report.rekeyed = products_rederive(
        products=Product.objects.filter(pk__in=ids), actor=actor, reason=f"re-keyed: {note}"
    ).changed
    report.folded, report.left_for_a_person = products_fold(
        products=affected, actor=actor, note=note
    )
    report.superseded = merge_candidates_supersede()


def _require_note(note: str) -> None:
    if not (note or "").strip():
        raise ValidationError({"note": "Say why these are one."})


@transaction.atomic
def brand_alias_apply(
    *, alias: Brand, canonical: Brand, actor, note: str, preferred_name: str = ""
) -> AliasReport:
    """Make ``alias`` a spelling of ``canonical``'s house, as a person decided.

    Its lines move to the house (a line whose key the house already has becomes an alias of
    that line), its products follow, and every product keyed through it is re-keyed by the
    rules ingest uses; whatever then agrees on all key parts is folded. ``preferred_name``
    renames the house. Holds row locks on both brands.
    """
    _require_note(note)
    locked = {b.pk: b for b in Brand.objects.select_for_update().filter(
        pk__in=[alias.pk, canonical.pk]).order_by("pk")}  # fmt: skip
    alias, canonical = locked[alias.pk], _root(Brand, locked[canonical.pk])
    if alias.pk == canonical.pk:
        raise ValidationError("A brand cannot be an alias of itself (or of one of its aliases).")
    if alias.canonical_id and alias.canonical_id != canonical.pk:
        raise ValidationError(f"{alias} is already an alias of another house.")
    now = timezone.now()
    report = AliasReport()
    spellings = [alias, *Brand.objects.filter(canonical=alias)]
    for brand in spellings:
        brand.canonical, brand.decided_by, brand.decided_at = canonical, actor, now
        _by(brand, actor, note)
        brand.save(update_fields=["canonical", "decided_by", "decided_at", "updated_at"])
    if preferred_name.strip() and preferred_name.strip() != canonical.name:
        canonical.name = preferred_name.strip()
        _by(canonical, actor, note)
        canonical.save(update_fields=["name", "updated_at"])
    house_lines = {line.key: line for line in ProductLine.objects.filter(brand=canonical)}
    for line in ProductLine.objects.filter(brand__in=spellings).order_by("key"):
        _by(line, actor, note)
        target = house_lines.get(line.key)
        if target is None:
            line.brand = canonical
            line.save(update_fields=["brand", "updated_at"])
            house_lines[line.key] = line
            report.moved_lines += 1
        else:
            line.canonical, line.decided_by, line.decided_at = (
                _root(ProductLine, target),
                actor,
                now,
            )
            line.save(update_fields=["canonical", "decided_by", "decided_at", "updated_at"])
            report.aliased_lines += 1
    affected = Product.objects.filter(
        Q(brand__in=spellings) | Q(brand_key__in=[b.slug for b in spellings])
    )
    report.moved_products = affected.count()
    _rekey_and_fold(affected, actor=actor, note=note, report=report)
    audit_record(
        actor=actor,
        action="brand.alias",
        entity=alias,
        key=alias.pk,
        detail={"canonical": canonical.pk, "note": note, **report.as_dict()},
    )
    return report


@transaction.atomic
def line_alias_apply(
    *, alias: ProductLine, canonical: ProductLine, actor, note: str, preferred_name: str = ""
) -> AliasReport:
    """Make ``alias`` another wording of ``canonical`` (one house), as a person decided:
    its products move to the canonical line and are re-keyed under its key; whatever then
    agrees on all key parts is folded. Holds row locks on both lines."""
    _require_note(note)
    locked = {x.pk: x for x in ProductLine.objects.select_for_update().filter(
        pk__in=[alias.pk, canonical.pk]).select_related("brand").order_by("pk")}  # fmt: skip
    alias, canonical = locked[alias.pk], _root(ProductLine, locked[canonical.pk])
    if alias.pk == canonical.pk:
        raise ValidationError("A line cannot be an alias of itself (or of one of its aliases).")
    if _root(Brand, alias.brand).pk != _root(Brand, canonical.brand).pk:
        raise ValidationError(
            f"'{alias}' and '{canonical}' belong to different houses; alias the brands first."
        )
    if alias.canonical_id and alias.canonical_id != canonical.pk:
        raise ValidationError(f"'{alias}' is already an alias of another line.")
    now = timezone.now()
    report = AliasReport()
    wordings = [alias, *ProductLine.objects.filter(canonical=alias)]
    for line in wordings:
        line.canonical, line.decided_by, line.decided_at = canonical, actor, now
        _by(line, actor, note)
        line.save(update_fields=["canonical", "decided_by", "decided_at", "updated_at"])
    if preferred_name.strip() and preferred_name.strip() != canonical.name:
        canonical.name = preferred_name.strip()
        _by(canonical, actor, note)
        canonical.save(update_fields=["name", "updated_at"])
    affected = Product.objects.filter(line__in=wordings)
    report.moved_products = affected.count()
    _rekey_and_fold(affected, actor=actor, note=note, report=report)
    audit_record(
        actor=actor,
        action="line.alias",
        entity=alias,
        key=alias.pk,
        detail={"canonical": canonical.pk, "note": note, **report.as_dict()},
    )
    return report


@transaction.atomic
def variation_alias_set(
    *,
    vertical: str,
    raw: str,
    canonical: str,
    actor,
    note: str,
    display: str = "",
    kind: str = "",
) -> tuple[VariationAlias, AliasReport]:
    """Say what a variation wording means ("elixir parfum intense" → "elixir"), as a person
    decided, and re-key every product of the vertical that names it; whatever then agrees
    on all key parts is folded."""
    _require_note(note)
    raw = " ".join((raw or "").lower().split())
    canonical = " ".join((canonical or "").lower().split())
    if not raw or not canonical:
        raise ValidationError("A variation alias needs the wording and what it means.")
    alias = VariationAlias.objects.select_for_update().filter(vertical=vertical, raw=raw).first()
    alias = alias or VariationAlias(vertical=vertical, raw=raw)
    alias.canonical, alias.display, alias.kind = canonical, display, kind
    alias.decided_by, alias.decided_at = actor, timezone.now()
    _by(alias, actor, note)
    alias.save()
    report = AliasReport()
    affected = (
        Product.objects.filter(vertical=vertical)
        .filter(
            Q(attributes__variation__in=[raw, f"?{raw}"])
            | Q(name_key__icontains=raw)
            | Q(listings__listed_variant__iexact=raw)
        )
        .distinct()
    )
    report.moved_products = affected.count()
    _rekey_and_fold(affected, actor=actor, note=note, report=report)
    audit_record(
        actor=actor,
        action="variation.alias",
        entity=alias,
        key=alias.pk,
        detail={"raw": raw, "canonical": canonical, "note": note, **report.as_dict()},
    )
    return alias, report


# --- Overrides: a person's value over a rule's ----------------------------------------


def _override_value(product: Product, field_name: str, value):
    """Check and normalise a person's value for ``field_name`` of ``product``."""
    text = "" if value is None else str(value).strip()
    if field_name == Override.Field.NAME:
        if not text:
            raise ValidationError({"value": "A product needs a name."})
        return " ".join(text.split())[:300]
    if field_name == Override.Field.CATEGORY:
        return text[:200]
    if field_name == Override.Field.VARIATION:
        return " ".join(text.lower().split())
    if field_name == Override.Field.QUANTITY:
        if parse_quantity(text, dedicated=True).state != "stated":
            raise ValidationError({"value": f"No quantity can be read from {text!r}."})
        return text
    if field_name == Override.Field.LINE:
        line = ProductLine.objects.filter(brand=product.brand_id, key=text.lower()).first()
        if line is None:
            try:
                line = ProductLine.objects.filter(pk=uuid.UUID(text)).first()
            except ValueError:
                line = None
        if line is None or product.brand_id is None:
            raise ValidationError({"value": f"No line {text!r} under {product.brand or '—'}."})
        if _root(Brand, line.brand).pk != _root(Brand, product.brand).pk:
            raise ValidationError({"value": f"'{line}' belongs to another house."})
        return str(_root(ProductLine, line).pk)
    raise ValidationError({"field": f"{field_name!r} cannot be overridden."})


def _collected(product: Product, field_name: str):
    if field_name == Override.Field.NAME:
        return product.name
    if field_name == Override.Field.CATEGORY:
        return product.category
    if field_name == Override.Field.VARIATION:
        return product.attributes.get("variation")
    if field_name == Override.Field.LINE:
        return str(product.line_id) if product.line_id else None
    if field_name == Override.Field.QUANTITY:
        return product.match_key.split("|")[3] if product.match_key.count("|") >= 3 else None
    return None


def _apply_override(product: Product, field_name: str, value) -> list[str]:
    """Write a person's value onto the product columns rederive leaves to people."""
    if field_name == Override.Field.NAME:
        product.name = value
        return ["name"]
    if field_name == Override.Field.CATEGORY:
        product.category = value
        return ["category"]
    if field_name == Override.Field.LINE:
        product.line_id = uuid.UUID(value)
        return ["line"]
    return []  # Variation and quantity are written by the rederive that follows.


@transaction.atomic
def override_set(*, product: Product, field: str, value, actor, reason: str) -> Override:
    """Record a person's value for one field of a product, apply it, re-key the product by
    the rules with the override read first, and fold it into whatever it then agrees with.

    One override per product and field: setting it again replaces the value and reason and
    keeps the value first collected. Holds a row lock on the product.
    """
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the collected value is wrong."})
    product = Product.objects.select_for_update().get(pk=product.pk)
    if product.merged_into_id:
        raise ValidationError(f"{product} is merged; set the value on the product it joined.")
    if field not in Override.Field.values:
        raise ValidationError({"field": f"{field!r} cannot be overridden."})
    value = _override_value(product, field, value)
    held = (
        Override.objects.select_for_update()
        .filter(entity_type="product", entity_key=str(product.pk), field=field)
        .first()
    )
    override = held or Override(
        entity_type="product",
        entity_key=str(product.pk),
        field=field,
        collected_value=_collected(product, field),
    )
    override.value, override.set_by, override.set_at = value, actor, timezone.now()
    override.reason, override.collector_disagrees_since = reason, None
    _by(override, actor, reason).save()
    changed = _apply_override(product, field, value)
    if changed:
        _by(product, actor, f"override of {field}: {reason}")
        product.save(update_fields=[*changed, "updated_at"])
    products_rederive(
        products=Product.objects.filter(pk=product.pk),
        actor=actor,
        reason=f"override of {field}: {reason}",
    )
    folded, _ = products_fold(products=[product], actor=actor, note=f"override of {field}")
    audit_record(
        actor=actor,
        action="override.set",
        entity="catalogue.product",
        key=product.pk,
        detail={
            "field": field,
            "value": value,
            "collected": override.collected_value,
            "reason": reason,
            "folded": folded,
        },
    )
    return override


@transaction.atomic
def override_remove(*, override: Override, actor, reason: str) -> None:
    """Withdraw a person's value: the rules' own value comes back (a name or category goes
    back to the value first collected). The history keeps the override as it was."""
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the override is withdrawn."})
    override = Override.objects.select_for_update().get(pk=override.pk)
    product = Product.objects.select_for_update().filter(pk=override.entity_key).first()
    _by(override, actor, reason).delete()
    if product is not None:
        if override.field in (Override.Field.NAME, Override.Field.CATEGORY):
            restored = override.collected_value or ""
            if override.field == Override.Field.NAME and not restored:
                restored = product.name
            setattr(product, override.field, restored)
            _by(product, actor, f"override of {override.field} withdrawn: {reason}")
            product.save(update_fields=[override.field, "updated_at"])
        products_rederive(
            products=Product.objects.filter(pk=product.pk),
            actor=actor,
            reason=f"override of {override.field} withdrawn: {reason}",
        )
    audit_record(
        actor=actor,
        action="override.remove",
        entity="catalogue.product",
        key=override.entity_key,
        detail={"field": override.field, "value": override.value, "reason": reason},
    )
