"""The catalogue's search finds a product by its barcode as a person types it."""

import pytest

from catalogue.models import Product
from catalogue.tests.factories import ProductFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def products():
    return {
        "ean13": ProductFactory(gtin="3348901250146"),
        "ean8": ProductFactory(gtin="96385074"),
        "gtin14": ProductFactory(gtin="00012345678905"),
        "other": ProductFactory(gtin="5000267014005"),
    }


def found(text):
    return set(Product.objects.search(text).values_list("gtin", flat=True))


@pytest.mark.parametrize(
    ("typed", "gtin"),
    [
        ("3348901250146", "3348901250146"),
        ("3 348901 250146", "3348901250146"),
        ("3348-9012-5014-6", "3348901250146"),
        ("96385074", "96385074"),
        ("012345678905", "00012345678905"),
        ("0 12345 67890 5", "00012345678905"),
        ("901250", "3348901250146"),
        ("9012 50", "3348901250146"),
    ],
)
def test_a_barcode_is_found_as_typed(products, typed, gtin):
    assert found(typed) == {gtin}


def test_too_few_digits_find_no_barcode_by_part(products):
    assert found("90125") == set()
