"""Clean inputs at collection: a placeholder barcode keys nothing, a time far in the future,
an impossible quantity or price is refused, and every refusal is kept with its rule."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from catalogue.collection_records import RejectedObservation, RunStatus, Source
from catalogue.models import Listing, PriceObservation, Product
from catalogue.services import price_observation_record
from catalogue.tests.factories import ListingFactory, LocationFactory
from ingest.collectors.services import source_collect

pytestmark = pytest.mark.django_db

MAPPING = {
    "fields": {
        "sku": "sku",
        "name": "name",
        "brand": "brand",
        "price": "price",
        "currency": "currency",
        "observed_at": "seen",
        "quantity": "size",
        "gtin": "ean",
        "vertical": "vertical",
        "was_price": "was",
    },
}
HEADER = "sku,name,brand,price,currency,seen,size,ean,vertical,was\n"
SEEN = "2026-01-05T09:00:00+00:00"


@pytest.fixture
def source():
    return Source.objects.create(
        slug="clean-shop",
        name="Clean shop",
        feed_format="generic_csv",
        location=LocationFactory(code="lhr-t5", iata="LHR", currency="GBP"),
        mapping=MAPPING,
    )


def row(
    sku="A1",
    name="Sauvage EDT Men",
    brand="Dior",
    price="92.00",
    currency="GBP",
    seen=SEEN,
    size="100 ml",
    ean="",
    vertical="fragrance",
    was="",
):
    return f"{sku},{name},{brand},{price},{currency},{seen},{size},{ean},{vertical},{was}\n"


def collect(tmp_path, source, *rows):
    path = tmp_path / "feed.csv"
    path.write_text(HEADER + "".join(rows), encoding="utf-8")
    run = source_collect(source=source, path=path).run
    assert run.status == RunStatus.SUCCEEDED
    return run


def refused(run):
    """The run's single rejection, and proof that the row wrote nothing."""
    rejection = RejectedObservation.objects.get(run=run)
    assert run.skip_counts == {rejection.reason: 1}
    assert not Listing.objects.exists()
    assert not PriceObservation.objects.exists()
    return rejection


# Placeholder barcodes


def test_a_placeholder_gtin_never_joins_two_unrelated_products(tmp_path, source):
    run = collect(
        tmp_path,
        source,
        row(sku="P1", name="Sauvage EDT Men", ean="0000000000000"),
        row(sku="W1", name="Red Label", brand="Johnnie Walker", size="700 ml",
            ean="0000000000000", vertical="drinks"),
    )  # fmt: skip
    assert run.products_created == 2
    assert Product.objects.filter(gtin__isnull=False).count() == 0


def test_a_placeholder_gtin_is_kept_as_listed_and_flagged(tmp_path, source):
    collect(tmp_path, source, row(ean="0000000000000"))
    listing = Listing.objects.get()
    assert listing.listed_gtin == "0000000000000"
    assert listing.product.gtin is None
    assert listing.product.attributes["gtin_placeholder"] == "0000000000000"


def test_a_placeholder_gtin_does_not_join_an_existing_product_that_carries_it(tmp_path, source):
    ListingFactory(product__gtin="0000000000000", product__name="A whisky")
    collect(tmp_path, source, row(ean="0000000000000"))
    assert Listing.objects.get(source_sku="A1").product.name != "A whisky"


# Observation times


def test_an_observation_more_than_a_day_in_the_future_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(seen="2099-01-01T00:00:00+00:00"))
    rejection = refused(run)
    assert (rejection.reason, rejection.row_number) == ("observed_in_future", 2)
    assert "2099-01-01" in rejection.message


def test_an_observation_within_the_allowed_skew_is_kept(tmp_path, source):
    soon = (timezone.now() + timedelta(hours=20)).isoformat()
    run = collect(tmp_path, source, row(seen=soon))
    assert run.prices_written == 1


def test_the_allowed_future_skew_is_a_setting(tmp_path, source, settings):
    settings.COLLECT_FUTURE_SKEW_SECONDS = 600
    soon = (timezone.now() + timedelta(hours=1)).isoformat()
    run = collect(tmp_path, source, row(seen=soon))
    assert refused(run).reason == "observed_in_future"


def test_the_price_service_refuses_a_time_far_in_the_future():
    listing = ListingFactory()
    with pytest.raises(ValidationError, match="observed at 2099"):
        price_observation_record(
            listing=listing,
            price=10,
            currency="GBP",
            observed_at=timezone.now().replace(year=2099),
        )
    assert not PriceObservation.objects.exists()


# Quantities


def test_a_negative_quantity_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(size="-100ml"))
    assert refused(run).reason == "quantity_negative"


def test_a_zero_quantity_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(size="0 ml"))
    assert refused(run).reason == "quantity_not_positive"


def test_a_quantity_written_as_an_exponent_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(size="1e308ml"))
    assert refused(run).reason == "quantity_not_a_number"


def test_a_50_litre_perfume_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(size="50 l"))
    rejection = refused(run)
    assert rejection.reason == "quantity_out_of_bounds"
    assert "fragrance" in rejection.message


def test_a_quantity_beyond_any_purchase_is_rejected_in_every_vertical(tmp_path, source):
    run = collect(tmp_path, source, row(name="Vodka", size="500 l", vertical="drinks"))
    assert refused(run).reason == "quantity_out_of_bounds"


def test_a_large_but_real_drinks_size_is_kept(tmp_path, source):
    run = collect(tmp_path, source, row(name="Champagne Brut", size="15 l", vertical="drinks"))
    assert run.products_seen == 1


def test_a_dash_before_a_size_in_a_name_is_not_a_minus_sign(tmp_path, source):
    run = collect(tmp_path, source, row(name="Tribal Intense for Men -100ml", size=""))
    assert run.products_seen == 1
    assert Listing.objects.get().listed_quantity_value == 100


# Prices


def test_a_price_above_its_currency_ceiling_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(price="999999999.99"))
    rejection = refused(run)
    assert rejection.reason == "price_above_ceiling"
    assert "1000000 GBP" in rejection.message


def test_the_price_ceiling_is_per_currency(tmp_path, source):
    # 50 million yen is a dear bottle; 50 million pounds is no bottle at all.
    run = collect(
        tmp_path,
        source,
        row(sku="J1", price="50000000", currency="JPY"),
        row(sku="G1", price="50000000", currency="GBP"),
    )
    assert run.skip_counts == {"price_above_ceiling": 1}
    assert RejectedObservation.objects.get(run=run).source_sku == "G1"
    assert Listing.objects.get().source_sku == "J1"


def test_the_price_ceilings_are_a_setting(tmp_path, source, settings):
    settings.PRICE_CEILINGS = {"*": 50}
    run = collect(tmp_path, source, row(price="92.00"))
    assert refused(run).reason == "price_above_ceiling"


def test_a_was_price_above_the_ceiling_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(was="5000000"))
    assert refused(run).reason == "price_above_ceiling"


def test_a_price_with_more_than_two_decimals_is_rejected_not_rounded(tmp_path, source):
    run = collect(tmp_path, source, row(price="999.9999"))
    assert refused(run).reason == "price_too_precise"


def test_a_price_in_arabic_indic_digits_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(price="\u0669\u0662"))
    rejection = refused(run)
    assert rejection.reason == "non_ascii_digits"
    assert rejection.payload["price"] == "\u0669\u0662"


def test_a_price_of_zero_is_rejected(tmp_path, source):
    run = collect(tmp_path, source, row(price="0.00"))
    assert refused(run).reason == "bad_price"
