"""Price history: every shop's observations over time in the reader's currency."""

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from catalogue.charts import price_history_chart
from catalogue.models import PriceObservation
from catalogue.rates import LISTED, rate_table
from catalogue.selectors import product_price_history
from catalogue.tests.factories import (
    FxRateFactory,
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
)
from omnium.testing import error_names

pytestmark = pytest.mark.django_db


def at(day: int, month: int = 1) -> datetime:
    return datetime(2026, month, day, 9, tzinfo=UTC)


@pytest.fixture
def shelf():
    """One product at a London shop (GBP, USD recorded) and a Helsinki one (EUR, none)."""
    product = ProductFactory(name="Sauvage 100 ml")
    lhr = ListingFactory(
        product=product, location=LocationFactory(code="lhr", iata="LHR", currency="GBP")
    )
    hel = ListingFactory(
        product=product, location=LocationFactory(code="hel", iata="HEL", currency="EUR")
    )
    hidden = ListingFactory(
        product=product,
        location=LocationFactory(code="zzz", iata="CDG", currency="EUR", visible=False),
    )
    for day, price in ((1, "80.00"), (2, "82.00"), (5, "79.00")):
        PriceObservationFactory(
            listing=lhr,
            price=Decimal(price),
            currency="GBP",
            price_usd=Decimal(price) * Decimal("1.25"),
            fx_rate=Decimal("1.25"),
            observed_at=at(day),
        )
    for day, price in ((1, "95.00"), (3, "90.00")):
        PriceObservationFactory(
            listing=hel, price=Decimal(price), currency="EUR", observed_at=at(day)
        )
    PriceObservationFactory(
        listing=hidden, price=Decimal("1.00"), currency="EUR", observed_at=at(2)
    )
    # EUR to USD: 1.10 from 31 Dec, 1.20 from 3 Jan; GBP (only for the EUR leg) 1.25.
    FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.00"), as_of=date(2025, 12, 1))
    FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.10"), as_of=date(2025, 12, 31))
    FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.20"), as_of=date(2026, 1, 3))
    FxRateFactory(currency="GBP", rate_to_usd=Decimal("1.25"), as_of=date(2025, 12, 31))
    return product


def test_the_rate_table_holds_the_rate_before_the_span_and_those_inside_it(shelf):
    table = rate_table(["EUR", "GBP", "USD"], date(2026, 1, 1), date(2026, 1, 5))
    assert table.days["EUR"] == [date(2025, 12, 31), date(2026, 1, 3)]
    assert table.rate("EUR", date(2026, 1, 2)) == Decimal("1.10")
    assert table.rate("EUR", date(2026, 1, 3)) == Decimal("1.20")
    assert table.rate("USD", date(2026, 1, 3)) == 1
    assert table.rate("EUR", date(2025, 11, 1)) is None
    assert table.rate("CAD", date(2026, 1, 3)) is None


def test_a_day_is_its_last_observation(shelf):
    lhr = shelf.listings.get(location__iata="LHR")
    PriceObservationFactory(
        listing=lhr, price=Decimal("70.00"), currency="GBP", observed_at=at(5).replace(hour=18)
    )
    history = product_price_history(shelf, currency=LISTED)
    lhr_points = next(h for h in history.shops if h.listing == lhr).points
    assert [(p.observed_at.day, p.price) for p in lhr_points][-1] == (5, Decimal("70.00"))
    assert len(lhr_points) == 3


def test_the_history_converts_each_price_at_its_own_day_in_two_queries(
    shelf, django_assert_num_queries
):
    with django_assert_num_queries(2):
        history = product_price_history(shelf, currency="EUR")
    by_shop = {h.listing.location.iata: h for h in history.shops}
    assert sorted(by_shop) == ["HEL", "LHR"]  # the hidden shop is not shown
    assert [p.display_price for p in by_shop["HEL"].points] == [Decimal("95.00"), Decimal("90.00")]
    # The recorded USD (GBP 80 x 1.25) / 1.10 on 1 Jan; (79 x 1.25) / 1.20 on 5 Jan.
    assert [p.display_price for p in by_shop["LHR"].points] == [
        Decimal("90.91"),
        Decimal("93.18"),
        Decimal("82.29"),
    ]
    usd = {h.listing.location.iata: h for h in product_price_history(shelf, currency="USD").shops}
    assert [p.display_price for p in usd["HEL"].points] == [Decimal("104.50"), Decimal("108.00")]
    listed = product_price_history(shelf, currency=LISTED, since=date(2026, 1, 2)).shops
    assert {
        (h.listing.location.iata, p.price, p.display_price) for h in listed for p in h.points
    } == {
        ("LHR", Decimal("82.00"), Decimal("82.00")),
        ("LHR", Decimal("79.00"), Decimal("79.00")),
        ("HEL", Decimal("90.00"), Decimal("90.00")),
    }


def test_a_price_without_a_rate_for_its_day_is_not_converted(shelf):
    product = ProductFactory()
    listing = ListingFactory(
        product=product, location=LocationFactory(code="beg", iata="BEG", currency="RSD")
    )
    PriceObservationFactory(
        listing=listing, price=Decimal("9000"), currency="RSD", observed_at=at(2)
    )
    history = product_price_history(product, currency="EUR")
    assert history.shops[0].points[0].display_price is None
    chart = price_history_chart(history)
    assert chart.series[0].values == [None]
    assert "1 without a rate" in chart.summary


def test_the_chart_draws_one_line_per_shop_with_its_latest_point_marked(shelf):
    chart = price_history_chart(product_price_history(shelf, currency="EUR"))
    assert chart.labels == ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-05"]
    assert [s.label.split(" · ")[0] for s in chart.series] == ["HEL", "LHR"]
    assert chart.points == "2,3"
    hel, lhr = chart.series
    assert hel.marks == [2] and lhr.marks == [3]
    assert hel.notes[2] == "latest: 90.00 EUR on 2026-01-03"


def test_a_long_history_draws_a_point_a_week():
    product = ProductFactory()
    listing = ListingFactory(product=product, location=LocationFactory(code="lhr-long"))
    PriceObservation.objects.bulk_create(
        PriceObservation(
            listing=listing,
            price=Decimal(50 + n % 7),
            currency="GBP",
            observed_at=datetime.fromordinal(date(2024, 1, 1).toordinal() + n).replace(tzinfo=UTC),
            source_kind="feed",
        )
        for n in range(700)
    )
    history = product_price_history(product, currency=LISTED)
    assert history.weekly and len(history.shops[0].points) == 100
    # The week's last price stands for it: day 6 of each week is 50 + 6.
    assert history.shops[0].points[0].price == Decimal(56)
    chart = price_history_chart(history)
    assert len(chart.labels) == 100  # 700 days from a Monday: 100 weeks
    assert chart.x_label == "Week of"


def test_the_product_page_shows_the_chart_in_the_chosen_currency(client, shelf):
    url = reverse("catalogue:product-detail", args=[shelf.pk])
    page = client.get(url, {"currency": "EUR"})
    assert page.status_code == 200
    chart = page.context["history_chart"]
    assert chart.y_label == "Price (EUR)" and chart.points == "2,3"
    assert b'data-chart="price-history"' in page.content
    usd = client.get(url).context["history_chart"]
    assert usd.y_label == "Price (USD)" and usd.series[0].values != chart.series[0].values
    bad = client.get(url, {"currency": "XXX"})
    assert bad.status_code == 200 and b"Showing US dollars" in bad.content


def test_the_history_page_lists_every_observation_newest_first(client, shelf):
    page = client.get(reverse("catalogue:product-prices", args=[shelf.pk]), {"currency": "GBP"})
    assert page.status_code == 200
    rows = page.context["page"].object_list
    assert [(o.observed_at.day, o.listing.location.iata) for o in rows] == [
        (5, "LHR"),
        (3, "HEL"),
        (2, "LHR"),
        (1, "HEL"),  # same moment: the later row first
        (1, "LHR"),
    ]
    assert rows[0].display_price == Decimal("79.00")


def test_the_api_pages_the_history_by_cursor_in_the_chosen_currency(client, shelf):
    url = reverse("catalogue-product-price-history", args=[shelf.pk])
    first = client.get(url, {"currency": "EUR", "page_size": 3})
    assert first.status_code == 200, first.content
    body = first.json()
    assert body["currency"] == "EUR" and body["product"] == str(shelf.pk)
    assert [(r["location"]["iata"], r["display_price"]) for r in body["results"]] == [
        ("LHR", "90.91"),
        ("HEL", "95.00"),
        ("LHR", "93.18"),
    ]
    second = client.get(body["next"]).json()
    assert [r["observed_at"][:10] for r in second["results"]] == ["2026-01-03", "2026-01-05"]
    assert second["next"] is None
    since = client.get(url, {"date_from": "2026-01-04", "currency": "listed"}).json()
    assert [(r["price"], r["display_currency"]) for r in since["results"]] == [("79.00", "GBP")]


def test_the_api_refuses_an_unknown_parameter_or_currency(client, shelf):
    url = reverse("catalogue-product-price-history", args=[shelf.pk])
    assert error_names(client.get(url, {"currency": "JPY"})) == {"currency"}
    assert error_names(client.get(url, {"sinse": "2026-01-01"})) == {"sinse"}
    assert error_names(client.get(url, {"date_from": "yesterday"})) == {"date_from"}


def test_the_api_converts_a_page_with_one_query_for_its_rates(
    client, shelf, django_assert_num_queries
):
    url = reverse("catalogue-product-price-history", args=[shelf.pk])
    # The anonymous rate limit's minute, the product, a page of observations with their
    # shops, the rates.
    with django_assert_num_queries(4):
        client.get(url, {"currency": "GBP"})


def _last_of_each_bucket(observations, *, weekly, start=None):
    """The history's points by their definition: per shop, the last observation of each UTC
    day (or week from Monday), at or after ``start``."""
    points: dict = {}
    for o in sorted(observations, key=lambda o: o.observed_at):
        if start is not None and o.observed_at < start:
            continue
        day = o.observed_at.astimezone(UTC).date()
        bucket = day.toordinal() - (day.weekday() if weekly else 0)
        points[(o.listing_id, bucket)] = (o.observed_at, o.price)
    shops: dict = {}
    for (listing_id, _), point in sorted(points.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        shops.setdefault(listing_id, []).append(point)
    return shops


@pytest.mark.parametrize(("days", "since"), [(60, None), (60, date(2024, 1, 20)),
                                              (900, None), (900, date(2024, 3, 6))])  # fmt: skip
def test_the_points_are_each_shops_last_observation_of_each_bucket(days, since):
    import random

    rng = random.Random(days)
    product = ProductFactory()
    observations = []
    for n, code in enumerate(("aaa", "bbb", "ccc")):
        listing = ListingFactory(product=product, location=LocationFactory(code=f"{code}-{days}"))
        # Irregular: several a day, gaps of weeks, late-evening moments near a UTC midnight.
        moment = datetime(2024, 1, 1, 23, 59, tzinfo=UTC) + n * (datetime.resolution * 10**6)
        while (moment - datetime(2024, 1, 1, tzinfo=UTC)).days < days:
            observations.append(
                PriceObservation(listing=listing, price=Decimal(rng.randint(10, 99)),
                                 currency="GBP", observed_at=moment, source_kind="feed")
            )  # fmt: skip
            moment += rng.choice([datetime.resolution * 10**6 * s for s in (1, 3600, 7200)]) + (
                datetime(2024, 1, 2) - datetime(2024, 1, 1)
            ) * rng.choice([0, 0, 1, 1, 2, 9, 20])
    PriceObservation.objects.bulk_create(observations)
    history = product_price_history(product, currency=LISTED, since=since)
    start = datetime.combine(since, datetime.min.time(), tzinfo=UTC) if since else None
    expected = _last_of_each_bucket(observations, weekly=history.weekly, start=start)
    got = {
        shop.listing.pk: [(p.observed_at, p.price) for p in shop.points]
        for shop in history.shops
        if shop.points
    }
    assert history.weekly == (days > 400)
    assert got == expected


@pytest.mark.parametrize("currency", ["EUR", "GBP", "USD", LISTED])
def test_each_point_converts_as_one_price_converts(currency):
    """The points converted in SQL agree with ``rates.convert`` of each one at its own day:
    rates dated before the span, days without a rate, two sources on one day (the first by
    name wins), prices with and without a recorded USD, shops in four currencies."""
    import random

    from catalogue.rates import convert

    rng = random.Random(currency)
    product = ProductFactory()
    for n, shop_currency in enumerate(("EUR", "GBP", "USD", "CHF")):
        listing = ListingFactory(
            product=product, location=LocationFactory(code=f"p{n}", currency=shop_currency)
        )
        for day in range(0, 60, 2):
            price = Decimal(rng.randint(1000, 20000)) / 100
            usd = (price * Decimal("1.3")).quantize(Decimal("0.01")) if day % 6 else None
            PriceObservationFactory(
                listing=listing, price=price, currency=shop_currency, price_usd=usd,
                fx_rate=Decimal("1.3") if usd else None, fx_as_of=date(2026, 1, 1) if usd else None,
                fx_source="test" if usd else "",
                observed_at=at(1) + (at(2) - at(1)) * day,
            )  # fmt: skip
    for rate_currency in ("EUR", "GBP", "CHF"):
        FxRateFactory(currency=rate_currency, rate_to_usd=Decimal("1.05"), as_of=date(2025, 11, 1))
        for day in rng.sample(range(60), 20):
            when = date.fromordinal(date(2026, 1, 1).toordinal() + day)
            for source in rng.sample(["ecb", "bank", "zeta"], rng.randint(1, 2)):
                FxRateFactory(currency=rate_currency, as_of=when, source=source,
                              rate_to_usd=Decimal(rng.randint(80, 160)) / 100)  # fmt: skip
    history = product_price_history(product, currency=currency)
    table = rate_table(["EUR", "GBP", "CHF"], date(2025, 1, 1), date(2026, 12, 31))
    observations = {
        (o.listing_id, o.observed_at): o for o in PriceObservation.objects.filter(
            listing__product=product)
    }  # fmt: skip
    points = [(shop.listing.pk, p) for shop in history.shops for p in shop.points]
    assert len(points) == 4 * 30
    for listing_id, point in points:
        o = observations[(listing_id, point.observed_at)]
        expected = convert(o.price, o.currency, o.price_usd, point.observed_at.date(), currency,
                           table)  # fmt: skip
        assert point.display_price == expected, (o.currency, o.price_usd, point.observed_at)
