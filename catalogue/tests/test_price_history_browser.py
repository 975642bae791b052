"""The product page's price history in a real browser: one line per shop, and the figures
follow the reader's currency."""

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from omnium.browser import chart_points

pytestmark = [pytest.mark.browser, pytest.mark.django_db]


@pytest.fixture(scope="module")
def product(site_rows):
    from catalogue.tests.factories import (
        FxRateFactory,
        ListingFactory,
        LocationFactory,
        PriceObservationFactory,
        ProductFactory,
    )

    product = ProductFactory(name="Browser Sauvage 100 ml")
    shops = {
        "LHR": ("GBP", ["80.00", "82.00", "79.00"], Decimal("1.25")),
        "HEL": ("EUR", ["95.00", "90.00"], Decimal("1.10")),
    }
    for iata, (currency, prices, rate) in shops.items():
        listing = ListingFactory(
            product=product,
            location=LocationFactory(code=f"browser-{iata.lower()}", iata=iata, currency=currency),
        )
        for day, price in enumerate(prices, start=1):
            PriceObservationFactory(
                listing=listing,
                price=Decimal(price),
                currency=currency,
                price_usd=(Decimal(price) * rate).quantize(Decimal("0.01")),
                fx_rate=rate,
                observed_at=datetime(2026, 1, day * 2, 9, tzinfo=UTC),
            )
    FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.10"), as_of=date(2025, 12, 31))
    FxRateFactory(currency="GBP", rate_to_usd=Decimal("1.25"), as_of=date(2025, 12, 31))
    return product


def _figures(page) -> list[list[float]]:
    return page.evaluate(
        "() => window.omniumCharts['price-history'].data.datasets"
        ".map(d => d.data.filter(v => v !== null))"
    )


def test_the_history_chart_draws_a_line_per_shop_and_follows_the_currency(product, site_page):
    from django.urls import reverse

    page = site_page
    page.goto(reverse("catalogue:product-detail", args=[product.pk]))
    # Shops in airport order: Helsinki's two prices, London's three.
    assert chart_points(page, "price-history") == [2, 3]
    usd = _figures(page)
    assert usd == [[104.5, 99.0], [100.0, 102.5, 98.75]]
    page.get_by_label("Show prices in").select_option("GBP")
    page.get_by_role("button", name="Show", exact=True).click()
    page.wait_for_url("**currency=GBP*")
    assert chart_points(page, "price-history") == [2, 3]
    gbp = _figures(page)
    assert gbp == [[83.6, 79.2], [80.0, 82.0, 79.0]]
    assert page.locator("figure[data-chart='price-history']").get_attribute("data-points") == "2,3"
