"""Alko's public price list (spirits): item number, name, bottle size, EUR price, EAN.

The list is dated by its file name (``..._2025-11-30_...``): every price in it was the
shelf price on that day, so a re-run on the same file observes the same moment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from catalogue.identity.keys import Listed
from ingest.collectors.feeds import (
    FeedError,
    FeedRow,
    Rejection,
    RowProblem,
    parse_price,
    read_csv,
    text_or_none,
)

PARSER_VERSION = "alko/1"
CARRIES_PRICES = True
COLUMNS = ("Numero", "Nimi", "Valmistaja", "Pullokoko", "Hinta", "Tyyppi", "Alkoholi-%", "EAN")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
HELSINKI = ZoneInfo("Europe/Helsinki")


def list_date(path: Path, mapping: dict) -> datetime:
    text = mapping.get("observed_on")
    if not text:
        match = _DATE.search(path.name)
        if not match:
            raise FeedError(
                path,
                "file name",
                "the price list's date is not in the file name (YYYY-MM-DD); "
                "give the source an 'observed_on' date",
                reason="no_list_date",
            )
        text = match.group(1)
    try:
        day = datetime.strptime(text, "%Y-%m-%d")
    except ValueError as exc:
        raise FeedError(
            path, "file name", f"{text!r} is not a date (YYYY-MM-DD)", reason="no_list_date"
        ) from exc
    return day.replace(tzinfo=HELSINKI)


def rows(path: Path, *, mapping: dict) -> Iterator[FeedRow | Rejection]:
    observed_at = list_date(path, mapping)
    for line, row in read_csv(path, required=COLUMNS):
        sku = (row.get("Numero") or "").strip()
        try:
            if not sku or not (row.get("Nimi") or "").strip():
                raise RowProblem("unparseable_record", "a row needs 'Numero' and 'Nimi'")
            price = parse_price(row.get("Hinta"), column="Hinta")
        except RowProblem as problem:
            yield Rejection(
                row_number=line,
                reason=problem.reason,
                message=str(problem),
                payload=row,
                source_sku=sku,
            )
            continue
        yield FeedRow(
            row_number=line,
            source_sku=sku,
            listed=Listed(
                brand=text_or_none(row.get("Valmistaja")),
                name=text_or_none(row.get("Nimi")),
                quantity_text=text_or_none(row.get("Pullokoko")),
                category=text_or_none(row.get("Tyyppi")),
                gtin=text_or_none(row.get("EAN")),
                abv=text_or_none(row.get("Alkoholi-%")),
            ),
            vertical="drinks",
            category=row.get("Tyyppi") or "",
            payload=row,
            price=price,
            currency="EUR",
            observed_at=observed_at,
        )
