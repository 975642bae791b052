from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from catalogue.models import Listing, Product
from catalogue.tests.factories import (
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
)

pytestmark = pytest.mark.django_db


def at(day):
    return datetime(2026, 1, day, 9, tzinfo=UTC)


def test_latest_prices_picks_each_listings_newest_observation():
    listing = ListingFactory()
    PriceObservationFactory(listing=listing, price=Decimal("80"), observed_at=at(1))
    PriceObservationFactory(listing=listing, price=Decimal("75"), observed_at=at(3))
    PriceObservationFactory(listing=listing, price=Decimal("90"), observed_at=at(2))
    [read] = Listing.objects.latest_prices()
    assert (read.latest.price, read.latest.observed_at) == (Decimal("75.00"), at(3))
    assert read.latest == listing.observations.order_by("-observed_at").first()


def test_a_listing_without_observations_has_no_latest_price():
    ListingFactory()
    [read] = Listing.objects.latest_prices()
    assert read.latest is None


def test_latest_prices_costs_one_query_whatever_the_number_of_listings(
    django_assert_num_queries,
):
    product = ProductFactory()
    for _ in range(4):
        PriceObservationFactory(listing=ListingFactory(product=product))
    with django_assert_num_queries(1):
        rows = list(Listing.objects.filter(product=product).latest_prices())
    assert all(row.latest for row in rows)


def test_priced_leaves_out_listings_never_priced():
    PriceObservationFactory()
    ListingFactory()
    assert Listing.objects.priced().count() == 1


def test_visible_listings_skip_hidden_locations_and_ignored_listings(editor):
    shown = ListingFactory()
    ListingFactory(location=LocationFactory(visible=False))
    ListingFactory(ignored_at=timezone.now(), ignored_by=editor, ignore_reason="wrong bottle")
    assert list(Listing.objects.visible()) == [shown]


def test_canonical_products_leave_out_merged_rows():
    survivor = ProductFactory()
    ProductFactory(merged_into=survivor)
    assert list(Product.objects.canonical()) == [survivor]


def test_visible_products_have_a_visible_listing():
    shown = ListingFactory().product
    ListingFactory(location=LocationFactory(visible=False))
    assert list(Product.objects.visible()) == [shown]


@pytest.mark.parametrize(
    ("query", "found"),
    [("sauvage", True), ("DIOR", True), ("3348901250146", True), ("aventus", False)],
)
def test_product_search_by_name_brand_or_gtin(query, found):
    ProductFactory(name="Sauvage EDT 100 ml", brand_name="Dior", gtin="3348901250146")
    assert Product.objects.search(query).exists() is found


def test_latest_per_listing_returns_one_row_per_listing():
    listing = ListingFactory()
    PriceObservationFactory(listing=listing, observed_at=at(1))
    newest = PriceObservationFactory(listing=listing, observed_at=at(2))
    PriceObservationFactory()
    from catalogue.models import PriceObservation

    rows = list(PriceObservation.objects.latest_per_listing())
    assert len(rows) == 2 and newest in rows


def test_the_latest_price_keeps_its_exact_amounts():
    observation = PriceObservationFactory(
        price=Decimal("12345678.91"),
        price_usd=Decimal("0.10"),
        fx_rate=Decimal("1"),
        was_price=Decimal("99.99"),
    )
    [read] = Listing.objects.latest_prices()
    assert (read.latest.price, read.latest.price_usd, read.latest.was_price) == (
        observation.price,
        observation.price_usd,
        observation.was_price,
    )
