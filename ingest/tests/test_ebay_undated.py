"""An eBay row without a time is still a listing; only its price is refused."""

import csv

import pytest

from catalogue.collection_records import RejectedObservation
from catalogue.models import Listing, PriceObservation
from ingest.collectors.ebay_perfume import COLUMNS
from ingest.collectors.services import source_collect, source_register_builtin

pytestmark = pytest.mark.django_db


def test_a_row_without_lastupdated_keeps_its_listing_and_rejects_only_the_price(tmp_path):
    path = tmp_path / "ebay.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*COLUMNS, "available"])
        writer.writeheader()
        for title, stamp in (
            ("Sauvage EDT 100ml", "May 20, 2024 10:15:00 PDT"),
            ("Bleu de Chanel EDP 100ml", ""),
        ):
            row = {"brand": "Maker", "title": title, "type": "Eau de Toilette", "price": "50.00"}
            row |= {"priceWithCurrency": "US $50.00/ea", "lastUpdated": stamp}
            writer.writerow(row | {"itemLocation": "Ohio", "available": "3"})
    source = source_register_builtin(slug="ebay-perfume")
    run = source_collect(source=source, path=path).run
    assert (run.rows_read, run.products_seen, run.rejected) == (2, 2, 0)
    assert (run.prices_written, run.prices_rejected) == (1, 1)
    assert run.skip_counts == {"no_observed_at": 1}
    undated = Listing.objects.get(listed_name="Bleu de Chanel EDP 100ml")
    assert not PriceObservation.objects.filter(listing=undated).exists()
    rejection = RejectedObservation.objects.get(run=run)
    assert (rejection.reason, rejection.source_sku, rejection.row_number) == (
        "no_observed_at",
        undated.source_sku,
        3,
    )
    assert "listing kept" in rejection.message

    again = source_collect(source=source, path=path).run
    assert (again.listings_created, again.prices_written, again.prices_already_known) == (0, 0, 1)
    assert (
        again.prices_rejected == 1 and Listing.objects.filter(location=source.location).count() == 2
    )
