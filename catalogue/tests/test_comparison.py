"""Comparison answers: the cheapest shop, per-unit prices, stale prices, and lists with
price ranges, shop counts, orders and filters."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from catalogue.models import Listing, Product
from catalogue.selectors import product_comparison, product_price_answers, unit_basis
from catalogue.tests.factories import (
    BrandFactory,
    FxRateFactory,
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
    RetailerFactory,
)

pytestmark = pytest.mark.django_db


def priced(product, location, price, usd, *, days_ago=1, in_stock=None):
    listing = ListingFactory(product=product, location=location)
    PriceObservationFactory(
        listing=listing,
        price=Decimal(price),
        currency=location.currency,
        price_usd=Decimal(usd),
        fx_rate=Decimal(usd) / Decimal(price),
        in_stock=in_stock,
        observed_at=timezone.now() - timedelta(days=days_ago),
    )
    return listing


@pytest.fixture
def shops():
    wdf = RetailerFactory(slug="wdf", name="World Duty Free")
    heinemann = RetailerFactory(slug="heinemann", name="Heinemann")
    return {
        "LHR": LocationFactory(code="lhr", iata="LHR", currency="GBP", retailer=wdf),
        "FRA": LocationFactory(code="fra", iata="FRA", currency="EUR", retailer=heinemann),
        "HEL": LocationFactory(code="hel", iata="HEL", currency="EUR", retailer=heinemann),
    }


@pytest.fixture
def catalogue(shops):
    dior = BrandFactory(slug="dior", name="Dior")
    jw = BrandFactory(slug="johnnie-walker", name="Johnnie Walker")
    sauvage = ProductFactory(name="Sauvage 100 ml", brand=dior, category="Tuoksut")
    priced(sauvage, shops["LHR"], "80.00", "100.00")
    priced(sauvage, shops["FRA"], "85.00", "92.00", in_stock=False)
    # The cheapest of all, but seen 120 days ago: stale, so not the cheapest.
    priced(sauvage, shops["HEL"], "70.00", "75.00", days_ago=120)
    small = ProductFactory(
        name="Sauvage 60 ml", brand=dior, category="Tuoksut", quantity_value=60, size_ml=60
    )
    priced(small, shops["LHR"], "60.00", "75.00", in_stock=False)
    red = ProductFactory(
        name="Red Label 1 l",
        brand=jw,
        vertical="drinks",
        category="Viskit",
        quantity_value=1000,
        size_ml=1000,
    )
    priced(red, shops["HEL"], "18.00", "19.80")
    priced(red, shops["FRA"], "17.00", "18.70")
    return {"sauvage": sauvage, "small": small, "red": red}


def answers(product, currency="USD", stale_days=90):
    return product_price_answers(
        product,
        product_comparison(product),
        currency=currency,
        stale_days=stale_days,
        now=timezone.now(),
    )


def test_the_cheapest_fresh_shop_is_marked_with_differences_and_per_unit_prices(catalogue):
    result = answers(catalogue["sauvage"])
    rows = {row.listing.location.iata: row for row in result.rows}
    assert [row.listing.location.iata for row in result.cheapest] == ["FRA"]
    assert rows["HEL"].stale and not rows["FRA"].stale
    assert rows["LHR"].difference == Decimal("8.00") and rows["FRA"].difference == 0
    assert rows["HEL"].difference == Decimal("-17.00")  # stale and lower: shown, not chosen
    assert result.unit_label == "per 100 ml" and rows["LHR"].per_unit == Decimal("100.00")
    # Every price stale: the lowest of all is the cheapest, shown as stale.
    old = answers(catalogue["sauvage"], stale_days=1)
    assert [row.listing.location.iata for row in old.cheapest] == ["HEL"]


def test_the_answers_follow_the_readers_currency_in_one_query(catalogue, django_assert_num_queries):
    FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.25"), as_of=date(2020, 1, 1))
    comparison = product_comparison(catalogue["red"])
    with django_assert_num_queries(1):
        result = product_price_answers(
            catalogue["red"], comparison, currency="EUR", stale_days=90, now=timezone.now()
        )
    rows = {row.listing.location.iata: row for row in result.rows}
    # A price shown in EUR stays as it is; the difference is in EUR.
    assert rows["FRA"].display_price == Decimal("17.00") and rows["FRA"].cheapest
    assert rows["HEL"].difference == Decimal("1.00")
    assert result.unit_label == "per litre" and rows["HEL"].per_unit == Decimal("18.00")


def test_the_per_unit_basis_follows_the_unit_and_the_vertical():
    assert unit_basis(Product(quantity_value=Decimal(50), quantity_unit="g")) == (
        Decimal(100),
        "per 100 g",
    )
    assert unit_basis(Product(quantity_value=Decimal(3), quantity_unit="pcs")) is None
    assert unit_basis(Product(quantity_value=None, quantity_unit="")) is None


def test_the_product_page_marks_the_cheapest_and_the_stale_price(client, catalogue):
    page = client.get(reverse("catalogue:product-detail", args=[catalogue["sauvage"].pk]))
    html = page.content.decode()
    assert "Cheapest: <strong>FRA (Heinemann)</strong> at 92.00 USD" in html
    assert html.count("cheapest-badge") == 1 and html.count('data-stale="true"') == 1
    assert "stale: over 90 days old" in html and "+8.00" in html


def test_the_stale_age_is_a_setting(client, catalogue, settings):
    settings.CATALOGUE_STALE_PRICE_DAYS = 200
    html = client.get(
        reverse("catalogue:product-detail", args=[catalogue["sauvage"].pk])
    ).content.decode()
    assert 'data-stale="true"' not in html and "Cheapest: <strong>HEL" in html


def names(client, **params) -> list[str]:
    page = client.get(reverse("catalogue:product-list"), params)
    assert page.status_code == 200
    return [product.name for product in page.context["page"].object_list]


def test_the_product_list_shows_each_products_price_range_and_shops_in_three_queries(
    client, catalogue, django_assert_num_queries
):
    ProductFactory.create_batch(3)  # never listed: not shown
    # The page's count and the page itself, whatever the filters and the order, and the
    # taxonomy's categories the filter offers.
    with django_assert_num_queries(3):
        page = client.get(reverse("catalogue:product-list"), {"sort": "price", "in_stock": "true"})
    rows = {p.name: p for p in page.context["page"].object_list}
    assert (rows["Sauvage 100 ml"].price_min_usd, rows["Sauvage 100 ml"].price_max_usd) == (
        Decimal("75.00"),
        Decimal("100.00"),
    )
    assert rows["Sauvage 100 ml"].shop_count == 3
    assert "$75.00\u2013$100.00" in page.content.decode()


def test_the_product_list_sorts_by_price_unit_price_name_and_newest(client, catalogue):
    assert names(client, sort="price") == ["Red Label 1 l", "Sauvage 100 ml", "Sauvage 60 ml"]
    assert names(client, sort="-price") == ["Sauvage 100 ml", "Sauvage 60 ml", "Red Label 1 l"]
    # Per litre: Red Label 18.70, Sauvage 100 ml 750, Sauvage 60 ml 1,250.
    assert names(client, sort="unit_price") == [
        "Red Label 1 l",
        "Sauvage 100 ml",
        "Sauvage 60 ml",
    ]
    assert names(client, sort="name") == ["Red Label 1 l", "Sauvage 100 ml", "Sauvage 60 ml"]
    assert names(client, sort="newest") == ["Red Label 1 l", "Sauvage 60 ml", "Sauvage 100 ml"]


def test_the_product_list_filters(client, catalogue):
    assert names(client, airport="LHR") == ["Sauvage 100 ml", "Sauvage 60 ml"]
    assert names(client, airport="fra") == ["Red Label 1 l", "Sauvage 100 ml"]
    assert names(client, retailer="heinemann") == ["Red Label 1 l", "Sauvage 100 ml"]
    assert names(client, brand="johnnie-walker") == ["Red Label 1 l"]
    # The category filter reads the taxonomy a person mapped the feeds' texts to:
    # test_categories.py.
    assert names(client, category="whisky") == []
    assert names(client, size_min="61", size_max="100") == ["Sauvage 100 ml"]
    assert names(client, price_min="50", price_max="80") == ["Sauvage 100 ml", "Sauvage 60 ml"]
    assert names(client, in_stock="true") == ["Red Label 1 l", "Sauvage 100 ml"]
    assert names(client, in_stock="false") == ["Sauvage 60 ml"]
    bad = client.get(reverse("catalogue:product-list"), {"price_min": "cheap"})
    assert bad.status_code == 200 and b"price_min" in bad.content
    assert list(bad.context["page"].object_list) == []


def test_the_brand_and_airport_pages_show_price_ranges_and_shops(
    client, catalogue, django_assert_num_queries
):
    with django_assert_num_queries(3):  # the brand, the page's count, the page
        brand = client.get(reverse("catalogue:brand-detail", args=["dior"]))
    assert "$75.00\u2013$100.00" in brand.content.decode()
    with django_assert_num_queries(3):  # the airport, the page's count, the page
        airport = client.get(reverse("catalogue:location-detail", args=["lhr"]))
    listing = next(
        row for row in airport.context["page"].object_list if row.product.name == "Sauvage 100 ml"
    )
    assert listing.shop_count == 3 and listing.price_max_usd == Decimal("100.00")
    assert "100 ml" in airport.content.decode()  # the size tells like-named rows apart


def test_the_api_product_list_takes_the_same_filters(client, catalogue):
    url = reverse("catalogue-product-list")
    body = client.get(url, {"airport": "HEL", "price_max": "50"}).json()
    assert [row["name"] for row in body["results"]] == ["Red Label 1 l"]
    assert client.get(url, {"sort": "price"}).status_code == 400


def test_a_listing_never_priced_counts_as_a_shop_without_a_price(catalogue, shops):
    ListingFactory(product=catalogue["red"], location=shops["LHR"])
    red = Product.objects.with_price_summary().get(pk=catalogue["red"].pk)
    assert red.shop_count == 3 and red.price_min_usd == Decimal("18.70")
    assert Listing.objects.filter(product=catalogue["red"]).count() == 3
