from datetime import UTC, datetime
from decimal import Decimal

import factory

from catalogue.identity import RULES_VERSION
from catalogue.models import (
    Brand,
    FxRate,
    Listing,
    Location,
    PriceObservation,
    Product,
    ProductLine,
    Retailer,
)


class RetailerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Retailer
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"retailer-{n}")
    name = factory.LazyAttribute(lambda r: r.slug.replace("-", " ").title())


class LocationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Location
        django_get_or_create = ("code",)

    retailer = factory.SubFactory(RetailerFactory)
    code = factory.Sequence(lambda n: f"shop-{n}")
    iata = "LHR"
    name = factory.LazyAttribute(lambda loc: f"Shop {loc.code}")
    currency = "GBP"
    visible = True


class BrandFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Brand
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"brand-{n}")
    name = factory.LazyAttribute(lambda b: b.slug.title())


class ProductLineFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ProductLine

    brand = factory.SubFactory(BrandFactory)
    key = factory.Sequence(lambda n: f"line {n}")
    name = factory.LazyAttribute(lambda line: line.key.title())
    slug = factory.LazyAttribute(lambda line: line.key.replace(" ", "-"))


class ProductFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Product

    brand = factory.SubFactory(BrandFactory)
    brand_name = factory.LazyAttribute(lambda p: p.brand.name if p.brand else "")
    brand_key = factory.LazyAttribute(lambda p: p.brand.slug if p.brand else "")
    name = factory.Sequence(lambda n: f"Product {n} 100 ml")
    match_key = factory.Sequence(lambda n: f"house|product {n}||100ml")
    vertical = "fragrance"
    category = "Fragrance"
    quantity_value = Decimal(100)
    quantity_unit = "ml"
    quantity_state = "stated"
    size_ml = Decimal(100)
    identity_rules_version = RULES_VERSION


class ListingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Listing

    product = factory.SubFactory(ProductFactory)
    location = factory.SubFactory(LocationFactory)
    source_sku = factory.Sequence(lambda n: f"sku-{n}")
    listed_name = factory.LazyAttribute(lambda listing: listing.product.name)


class PriceObservationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PriceObservation

    listing = factory.SubFactory(ListingFactory)
    price = Decimal("50.00")
    currency = "GBP"
    observed_at = factory.Sequence(
        lambda n: datetime(2026, 1, 1, tzinfo=UTC).replace(minute=n % 60, hour=(n // 60) % 24)
    )
    source_kind = "feed"


class FxRateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FxRate

    currency = "EUR"
    rate_to_usd = Decimal("1.10")
    as_of = datetime(2025, 1, 1).date()
    source = "test rates"


def taxonomy_ensure() -> None:
    """The curated taxonomy as its migration seeds it: a test that flushes the database
    (``transaction=True``) takes the seeded rows with it."""
    import importlib

    from django.apps import apps

    importlib.import_module("catalogue.migrations.0014_category_taxonomy").seed_taxonomy(apps, None)
