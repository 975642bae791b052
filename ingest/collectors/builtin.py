"""The sources this repository knows how to set up by slug: the three development feeds.

Their files are local test input (``../shared/data/catalogue``); two of them may not be
redistributed, so they are read in place and never copied into the repository.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuiltinSource:
    slug: str
    name: str
    feed_format: str
    feed_path: str
    retailer_slug: str
    retailer_name: str
    location_code: str
    location_name: str
    currency: str
    country: str
    iata: str | None = None
    is_catalogue_only: bool = False
    identity_mode: str = "gtin_then_key"
    notes: str = ""
    permission_record: str = ""


BUILTIN_SOURCES = {
    s.slug: s
    for s in (
        BuiltinSource(
            slug="rs-maxi",
            name="Serbian retailer product list (Maxi)",
            feed_format="rs_maxi",
            feed_path="../shared/data/catalogue/rs_maxi_products_dev.csv",
            retailer_slug="maxi-rs",
            retailer_name="Maxi (Serbia)",
            location_code="rs-maxi-catalogue",
            location_name="Maxi product list",
            currency="RSD",
            country="Serbia",
            is_catalogue_only=True,
            notes="Barcodes and shelf names, no prices: kept for identity only.",
            permission_record="data.gov.rs price register, stated 'Public Domain' by the "
            "importing repository's README (not independently verified).",
        ),
        BuiltinSource(
            slug="ebay-perfume",
            name="eBay men's perfume listings",
            feed_format="ebay_perfume",
            feed_path="../shared/data/catalogue/unverified_licence/"
            "ebay_perfume_listings_mens_dev.csv",
            retailer_slug="ebay",
            retailer_name="eBay sellers",
            location_code="ebay-perfume",
            location_name="eBay perfume listings",
            currency="USD",
            country="United States",
            notes="Many sellers wording the same bottle differently; hard negatives included.",
            permission_record="Licence unverified: local tests only, never redistributed.",
        ),
        BuiltinSource(
            slug="alko",
            name="Alko price list (spirits)",
            feed_format="alko",
            feed_path="../shared/data/catalogue/unverified_licence/alko_spirits_2025-11-30_dev.csv",
            retailer_slug="alko",
            retailer_name="Alko",
            location_code="alko",
            location_name="Alko price list",
            currency="EUR",
            country="Finland",
            permission_record="Licence unverified: local tests only, never redistributed.",
        ),
    )
}
