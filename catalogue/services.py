"""Every catalogue write with an invariant: one function per operation.

Collectors, the admin, the API and management commands call these and nothing else. A
human decision (a listing pin, an alias, an override) is read first and never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from catalogue.identity.brands import display_name
from catalogue.identity.keys import House, Listed, Standard, derive, vetoed
from catalogue.identity.quantity import Unit
from catalogue.identity.text import slug_fold
from catalogue.models import (
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
    Retailer,
    VariationAlias,
)

CENT = Decimal("0.01")


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
    return IdentityBook(houses=houses, brands=brands, variation_aliases=aliases)


def standard_for(listed: Listed, *, vertical: str, book: IdentityBook) -> Standard:
    return derive(
        listed,
        vertical=vertical,
        houses=book.houses,
        variation_aliases=book.variation_aliases.get(vertical, {}),
    )


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
    return listing


@transaction.atomic
def listing_ignore(*, listing: Listing, reason: str, actor) -> Listing:
    """Hide a listing from the site; its prices keep being collected."""
    if not reason.strip():
        raise ValidationError({"reason": "Say why this listing is ignored."})
    if listing.ignored_at:
        return listing
    listing.ignored_at = timezone.now()
    listing.ignored_by = actor
    listing.ignore_reason = reason
    listing.save(update_fields=["ignored_at", "ignored_by", "ignore_reason", "updated_at"])
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
    resolved_by: str  # pin | listing | gtin | match_key | new
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
    if not standard.keyable:
        return None, "new"
    mine = _product_attributes(standard)
    for candidate in (
        Product.objects.canonical().filter(match_key=standard.match_key).order_by("created_at")
    ):
        # Two different barcodes are a veto no rule overrides.
        if gtin and candidate.gtin and candidate.gtin != gtin:
            continue
        if vetoed(standard.vertical, mine, candidate.attributes):
            continue
        return candidate, "match_key"
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


def _founding_listed(product: Product) -> Listed:
    listing = (
        Listing.objects.filter(product=product, pinned_product__isnull=True)
        .order_by("created_at")
        .first()
    )
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
    *, rules_version: int | None = None, products: Iterable[Product] | None = None, actor=None
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
        wanted = _standard_fields(standard)
        attributes = {**product.attributes, **_product_attributes(standard)}
        human = overrides.get(str(product.pk), {})
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
            product.save(update_fields=[*changed, "updated_at"])
    return report
