"""A feed is decoded and parsed whole before anything is written; its rows then load in one
transaction for the run. A bad file leaves only its failed run and one rejection naming the
rule and the true line; a replayed file keeps no new raw record for its unchanged rows."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from catalogue.collection_records import (
    CollectionRun,
    RawRecord,
    RejectedObservation,
    RunStatus,
    Source,
)
from catalogue.models import Listing, PriceObservation, Product
from catalogue.tests.factories import LocationFactory
from ingest.collectors.feeds import FeedError
from ingest.collectors.services import source_collect
from omnium import exitcodes

pytestmark = pytest.mark.django_db

MAPPING = {
    "fields": {
        "sku": "sku",
        "name": "name",
        "brand": "brand",
        "price": "price",
        "currency": "currency",
        "observed_at": "seen",
    },
    "defaults": {"vertical": "fragrance"},
}
HEADER = b"sku,name,brand,price,currency,seen\n"
SEEN = "2026-01-05T09:00:00+00:00"
# This checkout (the one whose code the test is reading), for the command's own process.
CHECKOUT = Path(__file__).resolve().parents[2]


def good_rows(count: int, *, start: int = 1) -> bytes:
    return b"".join(
        f"S{n},Sauvage EDT Men {n} ml,Dior,{n}.50,GBP,{SEEN}\n".encode()
        for n in range(start, start + count)
    )


def good_record(n: int) -> dict:
    return {
        "sku": f"J{n}",
        "name": f"Light Blue EDT Men {n} ml",
        "brand": "Dolce & Gabbana",
        "price": "61.00",
        "currency": "GBP",
        "seen": SEEN,
    }


@pytest.fixture
def shop():
    return LocationFactory(code="lhr-t5", iata="LHR", currency="GBP")


@pytest.fixture
def csv_source(shop):
    return Source.objects.create(
        slug="csv-shop", name="CSV shop", feed_format="generic_csv", location=shop, mapping=MAPPING
    )


@pytest.fixture
def json_source(shop):
    return Source.objects.create(
        slug="json-shop",
        name="JSON shop",
        feed_format="generic_json",
        location=shop,
        mapping={**MAPPING, "records": "items"},
    )


def write(tmp_path, data: bytes, name: str):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def nothing_written():
    return not (
        Listing.objects.exists()
        or Product.objects.exists()
        or PriceObservation.objects.exists()
        or RawRecord.objects.exists()
    )


def the_file_rejection():
    run = CollectionRun.objects.get()
    rejection = RejectedObservation.objects.get(run=run)
    return run, rejection


# One test per failure the probe found.


def test_a_bad_byte_late_in_a_csv_writes_none_of_the_rows_before_it(tmp_path, csv_source):
    data = HEADER + good_rows(300) + "S301,Café Noir,Dior,9,GBP,x\n".encode("latin-1")
    path = write(tmp_path, data, "late.csv")
    with pytest.raises(FeedError):
        source_collect(source=csv_source, path=path)
    assert nothing_written()
    run, rejection = the_file_rejection()
    assert run.status == RunStatus.FAILED
    assert (run.rows_read, run.products_seen, run.rejected) == (0, 0, 0)
    assert rejection.reason == "not_utf8"


def test_a_bad_byte_is_named_by_its_true_line(tmp_path, csv_source):
    data = HEADER + good_rows(300) + "S301,Café Noir,Dior,9,GBP,x\n".encode("latin-1")
    path = write(tmp_path, data, "late.csv")
    with pytest.raises(FeedError, match=r"^late\.csv, line 302: not UTF-8"):
        source_collect(source=csv_source, path=path)
    _, rejection = the_file_rejection()
    assert rejection.row_number == 302
    assert rejection.payload["line"] == "S301,Caf\\xe9 Noir,Dior,9,GBP,x"


def test_a_nul_byte_rejects_the_file_and_its_rejection_is_stored(tmp_path, csv_source):
    data = HEADER + good_rows(5) + b"S6,Sauvage\x00 EDT,Dior,9,GBP," + SEEN.encode() + b"\n"
    path = write(tmp_path, data, "nul.csv")
    with pytest.raises(FeedError, match=r"^nul\.csv, line 7: a NUL byte"):
        source_collect(source=csv_source, path=path)
    assert nothing_written()
    _, rejection = the_file_rejection()
    assert (rejection.reason, rejection.row_number) == ("nul_byte", 7)
    assert rejection.payload["line"].startswith("S6,Sauvage\\x00 EDT")


def test_a_json_price_of_1e400_rejects_the_file_as_out_of_range(tmp_path, json_source):
    text = json.dumps({"items": [good_record(1), good_record(2)]}, indent=1)
    text = text.replace('"price": "61.00"', '"price": 1e400', 1)
    path = write(tmp_path, text.encode(), "huge.json")
    with pytest.raises(FeedError, match=r"^huge\.json, line \d+: the number 1e400 is too large"):
        source_collect(source=json_source, path=path)
    assert nothing_written()
    _, rejection = the_file_rejection()
    assert rejection.reason == "number_out_of_range"
    assert '"price": 1e400' in rejection.payload["line"]


def test_a_deeply_nested_json_feed_rejects_the_file_as_too_deep(tmp_path, json_source):
    deep = "[" * 100_000 + "]" * 100_000
    text = '{"items": [\n' + json.dumps(good_record(1)) + ",\n" + deep + "]}"
    path = write(tmp_path, text.encode(), "deep.json")
    with pytest.raises(FeedError, match=r"^deep\.json, line 3: nested deeper than"):
        source_collect(source=json_source, path=path)
    assert nothing_written()
    _, rejection = the_file_rejection()
    assert (rejection.reason, rejection.row_number) == ("too_deep", 3)


def test_a_run_that_stops_part_way_keeps_none_of_its_rows(tmp_path, csv_source):
    path = write(tmp_path, HEADER + good_rows(10), "feed.csv")

    class Interrupted(Exception):
        pass

    def progress(done, **kwargs):
        if done == 6:
            raise Interrupted("stopped after row 6")

    with pytest.raises(Interrupted):
        source_collect(source=csv_source, path=path, progress=progress)
    assert nothing_written()
    run = CollectionRun.objects.get()
    assert run.status == RunStatus.FAILED
    assert "stopped after row 6" in run.error
    assert (run.rows_read, run.products_seen) == (0, 0)


def test_replaying_a_feed_keeps_no_new_raw_record_for_its_unchanged_rows(tmp_path, csv_source):
    path = write(tmp_path, HEADER + good_rows(3), "feed.csv")
    first = source_collect(source=csv_source, path=path).run
    second = source_collect(source=csv_source, path=path).run
    assert RawRecord.objects.filter(run=first).count() == 3
    assert RawRecord.objects.filter(run=second).count() == 0
    assert second.status == RunStatus.SUCCEEDED
    assert (second.products_seen, second.prices_already_known) == (3, 3)


def test_replaying_a_feed_keeps_a_raw_record_for_a_row_that_changed(tmp_path, csv_source):
    source_collect(source=csv_source, path=write(tmp_path, HEADER + good_rows(3), "a.csv"))
    changed = good_rows(2) + f"S3,Sauvage EDP Men 3 ml,Dior,3.50,GBP,{SEEN}\n".encode()
    second = source_collect(source=csv_source, path=write(tmp_path, HEADER + changed, "b.csv")).run
    kept = RawRecord.objects.filter(run=second)
    assert [record.payload["sku"] for record in kept] == ["S3"]
    assert Listing.objects.get(source_sku="S3").listed_record == kept.get()


def test_replaying_two_rows_a_shop_lists_under_one_sku_keeps_no_new_raw_record(
    tmp_path, csv_source
):
    later = SEEN.replace("09:00", "10:00")
    rows = (
        f"S1,Sauvage EDT Men 100 ml,Dior,90.00,GBP,{SEEN}\n"
        f"S1,Sauvage EDT Men 100 ml,Dior,95.00,GBP,{later}\n"
    )
    path = write(tmp_path, HEADER + rows.encode(), "twice.csv")
    source_collect(source=csv_source, path=path)
    second = source_collect(source=csv_source, path=path).run
    assert RawRecord.objects.filter(run=second).count() == 0
    assert Listing.objects.get().listed_record.payload["price"] == "95.00"


@pytest.mark.django_db(transaction=True)
def test_the_collect_command_exits_non_zero_for_a_rejected_file(tmp_path, csv_source):
    path = write(tmp_path, HEADER + good_rows(2) + b"S3,\xff\n", "bad.csv")
    database = connection.settings_dict
    url = f"postgres://{database['HOST']}:{database['PORT']}/{database['NAME']}"
    done = subprocess.run(
        [sys.executable, "manage.py", "collect", csv_source.slug, "--file", str(path)],
        cwd=CHECKOUT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "omnium.settings_test", "DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == exitcodes.REJECTED
    assert "bad.csv, line 4: not UTF-8" in done.stderr
    assert not Listing.objects.exists()


# A corpus of malformed feeds: each one is refused with a named rule, and no table gains
# or loses a row except the run, its one rejection and the command's job.


def _deep(levels: int) -> bytes:
    return b'{"items": [' + b"[" * levels + b"]" * levels + b"]}"


def _json(records, **kwargs) -> bytes:
    return json.dumps({"items": records}, **kwargs).encode()


def _with_price(raw: str) -> bytes:
    return _json([good_record(1)], indent=1).replace(b'"61.00"', raw.encode())


CSV_CORPUS = {
    "latin1-in-a-row": (
        HEADER + good_rows(3) + "S9,Crème,Dior,9,GBP,x\n".encode("latin-1"),
        "not_utf8",
    ),
    "latin1-in-the-header": (
        "sku,name,brand,price,currency,seen,Année\n".encode("latin-1"),
        "not_utf8",
    ),
    "truncated-multibyte-at-the-end": (HEADER + good_rows(2) + b"S9,caf\xc3", "not_utf8"),
    "overlong-encoding": (HEADER + b"S9,\xc0\xaf,Dior,9,GBP,x\n", "not_utf8"),
    "encoded-surrogate": (HEADER + b"S9,\xed\xa0\x80,Dior,9,GBP,x\n", "not_utf8"),
    "bom-then-latin1": (
        b"\xef\xbb\xbf" + HEADER + "S9,é,Dior,9,GBP,x\n".encode("latin-1"),
        "not_utf8",
    ),
    "windows-1252-quotes": (HEADER + b"S9,\x93Sauvage\x94,Dior,9,GBP,x\n", "not_utf8"),
    "nul-in-a-row": (HEADER + good_rows(5) + b"S9,a\x00b,Dior,9,GBP,x\n", "nul_byte"),
    "nul-in-the-header": (b"sku,na\x00me,brand,price,currency,seen\n", "nul_byte"),
    "nul-as-the-last-byte": (HEADER + good_rows(2) + b"\x00", "nul_byte"),
    "utf16-file": (
        ("sku,name,brand,price,currency,seen\nS1,x,D,1,GBP,x\n").encode("utf-16"),
        "nul_byte",
    ),
    "unclosed-quote": (
        HEADER + good_rows(2) + b'S9,"Sauvage,Dior,9,GBP,x\n' + good_rows(2, start=10),
        "bad_csv",
    ),
    "text-after-a-closing-quote": (HEADER + b'S9,"Sauvage"EDT,Dior,9,GBP,x\n', "bad_csv"),
    "field-over-the-size-limit": (
        HEADER + b'S9,"' + b"x" * 200_000 + b'",Dior,9,GBP,x\n',
        "bad_csv",
    ),
    "missing-price-column": (b"sku,name,brand,currency,seen\nS1,x,D,GBP,x\n", "missing_columns"),
    "empty-file": (b"", "missing_columns"),
    "binary-garbage": (bytes(range(256)) * 4, "nul_byte"),
}
JSON_CORPUS = {
    "price-1e400": (_with_price("1e400"), "number_out_of_range"),
    "price-minus-1e400": (_with_price("-1e400"), "number_out_of_range"),
    "price-nan": (_with_price("NaN"), "number_out_of_range"),
    "price-infinity": (_with_price("Infinity"), "number_out_of_range"),
    "price-minus-infinity": (_with_price("-Infinity"), "number_out_of_range"),
    "price-of-25-digits": (_with_price("1" * 25), "number_out_of_range"),
    "price-of-5000-digits": (_with_price("9" * 5000), "number_out_of_range"),
    "price-1e30": (_with_price("1e30"), "number_out_of_range"),
    "nested-100000-deep": (_deep(100_000), "too_deep"),
    "nested-40-deep": (_deep(40), "too_deep"),
    "nul-escape-in-a-value": (_with_price('"6\\u00001"'), "bad_string"),
    "nul-escape-in-a-key": (b'{"items": [{"sku\\u0000": "J1"}]}', "bad_string"),
    "lone-surrogate-escape": (_with_price('"\\ud800"'), "bad_string"),
    "raw-nul-byte": (_json([good_record(1)]).replace(b"J1", b"J\x001"), "nul_byte"),
    "latin1-byte": (_json([good_record(1)]).replace(b"Light", b"L\xefght"), "not_utf8"),
    "truncated-document": (_json([good_record(1), good_record(2)])[:-20], "bad_json"),
    "trailing-garbage": (_json([good_record(1)]) + b" nonsense", "bad_json"),
    "empty-document": (b"", "bad_json"),
    "single-quoted-strings": (b"{'items': []}", "bad_json"),
    "records-not-a-list": (b'{"items": "none today"}', "no_records"),
    "records-key-missing": (b'{"products": []}', "no_records"),
    "utf16-document": (_json([good_record(1)]).decode().encode("utf-16"), "nul_byte"),
}


def table_counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608 - our own table names
            counts[table] = cursor.fetchone()[0]
    return counts


def _collect_refused(source, path, reason):
    before = table_counts()
    with pytest.raises(CommandError, match=rf"\[{reason}\]$"):
        call_command("collect", source.slug, "--file", str(path), verbosity=0)
    after = table_counts()
    changed = {t: after[t] - before[t] for t in before if after[t] != before[t]}
    # The attempt itself is recorded: the failed run, its rejection, the command's job.
    assert changed == {
        CollectionRun._meta.db_table: 1,
        RejectedObservation._meta.db_table: 1,
        "accounts_job": 1,
    }
    run = CollectionRun.objects.get()
    assert run.status == RunStatus.FAILED
    assert RejectedObservation.objects.get(run=run).reason == reason


def test_the_corpus_has_at_least_thirty_malformed_feeds():
    assert len(CSV_CORPUS) + len(JSON_CORPUS) >= 30


@pytest.mark.parametrize("case", sorted(CSV_CORPUS))
def test_a_malformed_csv_feed_is_refused_with_its_rule_and_changes_no_table(
    case, tmp_path, csv_source
):
    data, reason = CSV_CORPUS[case]
    _collect_refused(csv_source, write(tmp_path, data, f"{case}.csv"), reason)


@pytest.mark.parametrize("case", sorted(JSON_CORPUS))
def test_a_malformed_json_feed_is_refused_with_its_rule_and_changes_no_table(
    case, tmp_path, json_source
):
    data, reason = JSON_CORPUS[case]
    _collect_refused(json_source, write(tmp_path, data, f"{case}.json"), reason)
