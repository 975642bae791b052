"""The Serbian retailer product list: barcodes and shelf names, no prices.

The file is a retailer-wide catalogue kept for identity: every row becomes a listing at a
catalogue-only location and no price is written (the format has no price column).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from catalogue.identity.keys import Listed
from ingest.collectors.feeds import FeedRow, Rejection, read_csv, text_or_none

PARSER_VERSION = "rs_maxi/1"
CARRIES_PRICES = False
COLUMNS = ("code", "product_name", "brands", "categories")

# The two shelf categories of the list and the vertical each belongs to.
CATEGORY_VERTICALS = {
    "Lična higijena i kozmetika": "beauty",
    "Slatki konditori i cerealije": "food",
}


def rows(path: Path, *, mapping: dict) -> Iterator[FeedRow | Rejection]:
    for line, row in read_csv(path, required=COLUMNS):
        code = (row.get("code") or "").strip()
        name = text_or_none(row.get("product_name"))
        if not code or name is None:
            yield Rejection(
                row_number=line,
                reason="unparseable_record",
                message="a row needs a code and a product name",
                payload=row,
                source_sku=code,
            )
            continue
        category = row.get("categories") or ""
        yield FeedRow(
            row_number=line,
            source_sku=code,
            listed=Listed(
                brand=text_or_none(row.get("brands")),
                name=name,
                category=text_or_none(category),
                gtin=text_or_none(row.get("code")),
            ),
            vertical=CATEGORY_VERTICALS.get(category, "other"),
            category=category,
            payload=row,
        )
