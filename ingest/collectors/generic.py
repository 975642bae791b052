"""Generic CSV and JSON feeds for a new shop: a mapping from our fields to its columns.

A source's ``mapping`` (JSON) names, for each field below, the column (CSV) or key (JSON)
it is read from, plus ``defaults`` for values the whole file shares::

    {
      "fields": {
        "sku": "item_id",            # required: the shop's own id for the listing
        "name": "title",             # required
        "price": "price",            # required unless "carries_prices": false
        "brand": "brand", "variant": "type", "quantity": "size", "category": "category",
        "gtin": "ean", "currency": "currency", "observed_at": "seen_at",
        "was_price": "was", "in_stock": "stock", "url": "link", "abv": "abv",
        "vertical": "vertical", "location": "store"
      },
      "defaults": {"currency": "EUR", "vertical": "fragrance", "observed_at": "2026-01-05T09:00:00+00:00"},
      "carries_prices": true,
      "records": "items"             # JSON only: the key holding the list (default: the top level)
    }

``observed_at`` is ISO 8601 with an offset. ``location`` holds a location code; without it
every row belongs to the source's own location. ``in_stock`` reads yes/no, true/false, 1/0.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from catalogue.identity.keys import Listed
from ingest.collectors.feeds import (
    FeedError,
    FeedRow,
    Rejection,
    RowProblem,
    parse_price,
    read_csv,
    read_json,
    text_or_none,
)

PARSER_VERSION = "generic/1"
FIELDS = (
    "sku",
    "name",
    "price",
    "brand",
    "variant",
    "quantity",
    "category",
    "gtin",
    "currency",
    "observed_at",
    "was_price",
    "in_stock",
    "url",
    "abv",
    "vertical",
    "location",
)
VERTICALS = ("fragrance", "beauty", "drinks", "food", "other")
_YES = {"yes", "true", "1", "y", "in stock"}
_NO = {"no", "false", "0", "n", "out of stock"}


def carries_prices(mapping: dict) -> bool:
    return bool(mapping.get("carries_prices", True))


def _validated(path: Path, mapping: dict) -> dict:
    fields = mapping.get("fields")
    if not isinstance(fields, dict):
        raise FeedError(
            path,
            "source mapping",
            reason="bad_mapping",
            rule="'fields' must map our fields to columns",
        )
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise FeedError(
            path,
            "source mapping",
            reason="bad_mapping",
            rule=f"unknown field(s): {', '.join(unknown)}",
        )
    needed = ["sku", "name"] + (["price"] if carries_prices(mapping) else [])
    missing = [f for f in needed if f not in fields]
    if missing:
        raise FeedError(
            path,
            "source mapping",
            reason="bad_mapping",
            rule=f"field(s) not mapped: {', '.join(missing)}",
        )
    defaults = mapping.get("defaults") or {}
    if carries_prices(mapping) and "currency" not in fields and "currency" not in defaults:
        raise FeedError(
            path,
            "source mapping",
            reason="bad_mapping",
            rule="no currency column and no default currency",
        )
    if carries_prices(mapping) and "observed_at" not in fields and "observed_at" not in defaults:
        raise FeedError(
            path,
            "source mapping",
            reason="bad_mapping",
            rule="no observed_at column and no default time",
        )
    return fields


def _json_records(path: Path, mapping: dict) -> list:
    data = read_json(path)
    key = mapping.get("records")
    records = data.get(key) if key and isinstance(data, dict) else data
    if not isinstance(records, list):
        raise FeedError(
            path,
            "top level",
            f"expected a list of records under {key or 'the top'}",
            reason="no_records",
        )
    return records


def _value(record: dict, fields: dict, defaults: dict, name: str):
    column = fields.get(name)
    value = record.get(column) if column else None
    if value is None or (isinstance(value, str) and not value.strip()):
        value = defaults.get(name)
    return value


def _row(number: int, record: dict, *, fields: dict, mapping: dict) -> FeedRow:
    defaults = mapping.get("defaults") or {}

    def get(name):
        return _value(record, fields, defaults, name)

    sku = str(get("sku") or "").strip()
    if not sku or not str(get("name") or "").strip():
        raise RowProblem("unparseable_record", "a record needs a sku and a name")
    vertical = str(get("vertical") or "other").strip().lower()
    if vertical not in VERTICALS:
        raise RowProblem("unknown_vertical", f"vertical {vertical!r} is not one of {VERTICALS}")
    price = currency = observed_at = was_price = None
    if carries_prices(mapping):
        price = parse_price(None if get("price") is None else str(get("price")), column="price")
        currency = str(get("currency") or "").strip().upper()
        if len(currency) != 3 or not currency.isalpha():
            raise RowProblem("bad_currency", f"currency {currency!r} is not an ISO 4217 code")
        stamp = str(get("observed_at") or "")
        try:
            observed_at = datetime.fromisoformat(stamp)
        except ValueError as exc:
            raise RowProblem("bad_observed_at", f"observed_at {stamp!r} is not ISO 8601") from exc
        if observed_at.tzinfo is None:
            raise RowProblem("bad_observed_at", f"observed_at {stamp!r} has no UTC offset")
        if get("was_price") not in (None, ""):
            was_price = parse_price(str(get("was_price")), column="was_price")
    stock = str(get("in_stock") or "").strip().lower()
    in_stock = True if stock in _YES else False if stock in _NO else None

    def listed(name):
        return text_or_none(None if get(name) is None else str(get(name)))

    return FeedRow(
        row_number=number,
        source_sku=sku,
        listed=Listed(
            brand=listed("brand"),
            name=listed("name"),
            variant=listed("variant"),
            quantity_text=listed("quantity"),
            category=listed("category"),
            gtin=listed("gtin"),
            abv=listed("abv"),
        ),
        vertical=vertical,
        category=str(get("category") or ""),
        url=str(get("url") or ""),
        payload={k: v for k, v in record.items()},
        price=price,
        currency=currency or "",
        was_price=was_price,
        in_stock=in_stock,
        observed_at=observed_at,
        location_code=str(get("location") or ""),
    )


def _rows(numbered, *, fields, mapping) -> Iterator[FeedRow | Rejection]:
    for number, record in numbered:
        if not isinstance(record, dict):
            yield Rejection(
                row_number=number,
                reason="unparseable_record",
                message="a record must be an object",
                payload={"value": record},
            )
            continue
        try:
            yield _row(number, record, fields=fields, mapping=mapping)
        except RowProblem as problem:
            sku_column = fields.get("sku")
            yield Rejection(
                row_number=number,
                reason=problem.reason,
                message=str(problem),
                payload=record,
                source_sku=str(record.get(sku_column) or "") if sku_column else "",
            )


def rows_csv(path: Path, *, mapping: dict) -> Iterator[FeedRow | Rejection]:
    fields = _validated(path, mapping)
    yield from _rows(
        read_csv(path, required=tuple(fields.values())), fields=fields, mapping=mapping
    )


def rows_json(path: Path, *, mapping: dict) -> Iterator[FeedRow | Rejection]:
    fields = _validated(path, mapping)
    records = _json_records(path, mapping)
    yield from _rows(enumerate(records, start=1), fields=fields, mapping=mapping)
