"""Price closes: each listing's last observation of each week, kept by the observations'
triggers on every write path, and the price history read from them (weeks) or from the
observations (days)."""

import importlib
import random
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection

from catalogue.models import PriceClose, PriceObservation
from catalogue.rates import rate_table
from catalogue.selectors import product_price_history, product_resolve
from catalogue.services import price_observation_record, product_merge
from catalogue.services.fx import price_observations_fill_usd
from catalogue.tests.factories import (
    FxRateFactory,
    ListingFactory,
    LocationFactory,
    ProductFactory,
)

pytestmark = pytest.mark.django_db

FIRST = datetime(2024, 1, 1, tzinfo=UTC)


def closes_from_observations(listing_ids) -> set[tuple]:
    """The closes by their definition, from the observations as stored."""
    buckets: dict[tuple, list[PriceObservation]] = {}
    for o in PriceObservation.objects.filter(listing_id__in=listing_ids):
        day = o.observed_at.astimezone(UTC).date()
        buckets.setdefault((o.listing_id, day - timedelta(days=day.weekday())), []).append(o)
    closes = set()
    for (listing_id, starts), rows in buckets.items():
        last = max(rows, key=lambda o: o.observed_at)
        first = min(o.observed_at for o in rows)
        closes.add((listing_id, starts, first, last.observed_at, last.price, last.currency,
                    last.price_usd))  # fmt: skip
    return closes


def stored_closes(listing_ids) -> set[tuple]:
    columns = ("listing_id", "starts", "first_at", "observed_at", "price", "currency",
               "price_usd")  # fmt: skip
    return set(PriceClose.objects.filter(listing_id__in=listing_ids).values_list(*columns))


def irregular_moments(rng: random.Random, days: int) -> list[datetime]:
    """Several a day, gaps of days and weeks, moments either side of a UTC midnight."""
    moments, moment = [], FIRST + timedelta(hours=23, minutes=59)
    while moment < FIRST + timedelta(days=days):
        moments.append(moment)
        moment += timedelta(seconds=rng.choice([1, 3600, 7200])) + timedelta(
            days=rng.choice([0, 0, 1, 1, 2, 9, 20])
        )
    return moments


def record(listing, moment, price, currency="GBP"):
    return price_observation_record(
        listing=listing, price=Decimal(price), currency=currency, observed_at=moment
    )


def test_the_closes_are_each_weeks_last_observation_whatever_the_order_of_writes():
    rng = random.Random(17)
    listings = [ListingFactory(location=LocationFactory(code=f"c{n}")) for n in range(2)]
    pending = [(listing, moment) for listing in listings
               for moment in irregular_moments(rng, 120)]  # fmt: skip
    rng.shuffle(pending)  # later moments first, earlier ones after: backfills, late feeds
    # Half one at a time through the writer, half as bulk inserts of many listings and days.
    half = len(pending) // 2
    for listing, moment in pending[:half]:
        record(listing, moment, rng.randint(10, 99))
    rest = pending[half:]
    for chunk in (rest[: len(rest) // 3], rest[len(rest) // 3 :]):
        PriceObservation.objects.bulk_create(
            PriceObservation(listing=listing, price=Decimal(rng.randint(10, 99)), currency="GBP",
                             observed_at=moment, source_kind="feed")
            for listing, moment in chunk
        )  # fmt: skip
    ids = [listing.pk for listing in listings]
    expected = closes_from_observations(ids)
    assert all(c[1].weekday() == 0 for c in expected) and len(expected) > 10
    assert stored_closes(ids) == expected


def test_a_usd_fill_reaches_the_closes_of_the_observations_it_fills():
    listing = ListingFactory(location=LocationFactory(code="fill", currency="EUR"))
    for n in range(20):
        record(listing, FIRST + timedelta(hours=9 + 13 * n), 40 + n, currency="EUR")
    assert not PriceClose.objects.filter(listing=listing, price_usd__isnull=False).exists()
    FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.10"), as_of=date(2023, 12, 29))
    filled = price_observations_fill_usd()
    assert filled.converted == 20
    closes = stored_closes([listing.pk])
    assert closes == closes_from_observations([listing.pk])
    assert all(c[6] == (c[4] * Decimal("1.10")).quantize(Decimal("0.01")) for c in closes)


def test_the_migrations_fill_makes_the_closes_the_triggers_keep():
    rng = random.Random(3)
    listing = ListingFactory()
    PriceObservation.objects.bulk_create(
        PriceObservation(listing=listing, price=Decimal(rng.randint(10, 99)), currency="GBP",
                         observed_at=moment, source_kind="feed")
        for moment in irregular_moments(rng, 90)
    )  # fmt: skip
    kept = stored_closes([listing.pk])
    fill = importlib.import_module("catalogue.migrations.0017_price_closes").FILL_SQL
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM catalogue_priceclose")
        cursor.execute(fill)
    assert stored_closes([listing.pk]) == kept == closes_from_observations([listing.pk])


@pytest.mark.parametrize(
    ("days", "since"),
    [(200, None), (200, date(2024, 3, 6)), (900, None), (900, date(2024, 5, 8))],
)
def test_the_history_is_the_points_of_the_raw_observations_in_the_readers_currency(days, since):
    from catalogue.rates import convert  # one test's reference conversion

    rng = random.Random(days)
    product = ProductFactory()
    listings = [
        ListingFactory(product=product, location=LocationFactory(code=f"h{n}-{days}",
                                                                 currency=currency))
        for n, currency in enumerate(("GBP", "EUR"))
    ]  # fmt: skip
    FxRateFactory(currency="GBP", rate_to_usd=Decimal("1.27"), as_of=date(2023, 12, 1))
    for n in range(0, days, 30):
        FxRateFactory(currency="EUR", rate_to_usd=Decimal(100 + n % 17) / 100,
                      as_of=date(2024, 1, 1) + timedelta(days=n))  # fmt: skip
    pending = [(listing, moment) for listing in listings
               for moment in irregular_moments(rng, days)]  # fmt: skip
    rng.shuffle(pending)
    PriceObservation.objects.bulk_create(
        PriceObservation(listing=listing, price=Decimal(rng.randint(1000, 9999)) / 100,
                         currency=listing.location.currency, observed_at=moment,
                         source_kind="feed")
        for listing, moment in pending
    )  # fmt: skip
    price_observations_fill_usd()  # the GBP prices get their USD; EUR ones are shown as EUR
    history = product_price_history(product, currency="EUR", since=since)
    assert history.weekly == (days > 400)
    start = datetime(since.year, since.month, since.day, tzinfo=UTC) if since else FIRST
    table = rate_table(["EUR", "GBP"], date(2023, 1, 1), date(2027, 1, 1))
    expected = {}
    for o in PriceObservation.objects.filter(listing__product=product, observed_at__gte=start):
        day = o.observed_at.astimezone(UTC).date()
        bucket = day - timedelta(days=day.weekday()) if history.weekly else day
        kept = expected.get((o.listing_id, bucket))
        if kept is None or kept.observed_at < o.observed_at:
            expected[(o.listing_id, bucket)] = o
    want = sorted(
        (o.listing_id, o.observed_at, o.price, o.currency,
         convert(o.price, o.currency, o.price_usd, o.observed_at.date(), "EUR", table))
        for o in expected.values()
    )  # fmt: skip
    got = sorted(
        (shop.listing.pk, p.observed_at, p.price, p.currency, p.display_price)
        for shop in history.shops
        for p in shop.points
    )
    assert len(got) > 20 and got == want


def test_a_merged_products_history_is_read_under_its_survivor_with_its_shops(editor):
    loser, survivor = ProductFactory(), ProductFactory()
    moved = ListingFactory(product=loser, location=LocationFactory(code="mv", iata="AAA"))
    kept = ListingFactory(product=survivor, location=LocationFactory(code="kp", iata="BBB"))
    for n in range(5):
        record(moved, FIRST + timedelta(days=n, hours=8), 30 + n)
        record(kept, FIRST + timedelta(days=n, hours=9), 40 + n)
    before = [(p.observed_at, p.price) for p in product_price_history(loser, currency="GBP")
              .shops[0].points]  # fmt: skip
    product_merge(loser=loser, survivor=survivor, actor=editor, note="one bottle")
    history = product_price_history(product_resolve(loser.pk), currency="GBP")
    assert [shop.listing.pk for shop in history.shops] == [moved.pk, kept.pk]
    assert [(p.observed_at, p.price) for p in history.shops[0].points] == before
    assert len(history.shops[1].points) == 5


def test_five_years_at_ten_shops_read_in_two_queries(django_assert_num_queries):
    product = ProductFactory()
    listings = [ListingFactory(product=product, location=LocationFactory(code=f"y{n}"))
                for n in range(10)]  # fmt: skip
    PriceObservation.objects.bulk_create(
        PriceObservation(listing=listing, price=Decimal(50 + day % 9), currency="GBP",
                         observed_at=FIRST + timedelta(days=day, hours=6), source_kind="feed")
        for day in range(0, 1826, 3)
        for listing in listings
    )  # fmt: skip
    with django_assert_num_queries(2):
        history = product_price_history(product, currency="GBP")
    assert history.weekly
    assert [len(shop.points) for shop in history.shops] == [261] * 10


@pytest.mark.parametrize(("last_day", "weekly"), [(400, False), (401, True)])
def test_a_span_that_since_cuts_a_week_in_starts_at_its_first_observation_since(last_day, weekly):
    since = date(2024, 1, 3)  # a Wednesday: the week's close also holds Monday and Tuesday
    listing = ListingFactory()
    PriceObservation.objects.bulk_create(
        PriceObservation(listing=listing, price=Decimal(50 + day % 9), currency="GBP",
                         observed_at=FIRST + timedelta(days=day, hours=12), source_kind="feed")
        for day in range(0, 2 + last_day + 1)
    )  # fmt: skip
    history = product_price_history(listing.product, currency="GBP", since=since)
    assert history.weekly is weekly
    points = history.shops[0].points
    # The cut week's point is its close (Sunday); the first day's, the first day since.
    assert points[0].observed_at == datetime(2024, 1, 7 if weekly else 3, 12, tzinfo=UTC)
    assert len(points) == (58 if weekly else 401)
