"""The catalogue's product list searches through the site search: misspellings, brand
spellings a person aliased and barcodes typed as printed find the product."""

import pytest
from django.urls import reverse
from django.utils import timezone

from catalogue.tests.factories import (
    BrandFactory,
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def red(editor):
    house = BrandFactory(slug="johnnie-walker", name="Johnnie Walker")
    BrandFactory(slug="j-walker", name="J. Walker & Sons", canonical=house, decided_by=editor,
                 decided_at=timezone.now())  # fmt: skip
    product = ProductFactory(name="Red Label Blended Scotch Whisky 1 l", brand=house,
                             brand_name="Johnnie Walker", gtin="5000267014005")  # fmt: skip
    ProductFactory(name="Sauvage Eau de Toilette 100 ml", brand_name="Dior")
    listing = ListingFactory(product=product, location=LocationFactory(code="lhr", visible=True))
    PriceObservationFactory(listing=listing)
    return product


def names(client, q):
    page = client.get(reverse("catalogue:product-list"), {"q": q}).context["page"]
    return [p.name for p in page.object_list]


@pytest.mark.parametrize(
    "typed",
    ["johnie walkr red", "red label", "whisky", "j walker red", "5000267014005", "50002 67014"],
)
def test_the_list_finds_the_product_as_typed(client, red, typed):
    assert names(client, typed) == [red.name]


def test_the_api_list_searches_alike(anon_client, red):
    body = anon_client.get("/api/v1/products/", {"q": "johnie walkr"}).json()
    assert [p["name"] for p in body["results"]] == [red.name]
