"""The hand-made catalogue sample ``make run`` collects (see samples/catalogue/README.md)."""

from __future__ import annotations

from datetime import date

from catalogue import services as catalogue_services
from catalogue.collection_records import CollectionRun, RunStatus, Source
from catalogue.models import Location
from ingest.collectors.adapters import resolve_path
from ingest.collectors.services import file_sha256, source_collect

SAMPLE_FILE = "ingest/samples/catalogue/duty_free_sample.csv"
SOURCE_SLUG = "sample-duty-free"
MAPPING = {
    "fields": {
        "location": "store",
        "sku": "sku",
        "brand": "brand",
        "name": "title",
        "quantity": "size",
        "category": "category",
        "vertical": "vertical",
        "price": "price",
        "was_price": "was",
        "currency": "currency",
        "in_stock": "in_stock",
        "observed_at": "seen_at",
    },
}
# (retailer slug, retailer name, location code, IATA, name, city, country, currency, visible)
LOCATIONS = [
    (
        "skyline",
        "Skyline Duty Free",
        "lhr-t5",
        "LHR",
        "Skyline Duty Free, Terminal 5",
        "London",
        "United Kingdom",
        "GBP",
        True,
    ),
    (
        "skyline",
        "Skyline Duty Free",
        "fra-b",
        "FRA",
        "Skyline Duty Free, Pier B",
        "Frankfurt",
        "Germany",
        "EUR",
        False,
    ),
    (
        "gulf-gateway",
        "Gulf Gateway Duty Free",
        "dxb-t3",
        "DXB",
        "Gulf Gateway, Concourse B",
        "Dubai",
        "United Arab Emirates",
        "AED",
        True,
    ),
    (
        "nordic-air",
        "Nordic Air Shops",
        "hel-2",
        "HEL",
        "Nordic Air Shops, Gate 30",
        "Vantaa",
        "Finland",
        "EUR",
        True,
    ),
]
# The sample's prices are dated 2026-01-05..13: the ECB's rates for those days (and the
# week before, for the nearest earlier business day) and the pegs are loaded first, so
# every price is converted as it is written.
RATES_SINCE, RATES_UNTIL = date(2025, 12, 29), date(2026, 1, 13)


def load_catalogue_sample() -> str:
    """Set up the sample shops and collect the sample feed once (idempotent)."""
    for (
        retailer_slug,
        retailer_name,
        code,
        iata,
        name,
        city,
        country,
        currency,
        visible,
    ) in LOCATIONS:
        retailer = catalogue_services.retailer_ensure(slug=retailer_slug, name=retailer_name)
        catalogue_services.location_ensure(
            retailer=retailer,
            code=code,
            iata=iata,
            name=name,
            city=city,
            country=country,
            currency=currency,
            visible=visible,
        )
    catalogue_services.fx_rates_load(since=RATES_SINCE, until=RATES_UNTIL)
    source = Source.objects.filter(slug=SOURCE_SLUG).first()
    if source is None:
        source = Source.objects.create(
            slug=SOURCE_SLUG,
            name="Hand-made duty-free sample feed",
            feed_format="generic_csv",
            feed_path=SAMPLE_FILE,
            mapping=MAPPING,
            location=Location.objects.get(code="lhr-t5"),
            notes="Written for the repository; see ingest/samples/catalogue/README.md.",
            permission_record="Our own work.",
        )
    digest = file_sha256(resolve_path(SAMPLE_FILE))
    done = CollectionRun.objects.filter(
        source=source, file_sha256=digest, status=RunStatus.SUCCEEDED
    ).first()
    if done is not None:
        return f"already collected (run {done.pk})"
    run = source_collect(source=source, triggered_by="load_samples").run
    return (
        f"{run.products_seen} listings, {run.products_created} products, "
        f"{run.prices_written} prices, {run.rejected} rejected"
    )
