import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalogue.collection_records import CollectionRun, RejectedObservation, Source
from catalogue.models import Listing, PriceObservation, Product
from catalogue.tests.factories import FxRateFactory, LocationFactory
from ingest.collectors.feeds import FeedError
from ingest.collectors.services import SourceDisabled, source_collect, source_set_enabled

pytestmark = pytest.mark.django_db

MAPPING = {
    "fields": {
        "sku": "sku",
        "name": "name",
        "brand": "brand",
        "price": "price",
        "currency": "currency",
        "observed_at": "seen",
        "variant": "type",
        "gtin": "ean",
        "location": "store",
    },
    "defaults": {"vertical": "fragrance"},
}
HEADER = "sku,name,brand,price,currency,seen,type,ean,store\n"


@pytest.fixture
def shop():
    return LocationFactory(code="lhr-t5", iata="LHR", currency="GBP")


@pytest.fixture
def source(shop):
    return Source.objects.create(
        slug="test-shop",
        name="Test shop",
        feed_format="generic_csv",
        location=shop,
        mapping=MAPPING,
    )


def write(tmp_path, text, name="feed.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_generic_csv_becomes_listings_products_and_prices(tmp_path, source):
    path = write(
        tmp_path,
        HEADER
        + "A1,Dior Sauvage EDT Men 100 ml,Dior,92.00,GBP,2026-01-05T09:00:00+00:00,,,\n"
        + "A2,Dior Sauvage EDP Men 100 ml,Dior,105.50,GBP,2026-01-05T09:00:00+00:00,,,\n",
    )
    run = source_collect(source=source, path=path).run
    assert (run.products_seen, run.products_created, run.prices_written) == (2, 2, 2)
    assert PriceObservation.objects.filter(run=run).count() == 2


def test_a_row_with_no_price_is_rejected_with_its_reason(tmp_path, source):
    path = write(
        tmp_path, HEADER + "A1,Dior Sauvage EDT 100 ml,Dior,,GBP,2026-01-05T09:00:00Z,,,\n"
    )
    run = source_collect(source=source, path=path).run
    rejection = RejectedObservation.objects.get(run=run)
    assert (rejection.reason, rejection.source_sku, rejection.row_number) == ("no_price", "A1", 2)
    assert run.skipped_no_price == 1
    assert not Listing.objects.exists()


@pytest.mark.parametrize(
    ("price", "reason"),
    [("abc", "bad_price"), ("-3", "bad_price"), ("0", "bad_price"), ("12.3.4", "bad_price")],
)
def test_a_bad_price_is_rejected_not_a_crash(tmp_path, source, price, reason):
    path = write(
        tmp_path, HEADER + f"A1,Dior Sauvage EDT 100 ml,Dior,{price},GBP,2026-01-05T09:00:00Z,,,\n"
    )
    run = source_collect(source=source, path=path).run
    assert run.skip_counts == {reason: 1}
    assert run.status == "succeeded"


def test_an_unknown_location_code_is_rejected(tmp_path, source):
    path = write(
        tmp_path, HEADER + "A1,Sauvage EDT 100 ml,Dior,9,GBP,2026-01-05T09:00:00Z,,,nowhere\n"
    )
    run = source_collect(source=source, path=path).run
    assert run.skip_counts == {"unknown_location": 1}


def test_a_time_without_an_offset_is_rejected(tmp_path, source):
    path = write(tmp_path, HEADER + "A1,Sauvage EDT 100 ml,Dior,9,GBP,2026-01-05T09:00:00,,,\n")
    run = source_collect(source=source, path=path).run
    assert run.skip_counts == {"bad_observed_at": 1}


def test_a_missing_column_is_an_error_naming_file_place_and_rule_and_writes_no_row(
    tmp_path, source
):
    path = write(tmp_path, "sku,name,brand\nA1,Sauvage,Dior\n", name="broken.csv")
    with pytest.raises(FeedError) as error:
        source_collect(source=source, path=path)
    assert str(error.value).startswith("broken.csv, line 1 (header): required column(s) missing")
    assert "price" in str(error.value)
    run = CollectionRun.objects.get()
    assert (run.status, run.rejections.get().reason) == ("failed", "missing_columns")
    assert not Listing.objects.exists()


def test_a_generic_json_feed_reads_the_records_key(tmp_path, shop):
    source = Source.objects.create(
        slug="json-shop",
        name="JSON shop",
        feed_format="generic_json",
        location=shop,
        mapping={**MAPPING, "records": "items"},
    )
    items = [
        {
            "sku": "J1",
            "name": "Light Blue EDT Men 125 ml",
            "brand": "Dolce & Gabbana",
            "price": "61.00",
            "currency": "GBP",
            "seen": "2026-01-05T10:00:00+00:00",
        },
        {"sku": "J2", "name": "Light Blue EDT Men 125 ml", "brand": "Dolce&Gabbana"},
    ]
    path = write(tmp_path, json.dumps({"items": items}), name="feed.json")
    run = source_collect(source=source, path=path).run
    assert (run.products_seen, run.rejected, run.skip_counts) == (1, 1, {"no_price": 1})


def test_invalid_json_is_an_error_naming_the_line(tmp_path, shop):
    source = Source.objects.create(
        slug="json-shop", name="JSON", feed_format="generic_json", location=shop, mapping=MAPPING
    )
    path = write(tmp_path, '[\n{"sku": 1,\n', name="bad.json")
    with pytest.raises(FeedError, match=r"^bad\.json, line 3: not valid UTF-8 JSON"):
        source_collect(source=source, path=path)


def test_a_mapping_without_the_sku_is_an_error(tmp_path, shop):
    source = Source.objects.create(
        slug="bad-map",
        name="Bad",
        feed_format="generic_csv",
        location=shop,
        mapping={"fields": {"name": "name", "price": "price"}, "defaults": {"currency": "EUR"}},
    )
    with pytest.raises(FeedError, match="source mapping: field\\(s\\) not mapped: sku"):
        source_collect(source=source, path=write(tmp_path, "name,price\nx,1\n"))


def test_the_same_product_from_two_shops_is_one_product(tmp_path, source, shop):
    LocationFactory(code="dxb-t3", iata="DXB", currency="AED")
    path = write(
        tmp_path,
        HEADER
        + "A1,Dior Sauvage Eau de Toilette Men 100ml,Dior,92,GBP,2026-01-05T09:00:00Z,,,\n"
        + "B7,DIOR SAUVAGE EDT MEN 3.4 OZ,DIOR,410,AED,2026-01-05T09:00:00Z,,,dxb-t3\n",
    )
    run = source_collect(source=source, path=path).run
    assert run.products_created == 1
    assert Product.objects.get().listings.count() == 2


def test_a_gtin_joins_listings_whatever_their_wording(tmp_path, source):
    path = write(
        tmp_path,
        HEADER
        + "A1,Red Label 70cl,Diageo,20,GBP,2026-01-05T09:00:00Z,,5000267014203,\n"
        + "A2,JW Red Label 0.7 l,Johnnie Walker,21,GBP,2026-01-05T09:00:00Z,,5000267014203,\n",
    )
    source.mapping = {**MAPPING, "defaults": {"vertical": "drinks"}}
    source.save()
    run = source_collect(source=source, path=path).run
    assert run.products_created == 1


def test_prices_in_another_currency_get_a_usd_figure_from_the_days_rate(tmp_path, source):
    FxRateFactory(currency="GBP", rate_to_usd="1.25")
    path = write(
        tmp_path, HEADER + "A1,Sauvage EDT Men 100 ml,Dior,80,GBP,2026-01-05T09:00:00Z,,,\n"
    )
    source_collect(source=source, path=path)
    observation = PriceObservation.objects.get()
    assert (observation.price_usd, observation.fx_rate) == (100, 1.25)
    assert observation.currency == "GBP"


def test_without_a_rate_the_usd_figure_stays_empty(tmp_path, source):
    path = write(
        tmp_path, HEADER + "A1,Sauvage EDT Men 100 ml,Dior,80,GBP,2026-01-05T09:00:00Z,,,\n"
    )
    source_collect(source=source, path=path)
    assert PriceObservation.objects.get().price_usd is None


def test_a_new_time_on_a_second_run_adds_one_observation(tmp_path, source):
    row = "A1,Sauvage EDT Men 100 ml,Dior,{price},GBP,{seen},,,\n"
    source_collect(
        source=source,
        path=write(tmp_path, HEADER + row.format(price=80, seen="2026-01-05T09:00:00Z")),
    )
    run = source_collect(
        source=source,
        path=write(tmp_path, HEADER + row.format(price=78, seen="2026-01-06T09:00:00Z")),
    ).run
    assert (run.prices_written, run.listings_created) == (1, 0)
    assert PriceObservation.objects.count() == 2


def test_a_disabled_source_collects_nothing(tmp_path, source, editor):
    source_set_enabled(source=source, enabled=False, actor=editor, note="feed broken")
    with pytest.raises(SourceDisabled, match="test-shop is disabled"):
        source_collect(source=source, path=write(tmp_path, HEADER))
    assert not CollectionRun.objects.exists()


def test_the_collect_command_says_a_disabled_source_collected_nothing(source, capsys, tmp_path):
    source.enabled = False
    source.save()
    call_command("collect", "test-shop", "--file", str(write(tmp_path, HEADER)))
    assert "test-shop is disabled: nothing collected" in capsys.readouterr().out


def test_the_collect_command_reports_the_run(source, capsys, tmp_path):
    path = write(
        tmp_path, HEADER + "A1,Sauvage EDT Men 100 ml,Dior,80,GBP,2026-01-05T09:00:00Z,,,\n"
    )
    call_command("collect", "test-shop", "--file", str(path))
    out = capsys.readouterr().out
    assert "1 rows, 1 listings seen (1 new), 1 new products, 1 prices written" in out


def test_the_collect_command_turns_a_bad_file_into_a_command_error(source, tmp_path):
    with pytest.raises(CommandError, match=r"missing\.csv, file: does not exist"):
        call_command("collect", "test-shop", "--file", str(tmp_path / "missing.csv"))


def test_the_collect_command_refuses_an_unknown_source():
    with pytest.raises(CommandError, match="No source 'nope'"):
        call_command("collect", "nope")


def test_a_row_the_database_refuses_is_rejected_and_the_run_carries_on(tmp_path, source):
    too_long = "x" * 300
    path = write(
        tmp_path,
        HEADER
        + f"{too_long},Sauvage EDT Men 100 ml,Dior,80,GBP,2026-01-05T09:00:00Z,,,\n"
        + "A2,Sauvage EDP Men 100 ml,Dior,90,GBP,2026-01-05T09:00:00Z,,,\n",
    )
    run = source_collect(source=source, path=path).run
    assert (run.products_seen, run.skip_counts) == (1, {"invalid_record": 1})
    assert RejectedObservation.objects.get().row_number == 2


def test_a_collection_never_overwrites_a_brand_name_a_person_set(tmp_path, source):
    row = "A{n},Sauvage EDT Men 100 ml,DIOR,80,GBP,2026-01-0{n}T09:00:00Z,,,\n"
    source_collect(source=source, path=write(tmp_path, HEADER + row.format(n=1)))
    brand = Product.objects.get().brand
    brand.name = "Dior"  # a person's preferred spelling
    brand.save()
    source_collect(source=source, path=write(tmp_path, HEADER + row.format(n=2)))
    brand.refresh_from_db()
    assert brand.name == "Dior"


def test_an_ignored_listing_keeps_collecting_prices(tmp_path, source, editor):
    from catalogue.services import listing_ignore

    row = "A1,Sauvage EDT Men 100 ml,Dior,{price},GBP,{seen},,,\n"
    source_collect(
        source=source,
        path=write(tmp_path, HEADER + row.format(price=80, seen="2026-01-05T09:00:00Z")),
    )
    listing_ignore(listing=Listing.objects.get(), reason="shop lists the wrong size", actor=editor)
    run = source_collect(
        source=source,
        path=write(tmp_path, HEADER + row.format(price=82, seen="2026-01-06T09:00:00Z")),
    ).run
    assert run.prices_written == 1
    assert Listing.objects.get().ignored_at is not None


def test_the_collect_command_exits_3_when_some_rows_were_rejected_and_0_when_none(source, tmp_path):
    from django.core.management import CommandError

    from omnium import exitcodes

    good = "A1,Dior Sauvage EDT Men 100 ml,Dior,92.00,GBP,2026-01-05T09:00:00+00:00,,,\n"
    future = "A2,Dior Sauvage EDP Men 100 ml,Dior,105.50,GBP,2099-01-05T09:00:00+00:00,,,\n"
    with pytest.raises(CommandError, match="1 row") as raised:
        call_command("collect", "test-shop", "--file", str(write(tmp_path, HEADER + good + future)))
    assert raised.value.returncode == exitcodes.PARTIAL
    call_command("collect", "test-shop", "--file", str(write(tmp_path, HEADER + good, "b.csv")))
