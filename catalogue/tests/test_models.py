from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import IntegrityError, ProgrammingError, transaction

from catalogue.models import Location, PriceObservation, Product
from catalogue.tests.factories import (
    BrandFactory,
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
)

pytestmark = pytest.mark.django_db


def test_a_price_observation_cannot_be_updated():
    observation = PriceObservationFactory()
    with pytest.raises(ProgrammingError, match="Cannot update"), transaction.atomic():
        PriceObservation.objects.filter(pk=observation.pk).update(price=Decimal("1.00"))


def test_a_price_observation_cannot_be_deleted():
    observation = PriceObservationFactory()
    with pytest.raises(ProgrammingError, match="Cannot delete"), transaction.atomic():
        PriceObservation.objects.filter(pk=observation.pk).delete()


def test_price_observation_ids_are_bigint_sequences():
    first, second = PriceObservationFactory(), PriceObservationFactory()
    assert isinstance(first.pk, int) and second.pk > first.pk


def test_one_listing_has_one_observation_per_moment():
    observation = PriceObservationFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        PriceObservationFactory(listing=observation.listing, observed_at=observation.observed_at)


def test_a_price_must_be_positive():
    with pytest.raises(IntegrityError, match="price_positive"), transaction.atomic():
        PriceObservationFactory(price=Decimal("0"))


def test_usd_price_needs_its_rate():
    with pytest.raises(IntegrityError, match="usd_has_rate"), transaction.atomic():
        PriceObservationFactory(price_usd=Decimal("10"))


def test_two_live_products_cannot_share_a_gtin():
    ProductFactory(gtin="5000267014203")
    with pytest.raises(IntegrityError, match="unique_live_gtin"), transaction.atomic():
        ProductFactory(gtin="5000267014203")


def test_a_merged_product_keeps_its_gtin_beside_the_survivor():
    survivor = ProductFactory(gtin="5000267014203")
    merged = ProductFactory(gtin=None)
    merged.gtin, merged.merged_into = "5000267014203", survivor
    merged.save()
    assert Product.objects.canonical().filter(gtin="5000267014203").get() == survivor


def test_a_gtin_must_have_a_barcode_shape():
    with pytest.raises(IntegrityError, match="gtin_shape"), transaction.atomic():
        ProductFactory(gtin="12345")


def test_a_quantity_needs_its_unit():
    with pytest.raises(IntegrityError, match="quantity_has_unit"), transaction.atomic():
        ProductFactory(quantity_unit="")


def test_a_pack_needs_a_count_of_at_least_two():
    with pytest.raises(IntegrityError, match="pack_has_count"), transaction.atomic():
        ProductFactory(form="pack", pack_count=1, pack_unit_value=Decimal(50))


def test_location_iata_is_three_capitals():
    with pytest.raises(IntegrityError, match="iata_shape"), transaction.atomic():
        LocationFactory(iata="lhr")


def test_a_catalogue_only_location_cannot_be_visible():
    with pytest.raises(IntegrityError, match="catalogue_only_is_hidden"), transaction.atomic():
        LocationFactory(iata=None, is_catalogue_only=True, visible=True)


def test_a_brand_alias_must_be_decided():
    house = BrandFactory(slug="dior")
    with pytest.raises(IntegrityError, match="alias_is_decided"), transaction.atomic():
        BrandFactory(slug="christian-dior", canonical=house)


def test_a_listing_is_unique_per_location_and_sku():
    listing = ListingFactory()
    with pytest.raises(IntegrityError, match="unique_sku"), transaction.atomic():
        ListingFactory(location=listing.location, source_sku=listing.source_sku)


def test_visible_locations_exclude_hidden_and_catalogue_only():
    shown = LocationFactory()
    LocationFactory(visible=False)
    LocationFactory(iata=None, is_catalogue_only=True, visible=False)
    assert list(Location.objects.visible()) == [shown]


def test_entities_have_uuid7_keys():
    product = ProductFactory()
    assert product.pk.version == 7


def test_observed_at_is_kept_to_the_second():
    moment = datetime(2026, 3, 1, 9, 30, 15, tzinfo=UTC)
    observation = PriceObservationFactory(observed_at=moment)
    observation.refresh_from_db()
    assert observation.observed_at == moment
