"""Resolution order at ingest: pin, the listing's product, GTIN, match key, new product."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from catalogue import services
from catalogue.identity.keys import Listed
from catalogue.models import Brand, Product, ProductLine
from catalogue.tests.factories import BrandFactory, LocationFactory, ProductFactory

pytestmark = pytest.mark.django_db
SEEN = datetime(2026, 1, 5, 9, tzinfo=UTC)


def see(location, sku, name, brand="Vireo", variant=None, gtin=None, mode="gtin_then_key"):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=location,
            source_sku=sku,
            listed=Listed(brand=brand, name=name, variant=variant, gtin=gtin),
            vertical="fragrance",
            seen_at=SEEN,
            identity_mode=mode,
        )
    )


@pytest.fixture
def lhr():
    return LocationFactory(code="lhr", iata="LHR")


@pytest.fixture
def dxb():
    return LocationFactory(code="dxb", iata="DXB", currency="AED")


def test_a_new_listing_with_an_unseen_product_creates_both(lhr):
    result = see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    assert (result.listing_created, result.product_created, result.resolved_by) == (
        True,
        True,
        "new",
    )
    assert result.product.match_key == "vireo|brisant men|edt|100ml"
    assert result.product.line.key == "brisant men"


def test_the_same_key_in_another_shop_joins_the_product(lhr, dxb):
    first = see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    second = see(dxb, "x", "VIREO BRISANT Eau de Toilette for Men 3.4 oz")
    assert (second.product, second.resolved_by) == (first.product, "match_key")


def test_a_gtin_wins_over_the_wording(lhr, dxb):
    first = see(lhr, "1", "Brisant EDT 100 ml", gtin="3348901250146")
    second = see(
        dxb,
        "x",
        "Eau de toilette homme 100ml",
        brand="Parfums Maison Vireo",
        gtin="3348901250146",
    )
    assert (second.product, second.resolved_by) == (first.product, "gtin")


def test_two_different_barcodes_never_join_on_the_key(lhr, dxb):
    first = see(lhr, "1", "Vireo Brisant EDT Men 100 ml", gtin="3348901250146")
    second = see(dxb, "x", "Vireo Brisant EDT Men 100 ml", gtin="3348901250153")
    assert second.product != first.product


def test_a_declared_concentration_that_differs_vetoes_the_key(lhr, dxb):
    first = see(lhr, "1", "Vireo Brisant Men 100 ml", variant="Eau de Toilette")
    second = see(dxb, "x", "Vireo Brisant Men 100 ml", variant="Eau de Parfum")
    assert second.product != first.product


def test_a_placeholder_brand_never_joins_by_key(lhr, dxb):
    first = see(lhr, "1", "Brisant EDT Men 100 ml", brand="As Show")
    second = see(dxb, "x", "Brisant EDT Men 100 ml", brand="As Show")
    assert second.product != first.product
    assert first.product.brand is None


def test_an_own_only_source_never_joins_another_shops_product(lhr, dxb):
    first = see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    second = see(dxb, "x", "Vireo Brisant EDT Men 100 ml", mode="own_only")
    assert second.product != first.product


def test_a_brand_alias_decided_by_a_person_joins_the_houses(lhr, dxb, editor):
    vireo = BrandFactory(slug="vireo", name="Vireo")
    BrandFactory(
        slug="maison-vireo",
        name="Maison Vireo",
        canonical=vireo,
        decided_by=editor,
        decided_at=timezone.now(),
    )
    first = see(lhr, "1", "Vireo Brisant EDP Men 200 ml")
    second = see(dxb, "x", "BRISANT by Maison Vireo EDP For Men 200 ml", brand="Maison Vireo")
    assert second.product == first.product
    assert second.product.brand == vireo


def test_d_and_g_stays_its_own_house_until_an_alias_says_so(lhr, dxb):
    see(lhr, "1", "Pale Sky EDT Men 125 ml", brand="Vireo & Lune")
    second = see(dxb, "x", "Pale Sky EDT Men 125 ml", brand="V&L")
    assert second.product.brand.slug == "v-and-l"
    assert Brand.objects.get(slug="vireo-and-lune").canonical is None


def test_a_pin_wins_at_every_later_sighting(lhr, editor):
    result = see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    chosen = ProductFactory(name="Brisant EDT (curated)")
    services.listing_pin(listing=result.listing, product=chosen, reason="same bottle", actor=editor)
    again = see(lhr, "1", "Vireo Brisant EDT Men 100 ml (renamed by the shop)")
    assert (again.product, again.resolved_by) == (chosen, "pin")
    again.listing.refresh_from_db()
    assert again.listing.pinned_by == editor


def test_a_listing_follows_its_product_through_a_merge(lhr):
    result = see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    survivor = ProductFactory()
    Product.objects.filter(pk=result.product.pk).update(merged_into=survivor)
    assert see(lhr, "1", "Vireo Brisant EDT Men 100 ml").product == survivor


def test_the_listed_layer_follows_the_latest_sighting_verbatim(lhr):
    see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    again = see(lhr, "1", "  vireo BRISANT edt men 100 ML  ")
    assert again.listing.listed_name == "  vireo BRISANT edt men 100 ML  "
    assert not again.listing_created


def test_a_pin_needs_a_reason(lhr, editor):
    result = see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    with pytest.raises(ValidationError):
        services.listing_pin(
            listing=result.listing, product=result.product, reason=" ", actor=editor
        )


def test_a_barcode_published_later_is_added_to_the_product(lhr, dxb):
    first = see(lhr, "1", "Vireo Brisant EDT Men 100 ml")
    see(dxb, "x", "Vireo Brisant EDT Men 100 ml", gtin="3348901250146")
    first.product.refresh_from_db()
    assert (first.product.gtin, first.product.gtin_source) == ("3348901250146", "collected")


def test_known_flankers_are_lines_of_their_own_one_per_house_and_key(lhr, dxb):
    see(lhr, "1", "Paco Rabanne 1 Million Men EDT 100 ml", brand="Paco Rabanne")
    see(dxb, "2", "1 Million Lucky by Paco Rabanne EDT Men 100 ml", brand="Paco Rabanne")
    see(dxb, "3", "Paco Rabanne 1 Million Royal Parfum Men 100 ml", brand="Paco Rabanne")
    see(dxb, "4", "1 Million by Paco Rabanne Parfum 100 ml", brand="Paco Rabanne")
    assert ProductLine.objects.count() == 3
    assert Product.objects.count() == 4


def test_a_catalogue_only_location_cannot_be_made_visible(editor):
    location = LocationFactory(iata=None, is_catalogue_only=True, visible=False)
    with pytest.raises(ValidationError):
        services.location_set_visible(location=location, visible=True, actor=editor)
