"""Smoke tests: every catalogue and collector console page answers, and the kill switch."""

import pytest
from django.urls import reverse
from django.utils import timezone

from catalogue.collection_records import CollectionRun, RawRecord, RejectedObservation, Source
from catalogue.models import Override
from catalogue.tests.factories import (
    BrandFactory,
    FxRateFactory,
    ListingFactory,
    PriceObservationFactory,
    ProductLineFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def rows(admin_user):
    observation = PriceObservationFactory()
    listing = observation.listing
    source = Source.objects.create(
        slug="shop", name="Shop", feed_format="generic_csv", location=listing.location
    )
    run = CollectionRun.objects.create(source=source, started_at=timezone.now())
    raw = RawRecord.objects.create(listing=listing, run=run, payload={"a": 1}, parser_version="t")
    listing.listed_record = raw
    listing.save()
    RejectedObservation.objects.create(run=run, stage="collect", reason="no_price", message="m")
    ProductLineFactory(brand=listing.product.brand)
    FxRateFactory()
    Override.objects.create(
        entity_key=str(listing.product.pk),
        field="name",
        value="x",
        set_by=admin_user,
        set_at=timezone.now(),
        reason="r",
    )
    return {"listing": listing, "source": source, "run": run, "raw": raw, "obs": observation}


MODELS = [
    "catalogue.retailer",
    "catalogue.location",
    "catalogue.brand",
    "catalogue.productline",
    "catalogue.variationalias",
    "catalogue.product",
    "catalogue.listing",
    "catalogue.priceobservation",
    "catalogue.fxrate",
    "catalogue.override",
    "catalogue.award",
    "catalogue.reverification",
    "catalogue.verificationrun",
    "catalogue.verificationcheck",
    "catalogue.airporthours",
    "catalogue.source",
    "catalogue.collectionrun",
    "catalogue.rejectedobservation",
    "catalogue.rawrecord",
]


@pytest.mark.parametrize("model", MODELS)
def test_changelist_renders(console, rows, model):
    app, name = model.split(".")
    assert console.get(reverse(f"admin:{app}_{name}_changelist")).status_code == 200


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("catalogue_listing", "listing"),
        ("catalogue_source", "source"),
        ("catalogue_collectionrun", "run"),
        ("catalogue_rawrecord", "raw"),
        ("catalogue_priceobservation", "obs"),
    ],
)
def test_change_page_renders(console, rows, model, key):
    response = console.get(reverse(f"admin:{model}_change", args=[rows[key].pk]))
    assert response.status_code == 200


def test_product_page_shows_listings_with_latest_price(console, rows):
    product = rows["listing"].product
    page = console.get(reverse("admin:catalogue_product_change", args=[product.pk]))
    assert "50.00 GBP" in page.content.decode()


def test_listing_page_shows_the_three_layers(console, rows):
    page = console.get(reverse("admin:catalogue_listing_change", args=[rows["listing"].pk]))
    text = page.content.decode()
    for heading in ("Listed (verbatim", "Standard (what the rules", "Decided (a person"):
        assert heading in text


def test_brand_changelist_counts_products_in_one_query(
    console, rows, django_assert_max_num_queries
):
    BrandFactory.create_batch(5)
    with django_assert_max_num_queries(8):
        console.get(reverse("admin:catalogue_brand_changelist"))


def test_price_observations_are_read_only_in_the_console(console, rows):
    url = reverse("admin:catalogue_priceobservation_change", args=[rows["obs"].pk])
    assert b'name="price"' not in console.get(url).content


def test_disable_action_asks_for_a_note_first(console, rows):
    source = rows["source"]
    url = reverse("admin:catalogue_source_changelist")
    page = console.post(url, {"action": "disable_sources", "_selected_action": [source.pk]})
    assert b"Disable these sources?" in page.content
    source.refresh_from_db()
    assert source.enabled


def test_disable_action_switches_the_source_off_with_the_note(console, rows):
    source = rows["source"]
    url = reverse("admin:catalogue_source_changelist")
    console.post(
        url,
        {
            "action": "disable_sources",
            "_selected_action": [source.pk],
            "confirm": "yes",
            "note": "shop asked us to pause",
        },
    )
    source.refresh_from_db()
    assert not source.enabled
    assert "disabled: shop asked us to pause" in source.notes


def test_enable_action_switches_the_source_back_on(console, rows):
    source = rows["source"]
    Source.objects.filter(pk=source.pk).update(enabled=False)
    console.post(
        reverse("admin:catalogue_source_changelist"),
        {
            "action": "enable_sources",
            "_selected_action": [source.pk],
            "confirm": "yes",
            "note": "cleared",
        },
    )
    source.refresh_from_db()
    assert source.enabled


def test_listing_changelist_query_count_does_not_grow_with_rows(
    console, rows, django_assert_max_num_queries
):
    ListingFactory.create_batch(10)
    with django_assert_max_num_queries(10):
        console.get(reverse("admin:catalogue_listing_changelist"))


def test_hide_action_asks_before_hiding(console, rows):
    location = rows["listing"].location
    page = console.post(
        reverse("admin:catalogue_location_changelist"),
        {"action": "hide_from_site", "_selected_action": [location.pk]},
    )
    assert b"Hide these locations on the public site?" in page.content
    location.refresh_from_db()
    assert location.visible


def test_hide_action_hides_the_location(console, rows):
    location = rows["listing"].location
    console.post(
        reverse("admin:catalogue_location_changelist"),
        {"action": "hide_from_site", "_selected_action": [location.pk], "confirm": "yes"},
    )
    location.refresh_from_db()
    assert not location.visible


def test_show_action_refuses_a_catalogue_only_location(console, rows):
    from catalogue.tests.factories import LocationFactory

    location = LocationFactory(iata=None, is_catalogue_only=True, visible=False)
    response = console.post(
        reverse("admin:catalogue_location_changelist"),
        {"action": "show_on_site", "_selected_action": [location.pk], "confirm": "yes"},
        follow=True,
    )
    assert "no storefront to show" in response.content.decode()
    location.refresh_from_db()
    assert not location.visible
