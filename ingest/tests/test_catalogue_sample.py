import pytest
from django.urls import reverse

from catalogue.collection_records import CollectionRun, RejectedObservation
from catalogue.models import Listing, PriceObservation, Product
from ingest.collectors.sample import load_catalogue_sample
from ingest.samples import SAMPLE_LOADERS

pytestmark = pytest.mark.django_db


def test_the_sample_is_registered_for_make_run():
    assert "Duty-free catalogue sample (hand-made)" in [label for label, _ in SAMPLE_LOADERS]


def test_the_sample_loads_through_the_collector():
    message = load_catalogue_sample()
    assert "36 listings" in message and "1 rejected" in message
    rejection = RejectedObservation.objects.get()
    assert (rejection.reason, rejection.source_sku) == ("no_price", "HEL-70102")


def test_loading_the_sample_twice_changes_nothing():
    load_catalogue_sample()
    counts = (Product.objects.count(), Listing.objects.count(), PriceObservation.objects.count())
    assert load_catalogue_sample().startswith("already collected")
    assert CollectionRun.objects.count() == 1
    assert counts == (
        Product.objects.count(),
        Listing.objects.count(),
        PriceObservation.objects.count(),
    )


def test_four_wordings_of_sauvage_edt_are_one_product():
    load_catalogue_sample()
    skus = ["LHR-100231", "DXB-SAU-EDT-100", "HEL-88120", "FRA-4411"]
    products = set(Listing.objects.filter(source_sku__in=skus).values_list("product_id", flat=True))
    assert len(products) == 1


def test_the_sample_product_page_shows_three_airports_not_the_hidden_one(client):
    load_catalogue_sample()
    product = Listing.objects.get(source_sku="LHR-100231").product
    page = client.get(reverse("catalogue:product-detail", args=[product.pk])).content.decode()
    assert "89.00 GBP" in page and "399.00 AED" in page and "99.90 EUR" in page
    assert "FRA" not in page


def test_red_label_sizes_are_three_products_of_one_line_in_the_sample():
    load_catalogue_sample()
    products = Product.objects.filter(
        listings__source_sku__in=["HEL-90010", "HEL-90011", "HEL-90012"]
    )
    assert products.count() == 3
    assert products.values("line").distinct().count() == 1


def test_every_sample_price_has_usd_at_its_own_days_ecb_rate_or_the_dirham_peg():
    from catalogue.fx_sources import ecb_currencies
    from ingest.samples import _exchange_rates

    load_catalogue_sample()
    observations = PriceObservation.objects.all()
    assert set(observations.values_list("currency", flat=True)) == {"GBP", "EUR", "AED"}
    for observation in observations:
        assert observation.price_usd is not None and observation.fx_missing == ""
        if observation.currency in ecb_currencies():
            assert observation.fx_source == "ecb"
            day = observation.observed_at.date()
            assert observation.fx_as_of <= day and (day - observation.fx_as_of).days <= 3
        else:
            assert (observation.fx_source, str(observation.fx_as_of)) == ("peg", "1997-12-01")
    # make run's loader after the sample: nothing left to convert, nothing changes.
    assert "0 converted, 0 flagged without a rate, 0 unchanged" in _exchange_rates()
