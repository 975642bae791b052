"""The catalogue's read vocabulary: chainable filters and annotations shared by every reader."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Self, cast

from django.db import models
from django.db.models import (
    BooleanField,
    Case,
    CharField,
    DecimalField,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Concat, JSONObject

from catalogue.category_records import Category, CategoryMapping, category_key_sql
from catalogue.rates import convert, rate_table
from omnium.models import related_rows


class LocationQuerySet(models.QuerySet):
    def visible(self) -> Self:
        return self.filter(visible=True, is_catalogue_only=False)


class BrandQuerySet(models.QuerySet):
    def canonical(self) -> Self:
        """Houses only: spellings that a person aliased elsewhere are left out."""
        return self.filter(canonical__isnull=True)


class RowsAggregate(Subquery):
    """An aggregate over the rows of a one-column subquery, as one correlated expression:
    ``(SELECT fn(value) FROM (subquery) AS rows(value))``."""

    template = "(SELECT %(function)s(_rows.value) FROM (%(subquery)s) _rows(value))"

    def __init__(self, queryset, function: str, output_field) -> None:
        super().__init__(queryset, output_field=output_field, function=function)


MONEY = DecimalField(max_digits=12, decimal_places=2)
SUMMARY_FIELDS = ("price_min_usd", "price_max_usd", "shop_count", "in_stock_anywhere")


def price_summary(listings, product_ref) -> dict[str, RowsAggregate]:
    """A product's price range in USD over its shops' latest prices, its number of shops
    and whether any shop's latest price does not say out of stock (unknown counts as in).
    ``listings`` is Listing's default manager; ``product_ref`` the outer product's id."""
    shops = listings.visible().filter(product_id=product_ref)
    latest = (
        related_rows(listings.model, "observations")
        .filter(listing=OuterRef("pk"))
        .order_by("-observed_at")
    )
    usd = shops.annotate(value=Subquery(latest.values("price_usd")[:1])).values("value")
    stock = shops.annotate(value=Coalesce(Subquery(latest.values("in_stock")[:1]), True)).values(
        "value"
    )
    return {
        "price_min_usd": RowsAggregate(usd, "min", MONEY),
        "price_max_usd": RowsAggregate(usd, "max", MONEY),
        "shop_count": RowsAggregate(shops.values("pk"), "count", IntegerField()),
        "in_stock_anywhere": RowsAggregate(stock, "bool_or", BooleanField()),
    }


GTIN_PART_DIGITS = 6

# The list orders a reader can choose: cheapest first, per unit, name, newest.
PRODUCT_SORTS: dict[str, str] = {
    "name": "Name",
    "price": "Price, lowest first",
    "-price": "Price, highest first",
    "unit_price": "Price per unit, lowest first",
    "newest": "Newest first",
}


class ProductQuerySet(models.QuerySet):
    def with_price_summary(self) -> Self:
        """Each product with ``price_min_usd``, ``price_max_usd`` (its shops' latest prices
        in USD), ``shop_count`` and ``in_stock_anywhere`` (``price_summary``); and
        ``unit_price_usd``, the lowest price per litre or kilogram (None for pieces)."""
        if "price_min_usd" in self.query.annotations:
            return self
        listings = related_rows(self.model, "listings")
        return self.annotate(**price_summary(listings, OuterRef("pk"))).annotate(
            unit_price_usd=Case(
                When(
                    quantity_unit__in=("ml", "g"),
                    quantity_value__gt=0,
                    then=F("price_min_usd") * 1000 / F("quantity_value"),
                ),
                default=None,
                output_field=DecimalField(max_digits=16, decimal_places=4),
            )
        )

    def sorted_by(self, sort: str) -> Self:
        """One of ``PRODUCT_SORTS``; prices without a value sort last, ties by name, id."""
        if sort in ("price", "-price", "unit_price"):
            field = "unit_price_usd" if sort == "unit_price" else "price_min_usd"
            key = (
                F(field).desc(nulls_last=True)
                if sort == "-price"
                else F(field).asc(nulls_last=True)
            )
            return self.with_price_summary().order_by(key, "name", "id")
        if sort == "newest":
            return self.order_by("-created_at", "-id")
        return self.order_by("name", "id")

    def canonical(self) -> Self:
        """Live products: a merged row keeps answering only through its survivor."""
        return self.filter(merged_into__isnull=True)

    def visible(self) -> Self:
        """Live products with at least one listing the public may see."""
        # Listing's manager is ListingQuerySet.as_manager(); related_rows can only promise
        # a plain manager of some model.
        listings = cast("ListingQuerySet", related_rows(self.model, "listings").all())
        return self.canonical().filter(
            pk__in=listings.visible().values("product_id"),
        )

    def in_category(self, slug: str) -> Self:
        """Products some visible shop lists under a feed category text a person mapped to
        the taxonomy's ``slug`` or a category under it (``category_records``)."""
        listings = cast("ListingQuerySet", related_rows(self.model, "listings").all())
        mapped = CategoryMapping.objects.filter(
            category__in=Category.objects.subtree(slug),
            source__location=OuterRef("location_id"),
            text_key=OuterRef("category_key"),
        )
        shops = (
            listings.visible()
            .annotate(category_key=category_key_sql("listed_category"))
            .filter(Exists(mapped))
        )
        return self.filter(pk__in=shops.values("product_id"))

    def with_category(self) -> Self:
        """Each product with ``category_label``, the taxonomy's name for it ("Spirits /
        Whisky"): the mapped category of its first visible shop's text that has one (None
        while no text of it is mapped)."""
        listings = cast("ListingQuerySet", related_rows(self.model, "listings").all())
        label = Concat(
            Coalesce(Concat("category__parent__name", Value(" / ")), Value("")),
            "category__name",
            output_field=CharField(),
        )
        mapped = CategoryMapping.objects.filter(
            source__location=OuterRef("location_id"), text_key=OuterRef("category_key")
        ).order_by("source__slug")
        shops = (
            listings.visible()
            .filter(product=OuterRef("pk"))
            .annotate(category_key=category_key_sql("listed_category"))
            .annotate(label=Subquery(mapped.annotate(label=label).values("label")[:1]))
            .filter(label__isnull=False)
            .order_by("location__code", "pk")
        )
        return self.annotate(category_label=Subquery(shops.values("label")[:1]))

    def search(self, text: str):
        text = (text or "").strip()
        if not text:
            return self
        query = Q(name__icontains=text) | Q(brand_name__icontains=text)
        query |= Q(brand__name__icontains=text)
        # Barcodes are typed as printed: in groups with spaces or hyphens, with or without
        # the leading zeros that pad an EAN-8, UPC-A or EAN-13 to a GTIN-14; a run of at
        # least GTIN_PART_DIGITS digits finds the barcodes holding it.
        digits = "".join(ch for ch in text if ch.isdigit())
        if digits and len(digits) == len(text.replace(" ", "").replace("-", "")):
            bare = digits.lstrip("0") or "0"
            query |= Q(gtin__in=[bare.zfill(n) for n in (8, 12, 13, 14)] + [digits])
            if len(digits) >= GTIN_PART_DIGITS:
                query |= Q(gtin__contains=digits)
        return self.filter(query)


LATEST_FIELDS = (
    "id",
    "price",
    "currency",
    "price_usd",
    "was_price",
    "in_stock",
    "observed_at",
)
CENT = Decimal("0.01")


def _observation_from_json(observation_model, listing_id, data: dict | None):
    """An observation rebuilt from the JSON the latest-price subquery returns."""
    if data is None:
        return None

    def money(value):
        # JSON numbers arrive as floats; the stored value has two places, so this is exact.
        return None if value is None else Decimal(str(value)).quantize(CENT)

    return observation_model(
        id=data["id"],
        listing_id=listing_id,
        price=money(data["price"]),
        currency=data["currency"],
        price_usd=money(data["price_usd"]),
        was_price=money(data["was_price"]),
        in_stock=data["in_stock"],
        observed_at=datetime.fromisoformat(data["observed_at"]),
    )


class ListingQuerySet(models.QuerySet):
    # Set by latest_prices(): fetched listings get ``listing.latest`` built from the row's
    # JSON annotation (a PriceObservation, or None for a listing never priced).
    _with_latest = False

    def _clone(self):
        clone = super()._clone()
        clone._with_latest = self._with_latest
        return clone

    def _fetch_all(self):
        fresh = self._result_cache is None
        super()._fetch_all()
        if fresh and self._with_latest and self._result_cache:
            observations = related_rows(self.model, "observations").model
            for listing in self._result_cache:
                if isinstance(listing, models.Model):
                    listing.latest = _observation_from_json(
                        observations, listing.pk, listing.latest_observation
                    )

    def visible(self) -> Self:
        """What the public site shows: visible storefronts, listings nobody set aside."""
        return self.filter(
            ignored_at__isnull=True,
            location__visible=True,
            location__is_catalogue_only=False,
        )

    def latest_prices(self) -> Self:
        """Each listing with its latest observation as ``listing.latest`` (None if unpriced).

        One query: per listing, one backward probe of the (listing, observed_at) unique index
        returns the newest row as a JSON object, so the cost is per listing shown, not per
        observation stored (``make bench-prices`` times it at 10M observations). Separate
        correlated subqueries per column cost more to compile than to run.
        """
        latest = (
            related_rows(self.model, "observations")
            .filter(listing=OuterRef("pk"))
            .order_by("-observed_at")
        )
        row = JSONObject(**{name: name for name in LATEST_FIELDS})
        clone = self.annotate(latest_observation=Subquery(latest.values(row=row)[:1]))
        clone._with_latest = True
        return clone

    def priced(self) -> Self:
        return self.latest_prices().filter(latest_observation__isnull=False)

    def with_product_price_summary(self) -> Self:
        """Each listing with its product's ``price_summary`` over every visible shop."""
        return self.annotate(**price_summary(self.model._default_manager, OuterRef("product_id")))


class PriceObservationQuerySet(models.QuerySet):
    # Set by in_currency(): fetched observations get ``display_price`` (None when a rate it
    # needs is unknown) and ``display_currency``.
    _display_currency: str | None = None

    def _clone(self):
        clone = super()._clone()
        clone._display_currency = self._display_currency
        return clone

    def _fetch_all(self):
        fresh = self._result_cache is None
        super()._fetch_all()
        target = self._display_currency
        if fresh and target is not None and self._result_cache:
            rows = [o for o in self._result_cache if isinstance(o, models.Model)]
            if rows:
                _set_display_prices(rows, target)

    def latest_per_listing(self):
        """One row per listing, its newest observation (PostgreSQL DISTINCT ON)."""
        return self.order_by("listing_id", "-observed_at").distinct("listing_id")

    def public(self) -> Self:
        """Observations the public site shows: of visible listings of live products."""
        return self.filter(
            listing__ignored_at__isnull=True,
            listing__location__visible=True,
            listing__location__is_catalogue_only=False,
        )

    def of_product(self, product_id) -> Self:
        """A product's observations at every location the public sees."""
        listings = cast("ListingQuerySet", related_rows(self.model, "listing").all())
        return self.filter(
            listing__in=listings.visible().filter(product_id=product_id).values("pk")
        )

    def in_currency(self, target: str) -> Self:
        """Each fetched observation with ``display_price`` in ``target`` (a currency code,
        or ``rates.LISTED`` for the shop's own), at the rate of its own day. The rates come
        in one query for the whole fetch (``catalogue.rates``), never one per row."""
        clone = self.all()
        clone._display_currency = target
        return clone


def _set_display_prices(observations, target: str) -> None:
    days = [o.observed_at.date() for o in observations]
    table = rate_table(
        [*(o.currency for o in observations if o.price_usd is None), target],
        min(days),
        max(days),
    )
    for observation, day in zip(observations, days, strict=True):
        observation.display_currency = observation.currency if target == "listed" else target
        observation.display_price = convert(
            observation.price, observation.currency, observation.price_usd, day, target, table
        )
