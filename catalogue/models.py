"""The price catalogue: where a product is sold, what each shop called it, what it cost.

Three layers for every value (seed 003): the *listed* words exactly as a shop showed them
(on ``Listing``), the *standard* values the identity rules made of them (on ``Product``,
recomputable at any time) and the *decided* values a person set (pins, aliases,
``Override``), which no collection or rederive ever overwrites.
"""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import F, Q
from simple_history.models import HistoricalRecords

# The collection records (sources, runs, raw records, rejections) live in their own module;
# importing it here registers them with the app.
# Follows and price alerts likewise; categories by the re-exports below.
from catalogue import (
    alert_records,  # noqa: F401
    collection_records,  # noqa: F401
)
from catalogue.category_records import Category as Category
from catalogue.category_records import CategoryMapping as CategoryMapping
from catalogue.fx_records import CURRENCY_SHAPE
from catalogue.fx_records import FxRate as FxRate
from catalogue.price_closes import FOLD_SQL, REFILL_SQL
from catalogue.price_closes import PriceClose as PriceClose
from catalogue.querysets import (
    BrandQuerySet,
    ListingQuerySet,
    LocationQuerySet,
    PriceObservationQuerySet,
    ProductQuerySet,
)
from catalogue.verification_records import Award as Award
from catalogue.verification_records import Reverification as Reverification
from catalogue.verification_records import VerificationCheck as VerificationCheck
from catalogue.verification_records import VerificationRun as VerificationRun
from omnium.models import TimestampedModel, UUIDModel
from omnium.triggers import append_only, never_truncated


def curated_history() -> HistoricalRecords:
    """Every change to a curated row, with the person (``_history_user``, else the request's
    user) and their reason (``_change_reason``); a rule's change names no one."""
    return HistoricalRecords(history_change_reason_field=models.TextField(null=True))


class Vertical(models.TextChoices):
    FRAGRANCE = "fragrance", "Fragrance"
    BEAUTY = "beauty", "Beauty and personal care"
    DRINKS = "drinks", "Wine and spirits"
    FOOD = "food", "Confectionery and food"
    OTHER = "other", "Other"


class QuantityUnit(models.TextChoices):
    ML = "ml", "millilitres"
    G = "g", "grams"
    PCS = "pcs", "pieces"


class SizeUnit(models.TextChoices):
    """The legacy stated-volume unit: volumes only, grams were never stored here."""

    ML = "ml", "ml"
    CL = "cl", "cl"
    L = "l", "l"


class QuantityForm(models.TextChoices):
    SINGLE = "single", "Single item"
    PACK = "pack", "Pack of identical items"
    SET = "set", "Set of different items"
    REFILL = "refill", "Refill"


class QuantityState(models.TextChoices):
    STATED = "stated", "Stated and read"
    NONE = "none", "Not stated"
    UNPARSED = "unparsed", "Stated but not understood"


class GtinSource(models.TextChoices):
    COLLECTED = "collected", "Published by one of its shops"
    MERGE = "merge", "Inherited in a merge"


class VariationKind(models.TextChoices):
    CONCENTRATION = "concentration", "Concentration"
    FLANKER = "flanker", "Flanker"
    COLOR = "color", "Colour"
    FLAVOR = "flavor", "Flavour"


class PriceType(models.TextChoices):
    REGULAR = "regular", "Regular"
    PROMOTION = "promotion", "Promotion"
    MEMBER = "member", "Member price"


class FxMissing(models.TextChoices):
    """Why an observation has no USD figure; it is never converted by guess."""

    NO_SOURCE = "no_source", "No rate source covers this currency"
    NO_RATE_FOR_DAY = "no_rate_for_day", "No rate for this day or the business days before it"


class ObservationSourceKind(models.TextChoices):
    FEED = "feed", "Retailer feed or price list"
    SCRAPE = "scrape", "Collected from a page"
    MANUAL = "manual", "Entered by a person"


class Retailer(UUIDModel, TimestampedModel):
    """An operator: one retailer runs many storefronts."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    operator = models.CharField(max_length=200, blank=True)
    homepage = models.URLField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Location(UUIDModel, TimestampedModel):
    """A storefront. ``iata`` is empty for a retailer-wide catalogue kept for identity only."""

    retailer = models.ForeignKey(Retailer, on_delete=models.PROTECT, related_name="locations")
    code = models.SlugField(max_length=80, unique=True)
    iata = models.CharField(max_length=3, null=True, blank=True)
    name = models.CharField(max_length=200)
    city = models.CharField(max_length=120, blank=True)
    country = models.CharField(max_length=120, blank=True)
    currency = models.CharField(max_length=3)
    is_catalogue_only = models.BooleanField(default=False)
    # Collectors keep running for hidden locations; only the public readers skip them.
    visible = models.BooleanField(default=False)

    objects = LocationQuerySet.as_manager()

    class Meta:
        ordering = ["iata", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(iata__isnull=True) | Q(iata__regex=r"^[A-Z]{3}$"),
                name="catalogue_location_iata_shape",
            ),
            models.CheckConstraint(
                condition=Q(currency__regex=CURRENCY_SHAPE),
                name="catalogue_location_currency_shape",
            ),
            # A catalogue-only location carries no airport, so the site cannot list it.
            models.CheckConstraint(
                condition=Q(is_catalogue_only=False) | Q(visible=False),
                name="catalogue_location_catalogue_only_is_hidden",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.iata})" if self.iata else self.name


class Brand(UUIDModel, TimestampedModel):
    """One row per spelling fold of a house; an alias points at its house via ``canonical``."""

    slug = models.SlugField(max_length=120, unique=True)
    name = models.CharField(max_length=200)
    canonical = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="aliases"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    history = curated_history()
    objects = BrandQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(canonical=F("id")), name="catalogue_brand_not_its_own_alias"
            ),
            # An alias is a person's decision; no rule ever sets one.
            models.CheckConstraint(
                condition=Q(canonical__isnull=True) | Q(decided_at__isnull=False),
                name="catalogue_brand_alias_is_decided",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class ProductLine(UUIDModel, TimestampedModel):
    """The real product above the priced one: "1 Million" over its EDT, Parfum and Lucky."""

    brand = models.ForeignKey(Brand, on_delete=models.PROTECT, related_name="lines")
    key = models.CharField(max_length=300)
    name = models.CharField(max_length=300)
    slug = models.SlugField(max_length=300)
    canonical = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="aliases"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    history = curated_history()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["brand", "key"], name="catalogue_line_unique_key"),
            models.CheckConstraint(
                condition=~Q(canonical=F("id")), name="catalogue_line_not_its_own_alias"
            ),
            models.CheckConstraint(
                condition=Q(canonical__isnull=True) | Q(decided_at__isnull=False),
                name="catalogue_line_alias_is_decided",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class VariationAlias(UUIDModel):
    """One wording of a variation ("elixir parfum intense") and the canonical one it means."""

    vertical = models.CharField(max_length=16, choices=Vertical.choices)
    raw = models.CharField(max_length=200)
    canonical = models.CharField(max_length=100)
    display = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=16, choices=VariationKind.choices, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    history = curated_history()

    class Meta:
        ordering = ["vertical", "raw"]
        verbose_name_plural = "variation aliases"
        constraints = [
            models.UniqueConstraint(
                fields=["vertical", "raw"], name="catalogue_variation_alias_unique_raw"
            ),
            models.CheckConstraint(
                condition=~Q(raw="") & ~Q(canonical=""),
                name="catalogue_variation_alias_not_blank",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.raw} → {self.canonical}"


class Product(UUIDModel, TimestampedModel):
    """A canonical product: one size of one variation of one line, keyed on GTIN if known."""

    gtin = models.CharField(max_length=14, null=True, blank=True)
    gtin_source = models.CharField(max_length=16, choices=GtinSource.choices, blank=True)
    match_key = models.CharField(max_length=500)
    brand_name = models.CharField("brand as collected", max_length=200, blank=True)
    brand_key = models.CharField("brand fold", max_length=120, blank=True)
    brand = models.ForeignKey(
        Brand, null=True, blank=True, on_delete=models.PROTECT, related_name="products"
    )
    line = models.ForeignKey(
        ProductLine, null=True, blank=True, on_delete=models.PROTECT, related_name="products"
    )
    name = models.CharField(max_length=300)
    name_key = models.CharField(max_length=300, blank=True)
    vertical = models.CharField(max_length=16, choices=Vertical.choices)
    category = models.CharField(max_length=200, blank=True)

    quantity_value = models.DecimalField(max_digits=12, decimal_places=3, null=True, blank=True)
    quantity_unit = models.CharField(max_length=3, choices=QuantityUnit.choices, blank=True)
    pack_count = models.PositiveIntegerField(null=True, blank=True)
    pack_unit_value = models.DecimalField(max_digits=12, decimal_places=3, null=True, blank=True)
    form = models.CharField(max_length=8, choices=QuantityForm.choices, default="single")
    set_contents = models.JSONField(null=True, blank=True)
    quantity_state = models.CharField(
        max_length=8, choices=QuantityState.choices, default=QuantityState.NONE
    )
    # Legacy stated volume, kept as the record; size_ml is what the site reads.
    size_value = models.DecimalField(max_digits=12, decimal_places=3, null=True, blank=True)
    size_unit = models.CharField(max_length=2, choices=SizeUnit.choices, blank=True)
    size_ml = models.DecimalField(max_digits=12, decimal_places=3, null=True, blank=True)

    abv = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    attributes = models.JSONField(default=dict, blank=True)
    identity_rules_version = models.PositiveSmallIntegerField()
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )
    country_of_origin = models.CharField(max_length=120, blank=True)
    is_exclusive = models.BooleanField(default=False)
    # Imagery comes from an openly licensed source and belongs to the product, never a listing.
    image_url = models.URLField(blank=True)
    thumb_url = models.URLField(blank=True)
    image_source = models.CharField(max_length=200, blank=True)
    image_checked = models.BooleanField(default=False)

    objects = ProductQuerySet.as_manager()
    history = curated_history()

    class Meta:
        ordering = ["name"]
        constraints = [
            # A merged row keeps its barcode as the record while the survivor may inherit
            # it, so uniqueness holds among live products only.
            models.UniqueConstraint(
                fields=["gtin"],
                condition=Q(gtin__isnull=False, merged_into__isnull=True),
                name="catalogue_product_unique_live_gtin",
            ),
            models.CheckConstraint(
                condition=Q(gtin__isnull=True) | Q(gtin__regex=r"^([0-9]{8}|[0-9]{12,14})$"),
                name="catalogue_product_gtin_shape",
            ),
            models.CheckConstraint(
                condition=Q(gtin__isnull=False) | Q(gtin_source=""),
                name="catalogue_product_gtin_source_needs_gtin",
            ),
            models.CheckConstraint(
                condition=~Q(merged_into=F("id")), name="catalogue_product_not_merged_into_self"
            ),
            models.CheckConstraint(
                condition=Q(abv__isnull=True) | Q(abv__gte=0, abv__lte=100),
                name="catalogue_product_abv_range",
            ),
            models.CheckConstraint(
                condition=(
                    Q(quantity_value__isnull=True, quantity_unit="")
                    | Q(quantity_value__gt=0) & ~Q(quantity_unit="")
                ),
                name="catalogue_product_quantity_has_unit",
            ),
            models.CheckConstraint(
                condition=Q(quantity_state="stated") | Q(quantity_value__isnull=True),
                name="catalogue_product_quantity_only_when_stated",
            ),
            models.CheckConstraint(
                condition=~Q(form="pack") | Q(pack_count__gte=2, pack_unit_value__gt=0),
                name="catalogue_product_pack_has_count",
            ),
        ]
        indexes = [
            models.Index(
                fields=["match_key"],
                condition=Q(merged_into__isnull=True),
                name="catalogue_product_live_key",
            ),
            models.Index(fields=["brand", "name"], name="catalogue_product_brand_name"),
            models.Index(fields=["vertical", "category"], name="catalogue_product_category"),
        ]

    def __str__(self) -> str:
        return self.name


class Listing(UUIDModel, TimestampedModel):
    """One product as carried by one location: the shop's own words, verbatim."""

    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="listings")
    location = models.ForeignKey(Location, on_delete=models.PROTECT, related_name="listings")
    source_sku = models.CharField(max_length=200)
    url = models.URLField(max_length=1000, blank=True)

    # The listed layer: written as one unit from one raw record, never trimmed or cased.
    listed_brand = models.TextField(null=True, blank=True)
    listed_name = models.TextField(null=True, blank=True)
    listed_variant = models.TextField(null=True, blank=True)
    listed_quantity_text = models.TextField(null=True, blank=True)
    listed_category = models.TextField(null=True, blank=True)
    listed_gtin = models.TextField(null=True, blank=True)
    listed_brand_key = models.CharField(max_length=120, null=True, blank=True)
    listed_name_key = models.CharField(max_length=300, null=True, blank=True)
    listed_quantity_value = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True
    )
    listed_quantity_unit = models.CharField(
        max_length=3, choices=QuantityUnit.choices, null=True, blank=True
    )
    listed_record = models.ForeignKey(
        "catalogue.RawRecord", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # When a re-collection last changed what the shop says the product is (the columns of
    # LISTED_IDENTITY_COLUMNS); NULL while they are as first collected. A change later than
    # the listing's last verification check queues it for a fresh read
    # (``services.reverifications_queue_changed_data``).
    listed_changed_at = models.DateTimeField(null=True, blank=True)

    pinned_product = models.ForeignKey(
        Product, null=True, blank=True, on_delete=models.PROTECT, related_name="pinned_listings"
    )
    pinned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    pinned_at = models.DateTimeField(null=True, blank=True)
    pin_reason = models.TextField(blank=True)
    # Prices keep collecting for an ignored listing; only the public readers skip it.
    ignored_at = models.DateTimeField(null=True, blank=True)
    ignored_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    ignore_reason = models.TextField(blank=True)

    objects = ListingQuerySet.as_manager()
    # Not a column: ListingQuerySet.latest_prices() sets it on each fetched row (None for a
    # listing never priced).
    latest: PriceObservation | None

    class Meta:
        # No default ordering: each reader orders by what it shows (price, date), and an
        # ordering through Location would cost a join on the product page's hot query.
        constraints = [
            models.UniqueConstraint(
                fields=["location", "source_sku"], name="catalogue_listing_unique_sku"
            ),
            models.CheckConstraint(
                condition=Q(pinned_product__isnull=True, pinned_at__isnull=True)
                | Q(pinned_product__isnull=False, pinned_at__isnull=False),
                name="catalogue_listing_pin_is_dated",
            ),
            models.CheckConstraint(
                condition=Q(ignored_at__isnull=True) | ~Q(ignore_reason=""),
                name="catalogue_listing_ignore_has_reason",
            ),
        ]
        indexes = [models.Index(fields=["product"], name="catalogue_listing_product")]

    def __str__(self) -> str:
        return f"{self.location.code}:{self.source_sku}"


# The listed columns that say which product a listing is (its title, variant, size as
# written, barcode and brand): a re-collection that changes one of them stamps
# ``Listing.listed_changed_at``. The keys and quantity parsed from them are the rules'
# reading (an old rules version queues on its own); the category and URL are not identity.
LISTED_IDENTITY_COLUMNS = (
    "listed_brand",
    "listed_name",
    "listed_variant",
    "listed_quantity_text",
    "listed_gtin",
)


# Every column of an observation except its USD conversion (price_usd, fx_rate, fx_as_of,
# fx_source, fx_missing): what the append-only trigger keeps unchanged. A new column of
# PriceObservation belongs here unless it is part of the conversion.
SHOWN_COLUMNS = (
    "id",
    "listing_id",
    "price",
    "currency",
    "was_price",
    "price_type",
    "in_stock",
    "observed_at",
    "run_id",
    "source_kind",
)


class PriceObservation(models.Model):
    """What one listing showed at one moment. Append-only: a price is never edited; the
    USD columns of a row without USD are filled once, when its day's rate is known."""

    id = models.BigAutoField(primary_key=True)
    # No index of its own: the (listing, observed_at) constraint's index leads with it.
    listing = models.ForeignKey(
        Listing, on_delete=models.PROTECT, related_name="observations", db_index=False
    )
    price = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    price_usd = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    fx_rate = models.DecimalField(max_digits=18, decimal_places=8, null=True, blank=True)
    # The rate's own day and source (``FxRate.as_of``/``source``; "identity" for USD). Empty
    # on rows converted before rates were dated (the sample's old hand-entered rates).
    fx_as_of = models.DateField(null=True, blank=True)
    fx_source = models.CharField(max_length=200, blank=True, default="", db_default="")
    # Set while there is no USD figure and a rate was looked for: why not (FxMissing).
    fx_missing = models.CharField(
        max_length=20, choices=FxMissing.choices, blank=True, default="", db_default=""
    )
    was_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    price_type = models.CharField(
        max_length=16, choices=PriceType.choices, default=PriceType.REGULAR
    )
    in_stock = models.BooleanField(null=True)
    observed_at = models.DateTimeField()
    run = models.ForeignKey(
        "catalogue.CollectionRun",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="observations",
    )
    source_kind = models.CharField(max_length=16, choices=ObservationSourceKind.choices)

    objects = PriceObservationQuerySet.as_manager()

    class Meta:
        ordering = ["listing", "-observed_at"]
        constraints = [
            # Also the index the latest-price read walks backwards (one probe per listing)
            # and the one the price history reads forwards. It carries what the history
            # converts, so that read is an index-only scan: the table is append-only, so
            # its pages stay all-visible once vacuumed (``make bench-prices``).
            models.UniqueConstraint(
                fields=["listing", "observed_at"],
                include=["price", "currency", "price_usd"],
                name="catalogue_observation_unique_moment",
            ),
            models.CheckConstraint(
                condition=Q(price__gt=0), name="catalogue_observation_price_positive"
            ),
            models.CheckConstraint(
                condition=Q(was_price__isnull=True) | Q(was_price__gt=0),
                name="catalogue_observation_was_price_positive",
            ),
            models.CheckConstraint(
                condition=Q(currency__regex=CURRENCY_SHAPE),
                name="catalogue_observation_currency_shape",
            ),
            models.CheckConstraint(
                condition=Q(price_usd__isnull=True, fx_rate__isnull=True)
                | Q(price_usd__isnull=False, fx_rate__isnull=False),
                name="catalogue_observation_usd_has_rate",
            ),
            models.CheckConstraint(
                condition=Q(fx_as_of__isnull=True, fx_source="")
                | Q(fx_as_of__isnull=False, price_usd__isnull=False) & ~Q(fx_source=""),
                name="catalogue_observation_rate_dated",
            ),
            models.CheckConstraint(
                condition=Q(fx_missing="") | Q(price_usd__isnull=True),
                name="catalogue_observation_flag_only_unconverted",
            ),
        ]
        indexes = [
            models.Index(
                fields=["fx_missing"],
                name="catalogue_observation_fx_flag",
                condition=~Q(fx_missing=""),
            ),
        ]
        triggers = [
            never_truncated("price_observation_no_truncate"),
            pgtrigger.Protect(name="price_observation_never_deleted", operation=pgtrigger.Delete),
            # The one update allowed: the USD columns of a row that has no USD figure yet
            # (the backfill, once a rate for its day is known; or its missing-rate flag).
            # What was shown is never edited, and a USD figure, once written, never changes.
            pgtrigger.Protect(
                name="price_observation_append_only",
                operation=pgtrigger.Update,
                condition=pgtrigger.Condition(
                    "OLD.price_usd IS NOT NULL OR ("
                    + ", ".join(f"OLD.{c}" for c in SHOWN_COLUMNS)
                    + ") IS DISTINCT FROM ("
                    + ", ".join(f"NEW.{c}" for c in SHOWN_COLUMNS)
                    + ")"
                ),
            ),
            # The week closes (``catalogue.price_closes``), in the statement
            # that appends or fills the observations, whichever writer runs it.
            pgtrigger.Trigger(
                name="price_observation_closes_insert",
                level=pgtrigger.Statement,
                when=pgtrigger.After,
                operation=pgtrigger.Insert,
                referencing=pgtrigger.Referencing(new="added"),
                func=FOLD_SQL,
            ),
            pgtrigger.Trigger(
                name="price_observation_closes_update",
                level=pgtrigger.Statement,
                when=pgtrigger.After,
                operation=pgtrigger.Update,
                referencing=pgtrigger.Referencing(new="filled"),
                func=REFILL_SQL,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.price} {self.currency} at {self.observed_at:%Y-%m-%d %H:%M}"


class Override(UUIDModel):
    """One human decision over a collected or derived value; every rederive reads it first."""

    class Field(models.TextChoices):
        NAME = "name", "Name"
        LINE = "line_id", "Line"
        VARIATION = "variation", "Variation"
        QUANTITY = "quantity", "Quantity"
        CATEGORY = "category", "Category"

    entity_type = models.CharField(max_length=32, default="product")
    entity_key = models.CharField(max_length=64)
    field = models.CharField(max_length=32, choices=Field.choices)
    value = models.JSONField(null=True, blank=True)
    collected_value = models.JSONField(null=True, blank=True)
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    set_at = models.DateTimeField()
    reason = models.TextField()
    collector_disagrees_since = models.DateTimeField(null=True, blank=True)

    history = curated_history()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["entity_type", "entity_key", "field"], name="catalogue_override_unique"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="catalogue_override_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.entity_type}:{self.entity_key}.{self.field}"


class AirportHours(models.Model):
    """Opening hours of a storefront as observed, with where they came from."""

    location = models.ForeignKey(Location, on_delete=models.PROTECT, related_name="hours")
    source_kind = models.CharField(max_length=16, choices=ObservationSourceKind.choices)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    observed_at = models.DateTimeField()
    source_url = models.URLField(max_length=1000, blank=True)
    text = models.TextField()
    detail = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "airport hours"
        constraints = [
            models.CheckConstraint(
                condition=~Q(source_kind="manual") | Q(entered_by__isnull=False),
                name="catalogue_hours_manual_names_person",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.location}: {self.text[:40]}"


class ProductMerge(UUIDModel):
    """The record of one merge: ``from_product`` now forwards to ``to_product``.

    Both sides are kept as they were (full row snapshots) with the listings and awards that
    moved, so an undo can put back exactly what the merge changed. Created only by
    ``product_merge``; an undo marks the record and never deletes it.
    """

    from_product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="merges_out")
    to_product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="merges_in")
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    merged_at = models.DateTimeField()
    reason = models.TextField()
    # What was inherited and why (``barcode``, ``image``, ``fields``), and which rows moved.
    detail = models.JSONField(default=dict)
    from_snapshot = models.JSONField()
    to_snapshot = models.JSONField()
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    undo_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-merged_at"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(from_product=F("to_product")),
                name="catalogue_merge_two_products",
            ),
            # A merge is a person's decision: it always says why.
            models.CheckConstraint(condition=~Q(reason=""), name="catalogue_merge_has_reason"),
            models.CheckConstraint(
                condition=Q(undone_at__isnull=True, undone_by__isnull=True, undo_reason="")
                | Q(undone_at__isnull=False, undone_by__isnull=False) & ~Q(undo_reason=""),
                name="catalogue_merge_undo_is_complete",
            ),
        ]
        indexes = [
            models.Index(fields=["from_product"], name="catalogue_merge_from"),
            models.Index(fields=["to_product"], name="catalogue_merge_to"),
        ]
        triggers = [
            never_truncated("product_merge_no_truncate"),
            # The record of a merge outlives its undo; only the undo columns ever change.
            pgtrigger.Protect(name="product_merge_never_deleted", operation=pgtrigger.Delete),
        ]

    def __str__(self) -> str:
        return f"{self.from_product_id} → {self.to_product_id}"


# A curated row's historical rows are the record of who changed it and why: append-only.
for _curated in (Brand, ProductLine, VariationAlias, Product, Override):
    pgtrigger.register(*append_only(f"history_{_curated._meta.model_name}"))(_curated.history.model)
