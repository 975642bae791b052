"""Reads that build a public page or API answer across several models."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple, TypedDict
from uuid import UUID

from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    Min,
    OuterRef,
    QuerySet,
)
from django.shortcuts import get_object_or_404

from catalogue.category_records import CategoryMapping, category_key_sql
from catalogue.models import (
    Brand,
    FxRate,
    Listing,
    Location,
    Override,
    PriceClose,
    PriceObservation,
    Product,
    ProductMerge,
)
from catalogue.rates import CENT, LISTED, RateTable, convert, rate_table


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
        .with_price_summary()
        .order_by("line__name", "name", "id")
    )


def location_listings(location: Location) -> QuerySet[Listing]:
    return (
        Listing.objects.visible()
        .filter(location=location, product__merged_into__isnull=True)
        .select_related("product", "product__brand")
        .latest_prices()
        .with_product_price_summary()
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


# --- Price history ------------------------------------------------------------------

# Past this many days a history point is a week (its last price at each shop), so a
# five-year history reads and draws 261 points a shop, not 1,826. Every observation stays
# readable one page at a time (``PriceObservation.objects.of_product().in_currency()``).
DAILY_UP_TO = 400


class HistoryPoint(NamedTuple):
    """A shop's last observation of a day (or week), and its value in the reader's currency."""

    observed_at: datetime
    price: Decimal
    currency: str
    display_price: Decimal | None


@dataclass
class ShopHistory:
    """A product's prices at one shop, oldest first."""

    listing: Listing
    points: list[HistoryPoint] = field(default_factory=list)

    @property
    def latest(self) -> HistoryPoint | None:
        return self.points[-1] if self.points else None


@dataclass
class PriceHistory:
    """A product's prices at every visible shop; ``weekly`` when a point is a week."""

    shops: list[ShopHistory]
    currency: str
    weekly: bool = False


def product_price_history(
    product: Product, *, currency: str, since: date | None = None
) -> PriceHistory:
    """The product's prices at each visible shop since ``since`` (a UTC day), one point a
    day (the day's last observation), or a week when the span is longer than
    ``DAILY_UP_TO`` days, converted to ``currency`` (or ``rates.LISTED``) at the rate of
    each point's own day, as ``rates.convert`` converts one price.

    Two queries whatever the length of the history: the shops, and their points with the
    span that chooses days or weeks, converted in the same statement (``CLOSE_POINTS_SQL``):
    weeks from the stored closes (``catalogue.price_closes``: each listing's last
    observation of each week, kept by the observations' triggers), days from the
    observations' (listing, observed_at) index (at most ``DAILY_UP_TO`` days of them). A
    third, for the rates of their currencies, only when some points have no recorded USD
    (their currency had no rate when they were collected). Shops ordered by airport code,
    then name.
    """
    listings = list(
        Listing.objects.filter(product=product)
        .visible()
        .select_related("location", "location__retailer")
        .order_by("location__iata", "location__name", "id")
    )
    history = PriceHistory([ShopHistory(listing) for listing in listings], currency)
    if not listings:
        return history
    rows = _close_points([listing.pk for listing in listings], since=since, currency=currency)
    if not rows:
        return history
    history.weekly = rows[0][6]
    fromtimestamp = datetime.fromtimestamp
    left = [row for row in rows if row[5]]
    table = RateTable()
    if left:
        days = [fromtimestamp(row[1], UTC).date() for row in left]
        table = rate_table([currency, *(row[3] for row in left)], min(days), max(days))
    # Rows come shop by shop (the shop's place in ``listings``, from 1), oldest first.
    shops = history.shops
    for ordinal, group in groupby(rows, key=itemgetter(0)):
        points = shops[ordinal - 1].points
        for _, epoch, price, listed, shown, unresolved, _ in group:
            moment = fromtimestamp(epoch, UTC)
            if unresolved:
                shown = convert(price, listed, None, moment.date(), currency, table)
            points.append(HistoryPoint(moment, price, listed, shown))
    return history


# The points, in one statement. ``spans``: the first and last moment since ``since`` over
# all shops, from the week closes: a shop's first week close at or after ``start`` holds its
# first moment (unless ``since`` cuts that week: then one forward probe of the
# observations' index from ``start`` to that close), its last close its last moment; two
# probes of the closes' index a shop. Past ``DAILY_UP_TO`` days a point is a week. A week's
# close is at or after ``start`` exactly when the week has an observation at or after it (a
# week that ``since`` cuts shows its last price after ``since``, or nothing), so the weeks
# from the one holding ``since`` whose close is not earlier are the points: one range of
# the closes' index a shop, which carries the columns read. Days are not stored: a day's
# point is an observation since ``start`` whose next one at that shop is on a later UTC day
# or missing, from one range of the observations' (listing, observed_at) index a shop
# (pruned to the partitions from ``start`` on), which carries the columns read: at most
# ``DAILY_UP_TO`` days of a shop's observations. Each side reads nothing when the other is
# chosen (its condition on ``chosen`` is a one-time filter).
#
# Each point's price in the reader's currency is computed here, as ``rates.convert``
# computes it: unchanged in its own currency (or as listed); else its recorded USD over
# the reader's currency's rate of its day, to the cent, half up (round() of a positive
# numeric); NULL when that rate is unknown. The rate of a day is the newest on or before
# it, the first source by name when two give one day (as ``rates.RateTable.rate`` reads
# it): one probe of the rates' index for each distinct day of the points in another
# currency (a week's closes of ten shops mostly share their days), none per point.
# ``unresolved`` marks a point with no recorded USD in another currency than USD
# (collected when its currency had no rate): the caller converts those.
CLOSE_POINTS_SQL = """
WITH shops AS (
    SELECT * FROM unnest(%(ids)s::uuid[]) WITH ORDINALITY AS s(listing_id, ordinal)
),
spans AS (
    SELECT min(CASE WHEN f.first_at >= %(start)s::timestamptz THEN f.first_at ELSE (
               SELECT o.observed_at FROM {observations} o
               WHERE o.listing_id = s.listing_id AND o.observed_at >= %(start)s::timestamptz
                 AND o.observed_at <= f.observed_at
               ORDER BY o.observed_at LIMIT 1
           ) END) AS first_at,
           max(l.observed_at) AS last_at
    FROM shops s
    CROSS JOIN LATERAL (
        SELECT c.first_at, c.observed_at FROM {closes} c
        WHERE c.listing_id = s.listing_id AND c.starts >= %(week_from)s
          AND c.observed_at >= %(start)s::timestamptz
        ORDER BY c.starts LIMIT 1
    ) AS f
    CROSS JOIN LATERAL (
        SELECT c.observed_at FROM {closes} c
        WHERE c.listing_id = s.listing_id AND c.starts >= %(week_from)s
        ORDER BY c.starts DESC LIMIT 1
    ) AS l
),
chosen AS (
    SELECT coalesce(last_at - first_at >= %(weekly_from)s::interval, false) AS weekly
    FROM spans
),
points AS MATERIALIZED (
    SELECT s.ordinal, p.observed_at, p.price, p.currency, p.price_usd, k.weekly,
           (p.observed_at AT TIME ZONE 'UTC')::date AS day
    FROM chosen k
    CROSS JOIN shops s
    CROSS JOIN LATERAL (
        SELECT c.observed_at, c.price, c.currency, c.price_usd FROM {closes} c
        WHERE k.weekly AND c.listing_id = s.listing_id AND c.starts >= %(week_from)s
          AND c.observed_at >= %(start)s::timestamptz
        UNION ALL
        SELECT d.observed_at, d.price, d.currency, d.price_usd
        FROM (
            SELECT o.observed_at, o.price, o.currency, o.price_usd,
                   lead(o.observed_at) OVER (ORDER BY o.observed_at) AS next_at
            FROM {observations} o
            WHERE NOT k.weekly AND o.listing_id = s.listing_id
              AND o.observed_at >= %(start)s::timestamptz
        ) AS d
        WHERE d.next_at IS NULL
           OR (d.next_at AT TIME ZONE 'UTC')::date > (d.observed_at AT TIME ZONE 'UTC')::date
    ) AS p
),
rates AS (
    SELECT d.day, r.rate_to_usd AS rate
    FROM (SELECT DISTINCT day FROM points WHERE currency <> %(target)s) AS d
    CROSS JOIN LATERAL (
        SELECT f.rate_to_usd FROM {fx} f
        WHERE f.currency = %(target)s AND f.as_of <= d.day
        ORDER BY f.as_of DESC, f.source
        LIMIT 1
    ) AS r
    WHERE %(target)s NOT IN ('USD', %(listed)s)
)
SELECT p.ordinal, extract(epoch FROM p.observed_at)::float8, p.price, p.currency,
       CASE
           WHEN %(target)s IN (%(listed)s, p.currency) THEN p.price
           ELSE round(
               coalesce(p.price_usd, CASE WHEN p.currency = 'USD' THEN p.price END)
               / CASE WHEN %(target)s = 'USD' THEN 1 ELSE target.rate END,
               2
           )
       END,
       p.price_usd IS NULL AND p.currency <> 'USD' AND %(target)s NOT IN (%(listed)s, p.currency),
       p.weekly
FROM points p
LEFT JOIN rates target ON target.day = p.day
ORDER BY p.ordinal, p.observed_at
"""


def _close_points(
    ids: list[UUID], *, since: date | None, currency: str
) -> list[tuple[int, float, Decimal, str, Decimal | None, bool, bool]]:
    """(shop's place in ``ids`` from 1, epoch seconds, price, currency, price in
    ``currency``, unresolved, weekly) of each shop's close of each day (or week, when
    ``weekly``) since ``since``, shop by shop, oldest first. The moment comes as epoch
    seconds and the shop as its place: Django's timestamptz loader is pure Python and would
    cost more than the rest of the read, and so would a UUID a row."""
    sql = CLOSE_POINTS_SQL.format(
        closes=PriceClose._meta.db_table,
        observations=PriceObservation._meta.db_table,
        fx=FxRate._meta.db_table,
    )
    first = since or date.min
    params: dict[str, Any] = {
        "ids": ids,
        "week_from": first - timedelta(days=first.weekday()) if since else first,
        "start": datetime.combine(first, time.min, tzinfo=UTC),
        # A span of more than DAILY_UP_TO whole days, as timedelta.days counts them.
        "weekly_from": timedelta(days=DAILY_UP_TO + 1),
        "target": currency,
        "listed": LISTED,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[int, float, Decimal, str, Decimal | None, bool, bool]] = cursor.fetchall()
    return rows


# --- Comparison answers -------------------------------------------------------------


@dataclass
class PriceAnswer:
    """One shop's latest price, read against the others in the reader's currency."""

    listing: Listing
    display_price: Decimal | None = None
    per_unit: Decimal | None = None
    difference: Decimal | None = None
    cheapest: bool = False
    stale: bool = False


@dataclass
class ProductAnswers:
    rows: list[PriceAnswer]
    currency: str
    unit_label: str | None
    stale_days: int

    @property
    def cheapest(self) -> list[PriceAnswer]:
        return [row for row in self.rows if row.cheapest]


def unit_basis(product: Product) -> tuple[Decimal, str] | None:
    """How much of the product a per-unit price is for: 100 ml, a litre (drinks), 100 g."""
    if product.quantity_value is None or product.quantity_value <= 0:
        return None
    if product.quantity_unit == "g":
        return Decimal(100), "per 100 g"
    if product.quantity_unit == "ml":
        if product.vertical == "drinks":
            return Decimal(1000), "per litre"
        return Decimal(100), "per 100 ml"
    return None


def product_price_answers(
    product: Product,
    comparison: list[Listing],
    *,
    currency: str,
    stale_days: int,
    now: datetime,
) -> ProductAnswers:
    """The comparison's latest prices in ``currency`` (USD when the reader chose each
    shop's own: prices in several currencies cannot be ranked) with the price per unit,
    the difference to the cheapest and whether the price is older than ``stale_days``.
    The cheapest is the lowest fresh price (the lowest of all when every price is stale);
    ties are all marked. One query, for the rates of the prices' days."""
    target = "USD" if currency == LISTED else currency
    priced = [listing for listing in comparison if listing.latest is not None]
    table = RateTable()
    if priced:
        days = [listing.latest.observed_at.date() for listing in priced if listing.latest]
        needed = {
            listing.latest.currency
            for listing in priced
            if listing.latest and listing.latest.price_usd is None
        }
        table = rate_table([*needed, target], min(days), max(days))
    basis = unit_basis(product)
    cutoff = now - timedelta(days=stale_days)
    rows = []
    for listing in comparison:
        row = PriceAnswer(listing)
        latest = listing.latest
        if latest is not None:
            row.stale = latest.observed_at < cutoff
            row.display_price = convert(
                latest.price,
                latest.currency,
                latest.price_usd,
                latest.observed_at.date(),
                target,
                table,
            )
            if row.display_price is not None and basis and product.quantity_value:
                row.per_unit = (row.display_price * basis[0] / product.quantity_value).quantize(
                    CENT
                )
        rows.append(row)
    converted = [row for row in rows if row.display_price is not None]
    pool = [row for row in converted if not row.stale] or converted
    if pool:
        in_pool = {id(row) for row in pool}
        low = min(row.display_price for row in pool if row.display_price is not None)
        for row in converted:
            if row.display_price is not None:
                row.difference = row.display_price - low
                row.cheapest = id(row) in in_pool and row.display_price == low
    return ProductAnswers(rows, target, basis[1] if basis else None, stale_days)


# --- Categories waiting for a person ---------------------------------------------------


class CategoryQueueRow(TypedDict):
    """One feed category text no one has mapped: the source, the text as first collected,
    its fold, how many listings carry it and when the first of them was seen."""

    source_id: UUID
    source_slug: str
    text: str
    text_key: str
    listings: int
    first_seen: datetime


def category_queue() -> QuerySet[Listing, CategoryQueueRow]:
    """Every (source, category text) some kept listing carries and no mapping decides,
    most listings first: the editor's queue. Nothing is stored for it, so a text a new
    collection brings is waiting at once and a decided one leaves the queue by the
    decision alone."""
    decided = CategoryMapping.objects.filter(
        source=OuterRef("source_id"), text_key=OuterRef("text_key")
    )
    return (
        Listing.objects.filter(ignored_at__isnull=True, location__sources__isnull=False)
        .exclude(listed_category__isnull=True)
        .annotate(text_key=category_key_sql("listed_category"))
        .exclude(text_key="")
        .annotate(source_id=F("location__sources__id"), source_slug=F("location__sources__slug"))
        .filter(~Exists(decided))
        .values("source_id", "source_slug", "text_key")
        .annotate(text=Min("listed_category"), listings=Count("pk"), first_seen=Min("created_at"))
        .order_by("-listings", "source_slug", "text_key")
    )
