"""What every feed adapter yields: listing rows, or rejections with a reason.

A problem with the file as a whole (missing columns, not CSV, not JSON) is a ``FeedError``
naming the file, the place and the rule, raised before anything is written. A problem with
one row is a ``Rejection`` the run keeps with its reason and carries on.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from catalogue.identity.keys import Listed


class FeedError(Exception):
    """The file cannot be collected at all. Nothing has been written."""

    def __init__(self, path: Path | str, place: str, rule: str) -> None:
        self.path, self.place, self.rule = str(path), place, rule
        super().__init__(f"{Path(path).name}, {place}: {rule}")


@dataclass(frozen=True)
class FeedRow:
    row_number: int
    source_sku: str
    listed: Listed
    vertical: str
    payload: dict
    category: str = ""
    url: str = ""
    price: Decimal | None = None
    currency: str = ""
    was_price: Decimal | None = None
    in_stock: bool | None = None
    observed_at: datetime | None = None
    location_code: str = ""
    # A price the row shows but that cannot be recorded (reason, sentence): the listing is
    # still written, and the price is kept as a rejection of its own.
    price_problem: tuple[str, str] | None = None


@dataclass(frozen=True)
class Rejection:
    row_number: int
    reason: str
    message: str
    payload: dict = field(default_factory=dict)
    source_sku: str = ""
    url: str = ""


class RowProblem(Exception):
    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


_PRICE = re.compile(r"^(?P<num>\d{1,9}(?:[.,]\d{1,4})?)$")


def parse_price(text: str | None, *, column: str) -> Decimal:
    """A shelf price as a positive Decimal, or a RowProblem saying what was wrong."""
    if text is None or not str(text).strip():
        raise RowProblem("no_price", f"column {column!r} is empty")
    cleaned = str(text).strip().replace("\u00a0", "").replace(" ", "")
    match = _PRICE.match(cleaned)
    if not match:
        raise RowProblem("bad_price", f"column {column!r}: {text!r} is not a price")
    try:
        value = Decimal(match["num"].replace(",", "."))
    except InvalidOperation as exc:  # pragma: no cover - the pattern already ensures digits
        raise RowProblem("bad_price", f"column {column!r}: {text!r} is not a price") from exc
    if value <= 0:
        raise RowProblem("bad_price", f"column {column!r}: {text!r} is not above zero")
    return value


def text_or_none(value) -> str | None:
    """The listed layer keeps words verbatim: only a truly empty cell becomes None."""
    if value is None:
        return None
    value = str(value)
    return value if value.strip() else None


def read_csv(
    path: Path, *, required: tuple[str, ...]
) -> Generator[tuple[int, dict[str, str]], None, None]:
    """Rows of a UTF-8 CSV with a header, numbered by their line in the file."""
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise FeedError(path, "file", f"cannot be opened ({exc.strerror})") from exc
    with handle:
        try:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
        except (UnicodeDecodeError, csv.Error) as exc:
            raise FeedError(path, "line 1", f"not a UTF-8 CSV header ({exc})") from exc
        missing = [c for c in required if c not in header]
        if missing:
            raise FeedError(
                path, "line 1 (header)", f"required column(s) missing: {', '.join(missing)}"
            )
        try:
            for row in reader:
                yield reader.line_num, row
        except (UnicodeDecodeError, csv.Error) as exc:
            raise FeedError(path, f"line {reader.line_num}", f"unreadable CSV ({exc})") from exc


def check_csv_header(path: Path, *, required: tuple[str, ...]) -> None:
    """Fail on a bad file before a run starts, so a bad file changes nothing."""
    rows = read_csv(path, required=required)
    try:
        next(rows)
    except StopIteration:
        pass
    finally:
        rows.close()
