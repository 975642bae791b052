"""Public pages and API: what the public sees, and what it never sees."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from catalogue.tests.factories import (
    BrandFactory,
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
    taxonomy_ensure,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def sauvage():
    dior = BrandFactory(slug="dior", name="Dior")
    product = ProductFactory(
        name="Sauvage Eau de Toilette 100 ml", brand=dior, gtin="3348901250146"
    )
    lhr = LocationFactory(code="lhr-t5", iata="LHR", currency="GBP", name="World Duty Free T5")
    dxb = LocationFactory(code="dxb-t3", iata="DXB", currency="AED", name="Dubai Duty Free")
    hidden = LocationFactory(code="xxx", iata="CDG", currency="EUR", visible=False)
    for location, price, usd in ((lhr, "92.00", "115.00"), (dxb, "410.00", "111.60")):
        listing = ListingFactory(product=product, location=location)
        PriceObservationFactory(
            listing=listing,
            price=Decimal(price),
            currency=location.currency,
            price_usd=Decimal(usd),
            fx_rate=Decimal("1"),
            observed_at=datetime(2026, 1, 5, 9, tzinfo=UTC),
        )
    PriceObservationFactory(
        listing=ListingFactory(product=product, location=hidden),
        price=Decimal("1.23"),
        currency="EUR",
    )
    return product


def test_product_list_shows_visible_products(client, sauvage, django_assert_max_num_queries):
    ProductFactory.create_batch(5)  # no listing anywhere: not shown
    with django_assert_max_num_queries(3):
        page = client.get(reverse("catalogue:product-list")).content.decode()
    assert "Sauvage Eau de Toilette 100 ml" in page
    assert page.count("/catalogue/products/") == 1


def test_product_list_searches_by_brand(client, sauvage):
    assert (
        "Sauvage" in client.get(reverse("catalogue:product-list"), {"q": "dior"}).content.decode()
    )
    assert (
        "Sauvage"
        not in client.get(reverse("catalogue:product-list"), {"q": "chanel"}).content.decode()
    )


def test_product_page_compares_prices_by_airport_with_dates(
    client, sauvage, django_assert_max_num_queries
):
    # The product, its shops' latest prices, the history's shops and points (no rate is
    # read: every price records its USD and the page shows USD), its awards.
    with django_assert_max_num_queries(5):
        page = client.get(reverse("catalogue:product-detail", args=[sauvage.pk])).content.decode()
    assert "92.00 GBP" in page and "410.00 AED" in page
    assert "111.60" in page and "5 Jan 2026" in page
    assert page.index("DXB") < page.index("LHR")  # cheapest in USD first


def test_product_page_never_shows_a_hidden_location(client, sauvage):
    page = client.get(reverse("catalogue:product-detail", args=[sauvage.pk])).content.decode()
    assert "CDG" not in page and "1.23" not in page


def test_product_page_never_shows_an_ignored_listing(client, sauvage, editor):
    listing = sauvage.listings.get(location__iata="LHR")
    listing.ignored_at, listing.ignored_by, listing.ignore_reason = timezone.now(), editor, "x"
    listing.save()
    page = client.get(reverse("catalogue:product-detail", args=[sauvage.pk])).content.decode()
    assert "92.00 GBP" not in page


def test_a_product_only_at_hidden_locations_is_not_found(client):
    listing = ListingFactory(location=LocationFactory(visible=False))
    assert (
        client.get(reverse("catalogue:product-detail", args=[listing.product.pk])).status_code
        == 404
    )


def test_a_merged_product_redirects_to_its_survivor(client, sauvage):
    merged = ProductFactory(merged_into=sauvage)
    response = client.get(reverse("catalogue:product-detail", args=[merged.pk]))
    assert response.status_code == 301
    assert response["Location"] == reverse("catalogue:product-detail", args=[sauvage.pk])


def test_brand_page_lists_the_houses_products(client, sauvage, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        page = client.get(reverse("catalogue:brand-detail", args=["dior"])).content.decode()
    assert "Sauvage Eau de Toilette 100 ml" in page


def test_brand_page_of_an_alias_redirects_to_the_house(client, sauvage, editor):
    BrandFactory(
        slug="christian-dior", canonical=sauvage.brand, decided_by=editor, decided_at=timezone.now()
    )
    response = client.get(reverse("catalogue:brand-detail", args=["christian-dior"]))
    assert response["Location"] == reverse("catalogue:brand-detail", args=["dior"])


def test_airport_page_lists_latest_prices(client, sauvage, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        page = client.get(reverse("catalogue:location-detail", args=["lhr-t5"])).content.decode()
    assert "92.00 GBP" in page and "5 Jan 2026" in page


def test_a_hidden_airport_has_no_page(client, sauvage):
    assert client.get(reverse("catalogue:location-detail", args=["xxx"])).status_code == 404


def test_navigation_links_the_catalogue(client):
    assert reverse("catalogue:product-list") in client.get("/").content.decode()


# --- API ---------------------------------------------------------------------------------


def test_api_product_list_filters_and_counts_queries(
    anon_client, sauvage, django_assert_max_num_queries
):
    ProductFactory.create_batch(3)
    # The page and its count, and the site search's savepoint pair, its thresholds, the
    # query's terms, the names found, the products under aliased house spellings and the
    # ranking statement.
    with django_assert_max_num_queries(9):
        data = anon_client.get("/api/v1/products/", {"q": "sauvage"}).json()
    assert [p["name"] for p in data["results"]] == ["Sauvage Eau de Toilette 100 ml"]
    assert data["results"][0]["brand"] == {"slug": "dior", "name": "Dior"}


@pytest.mark.parametrize(
    ("params", "found"),
    [
        ({"gtin": "3348901250146"}, 1),
        ({"gtin": "0000000000000"}, 0),
        ({"brand": "dior"}, 1),
        ({"vertical": "fragrance"}, 1),
        ({"vertical": "drinks"}, 0),
        # No feed text of it is mapped to the taxonomy yet (test_categories.py).
        ({"category": "fragrance"}, 0),
    ],
)
def test_api_product_filters(anon_client, sauvage, params, found):
    taxonomy_ensure()
    body = anon_client.get("/api/v1/products/", params).json()
    assert len(body["results"]) == found


def test_api_brand_filter_follows_an_alias(anon_client, sauvage, editor):
    BrandFactory(
        slug="christian-dior", canonical=sauvage.brand, decided_by=editor, decided_at=timezone.now()
    )
    body = anon_client.get("/api/v1/products/", {"brand": "christian-dior"}).json()
    assert len(body["results"]) == 1


def test_api_product_detail_has_prices_by_airport(
    anon_client, sauvage, django_assert_max_num_queries
):
    with django_assert_max_num_queries(4):
        data = anon_client.get(f"/api/v1/products/{sauvage.pk}/").json()
    prices = {p["location"]["iata"]: p["latest"] for p in data["prices"]}
    assert set(prices) == {"LHR", "DXB"}
    assert prices["LHR"]["price"] == "92.00" and prices["LHR"]["currency"] == "GBP"
    assert prices["LHR"]["observed_at"].startswith("2026-01-05")


def test_api_merged_id_answers_under_the_survivor(anon_client, sauvage):
    merged = ProductFactory(merged_into=sauvage)
    assert anon_client.get(f"/api/v1/products/{merged.pk}/").json()["id"] == str(sauvage.pk)


def test_api_brand_resolves_through_aliases(anon_client, sauvage, editor):
    BrandFactory(
        slug="christian-dior",
        name="Christian Dior",
        canonical=sauvage.brand,
        decided_by=editor,
        decided_at=timezone.now(),
    )
    data = anon_client.get("/api/v1/brands/christian-dior/").json()
    assert data["slug"] == "dior" and data["aliases"] == ["Christian Dior"]
    assert [p["name"] for p in data["products"]] == ["Sauvage Eau de Toilette 100 ml"]


def test_api_airports_list_only_visible_ones(anon_client, sauvage, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        data = anon_client.get("/api/v1/airports/").json()
    assert {row["iata"] for row in data["results"]} == {"LHR", "DXB"}


def test_api_airport_detail_lists_latest_prices(
    anon_client, sauvage, django_assert_max_num_queries
):
    with django_assert_max_num_queries(5):
        data = anon_client.get("/api/v1/airports/dxb-t3/").json()
    assert data["location"]["iata"] == "DXB"
    assert data["results"][0]["latest"]["price"] == "410.00"


def test_api_hidden_airport_is_not_found(anon_client, sauvage):
    assert anon_client.get("/api/v1/airports/xxx/").status_code == 404
