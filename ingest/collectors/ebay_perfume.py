"""The eBay men's perfume listings: seller-worded titles, prices as shown, a time stamp."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from catalogue.identity.keys import Listed
from ingest.collectors.feeds import (
    FeedRow,
    Rejection,
    RowProblem,
    parse_price,
    read_csv,
    text_or_none,
)

PARSER_VERSION = "ebay_perfume/1"
CARRIES_PRICES = True
COLUMNS = ("brand", "title", "type", "price", "priceWithCurrency", "lastUpdated", "itemLocation")

# eBay prints a symbol, not an ISO code: "US $84.99/ea", "C $45.00".
_SHOWN = re.compile(r"^\s*(?P<prefix>US|C|AU|GBP|EUR|£|€)?\s*\$?\s*(?P<amount>[\d.,]+)")
_PREFIX_CURRENCY = {"US": "USD", "C": "CAD", "AU": "AUD", "GBP": "GBP", "£": "GBP", "EUR": "EUR"}
_TZ = {"PDT": -7, "PST": -8, "MDT": -6, "MST": -7, "CDT": -5, "CST": -6, "EDT": -4, "EST": -5}
_STAMP = re.compile(r"^(?P<stamp>\w{3} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2}) (?P<tz>[A-Z]{3})$")


def _observed_at(text: str) -> datetime | None:
    if not (text or "").strip():
        return None
    match = _STAMP.match((text or "").strip())
    if not match or match["tz"] not in _TZ:
        raise RowProblem("bad_observed_at", f"column 'lastUpdated': {text!r} is not a time")
    naive = datetime.strptime(match["stamp"], "%b %d, %Y %H:%M:%S")
    return naive.replace(tzinfo=timezone(timedelta(hours=_TZ[match["tz"]])))


def _price_as_shown(row: dict):
    shown = row.get("priceWithCurrency") or ""
    match = _SHOWN.match(shown)
    if not shown.strip():
        return parse_price(row.get("price"), column="price"), "USD"
    if not match:
        raise RowProblem("bad_price", f"column 'priceWithCurrency': {shown!r} is not a price")
    currency = _PREFIX_CURRENCY.get(match["prefix"] or "US")
    return parse_price(match["amount"], column="priceWithCurrency"), currency


def _sku(row: dict) -> str:
    # The export carries no item number. A listing is one seller's title with its brand,
    # type and place; price, stock and time are what an observation of it says.
    identity = "\x1f".join(row.get(c) or "" for c in ("brand", "title", "type", "itemLocation"))
    return "ebay:" + hashlib.sha1(identity.encode(), usedforsecurity=False).hexdigest()[:20]


def rows(path: Path, *, mapping: dict) -> Iterator[FeedRow | Rejection]:
    for line, row in read_csv(path, required=COLUMNS):
        sku = _sku(row)
        try:
            if not (row.get("title") or "").strip():
                raise RowProblem("unparseable_record", "column 'title' is empty")
            price, currency = _price_as_shown(row)
            observed_at = _observed_at(row.get("lastUpdated") or "")
        except RowProblem as problem:
            yield Rejection(
                row_number=line,
                reason=problem.reason,
                message=str(problem),
                payload=row,
                source_sku=sku,
            )
            continue
        available = (row.get("available") or "").strip()
        yield FeedRow(
            row_number=line,
            source_sku=sku,
            listed=Listed(
                brand=text_or_none(row.get("brand")),
                name=text_or_none(row.get("title")),
                variant=text_or_none(row.get("type")),
            ),
            vertical="fragrance",
            category="Fragrance",
            payload=row,
            price=price,
            currency=currency,
            in_stock=(available != "0") if available else None,
            observed_at=observed_at,
            # Without a time the price cannot be dated, and a re-run could not recognise
            # it: the listing is kept, its price is not.
            price_problem=None
            if observed_at
            else ("no_observed_at", "column 'lastUpdated' is empty: listing kept, price not"),
        )
