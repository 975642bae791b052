"""The three development feeds, collected twice each (local-only data; skipped without it)."""

import csv
from collections import Counter
from datetime import UTC

import pytest
from django.db import transaction

from catalogue.collection_records import RawRecord, RejectedObservation, RunStatus
from catalogue.fx_sources import ecb_currencies
from catalogue.models import Listing, PriceObservation, Product
from catalogue.services import fx_rates_load, observation_days, price_observations_fill_usd
from ingest.collectors.services import source_collect, source_register_builtin
from ingest.tests.conftest import CATALOGUE_DATA

pytestmark = pytest.mark.django_db


def _state(source):
    listings = Listing.objects.filter(location=source.location)
    return (
        sorted(listings.values_list("source_sku", "product_id")),
        PriceObservation.objects.filter(listing__location=source.location).count(),
        Product.objects.count(),
    )


@pytest.fixture(scope="module")
def dev_runs(django_db_setup, django_db_blocker):
    """Each development file collected twice, once for the whole module (rolled back after).

    Collecting the three files is the slow part of this suite; every test below reads the
    same outcome instead of collecting again.
    """
    if not CATALOGUE_DATA.is_dir():
        pytest.skip(f"local-only catalogue data not present at {CATALOGUE_DATA}")
    with django_db_blocker.unblock(), transaction.atomic():
        runs = {}
        for slug in ("rs-maxi", "ebay-perfume", "alko"):
            source = source_register_builtin(slug=slug)
            first = source_collect(source=source).run
            after_first = _state(source)
            second = source_collect(source=source).run
            runs[slug] = (source, first, second, after_first, _state(source))
        # What make run's exchange-rate loader does after a collection: the ECB rates (and
        # pegs) for the days the prices need, then USD for every price without it.
        since, until = observation_days()
        fx_rates_load(since=since, until=until)
        price_observations_fill_usd()
        yield runs
        transaction.set_rollback(True)


@pytest.fixture(params=["rs-maxi", "ebay-perfume", "alko"])
def collected_twice(request, dev_runs, db):
    return dev_runs[request.param]


def test_collecting_a_dev_file_twice_gives_the_same_products_listings_and_prices(
    collected_twice,
):
    _, first, second, after_first, after_second = collected_twice
    assert after_first == after_second
    assert second.listings_created == second.products_created == second.prices_written == 0
    assert second.prices_already_known == first.prices_written


def test_run_counts_match_the_file(collected_twice, catalogue_data):
    _, first, second, _, _ = collected_twice
    with open(
        first.source.feed_path.replace("../shared/data/catalogue", str(catalogue_data)),
        encoding="utf-8",
    ) as handle:
        rows = sum(1 for _ in csv.DictReader(handle))
    for run in (first, second):
        assert run.status == RunStatus.SUCCEEDED
        assert run.rows_read == rows
        assert run.products_seen + run.rejected == rows
        # The second run's rows are unchanged: their listed records already hold them.
        kept = run.products_seen if run == first else 0
        assert RawRecord.objects.filter(run=run).count() == kept
        refused = run.rejected + run.prices_rejected
        assert RejectedObservation.objects.filter(run=run).count() == refused
        assert sum(run.skip_counts.values()) == refused


def test_every_rejected_row_has_a_reason_and_its_payload(collected_twice):
    _, first, *_ = collected_twice
    for rejection in RejectedObservation.objects.filter(run=first):
        assert rejection.reason and rejection.message
        assert rejection.payload and rejection.row_number


def test_the_ebay_rows_without_a_time_are_rejected_as_such(dev_runs, db, catalogue_data):
    _, run, *_ = dev_runs["ebay-perfume"]
    path = catalogue_data / "unverified_licence" / "ebay_perfume_listings_mens_dev.csv"
    with path.open(encoding="utf-8") as handle:
        undated = sum(1 for row in csv.DictReader(handle) if not row["lastUpdated"].strip())
    assert run.skip_counts == {"no_observed_at": undated}
    # Their listings are kept; only their prices are refused.
    assert (run.rejected, run.prices_rejected) == (0, undated)
    assert run.products_seen == run.rows_read


def test_every_dev_feed_price_in_a_source_currency_has_usd_with_its_rate_date(dev_runs, db):
    observations = PriceObservation.objects.filter(
        listing__location__in=[source.location for source, *_ in dev_runs.values()]
    )
    currencies = set(observations.values_list("currency", flat=True))
    assert {"EUR", "USD", "CAD"} <= currencies <= ecb_currencies() | {"USD"}
    assert not observations.filter(price_usd__isnull=True).exists()
    for currency, source, observed_at, as_of in observations.values_list(
        "currency", "fx_source", "observed_at", "fx_as_of"
    ):
        assert source == ("identity" if currency == "USD" else "ecb")
        assert 0 <= (observed_at.astimezone(UTC).date() - as_of).days <= 4


def test_the_listed_layer_is_written_verbatim(dev_runs, db):
    listing = Listing.objects.filter(listed_name__startswith="Sauvage Eau De Parfum  3.4").first()
    assert listing is not None  # the double space the seller typed survives
    assert listing.listed_brand == "AS SHOW"
    assert listing.listed_record.payload["title"] == listing.listed_name


def test_rs_maxi_rows_become_listings_without_prices_at_a_catalogue_only_location(dev_runs, db):
    source, run, *_ = dev_runs["rs-maxi"]
    assert source.location.is_catalogue_only and not source.location.visible
    assert run.prices_written == 0 and run.rejected == 0
    assert Listing.objects.filter(location=source.location).count() == run.products_seen


def test_rs_maxi_float_artifact_barcodes_are_recorded_as_such(dev_runs, db):
    source, *_ = dev_runs["rs-maxi"]
    product = Listing.objects.get(location=source.location, source_sku="30469210223080").product
    assert product.gtin == "3046921022308"
    assert product.attributes["gtin_float_artifact"] == "30469210223080"


def test_alko_red_label_sizes_are_three_products_of_one_line(dev_runs, db):
    products = Product.objects.filter(gtin__in=["5000267014807", "5000267014203", "5000267096278"])
    assert products.count() == 3
    assert len({p.line_id for p in products}) == 1
    assert sorted(p.size_ml for p in products) == [50, 350, 700]


def test_alko_prices_are_kept_in_euro_as_shown(dev_runs, db):
    source, *_ = dev_runs["alko"]
    observations = PriceObservation.objects.filter(listing__location=source.location)
    assert set(observations.values_list("currency", flat=True)) == {"EUR"}


def test_ebay_hard_negatives_never_join_the_real_product(dev_runs, db):
    def product_of(prefix):
        products = set(
            Listing.objects.filter(listed_name__startswith=prefix).values_list(
                "product_id", flat=True
            )
        )
        assert products, prefix
        return products

    real_edt = product_of(
        "Dior Sauvage Eau de Toilette 3.4 Oz 100ml Brand New Sealed Free shipping"
    )
    for knock_off in (
        "Savage for Men- 3.4 Oz",
        "A-v-entus Eau de Parfum",
        "HOGO BOSS cologne",
        "1 Million Men Cologne Handmade",
    ):
        assert not product_of(knock_off) & real_edt
    assert not product_of("1 Million Men Cologne Handmade") & product_of(
        "1 Million Paco Rabanne Men 3.4 oz EDT Spray"
    )


def test_ebay_duplicate_titles_from_one_seller_place_are_one_listing(dev_runs, db, catalogue_data):
    _, run, *_ = dev_runs["ebay-perfume"]
    path = catalogue_data / "unverified_licence" / "ebay_perfume_listings_mens_dev.csv"
    with path.open(encoding="utf-8") as handle:
        keys = Counter(
            (r["brand"], r["title"], r["type"], r["itemLocation"])
            # Undated rows are listings too: only their price is refused.
            for r in csv.DictReader(handle)
        )
    assert run.listings_created == len(keys)
