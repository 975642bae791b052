"""What every feed adapter yields: listing rows, or rejections with a reason.

A problem with the file as a whole (missing columns, a byte that is not UTF-8, a NUL, broken
quoting, not JSON, a number out of range, a document nested too deep) is a ``FeedError``
naming the file, its true line and the rule: the whole file is decoded and parsed before
any row is written, so a bad file writes none of its rows. A problem with one row is a
``Rejection`` the run keeps with its reason and carries on.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from catalogue.identity.keys import Listed


class FeedError(Exception):
    """The file cannot be collected at all: none of its rows is written.

    ``reason`` names the rule (``not_utf8``, ``nul_byte``, ``number_out_of_range``, ...),
    ``line`` the file's line where it is known, ``excerpt`` what that line holds.
    """

    def __init__(
        self,
        path: Path | str,
        place: str,
        rule: str,
        *,
        reason: str = "bad_file",
        line: int | None = None,
        excerpt: str = "",
    ) -> None:
        self.path, self.place, self.rule = str(path), place, rule
        self.reason, self.line, self.excerpt = reason, line, excerpt
        super().__init__(f"{Path(path).name}, {place}: {rule} [{reason}]")


def safe_text(value: str) -> str:
    """Text the database can store whatever a feed held: a NUL or a lone surrogate is
    written as its escape (``\\x00``, ``\\ud800``), never refused."""
    value = value.replace("\x00", "\\x00")
    return value.encode("utf-8", errors="backslashreplace").decode("utf-8")


def safe_payload(value: Any) -> Any:
    """A payload with every string ``safe_text`` and every number a JSON number (a float
    that is not finite becomes its text)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {
            (safe_text(k) if isinstance(k, str) else k): safe_payload(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [safe_payload(v) for v in value]
    return value


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


_PRICE = re.compile(r"^(?P<num>[0-9]{1,10}(?:[.,][0-9]{1,4})?)$")
CENT = Decimal("0.01")
PRICE_RULES = ("no_price", "bad_price", "non_ascii_digits", "price_too_precise")


def _other_numeral(text: str) -> bool:
    return any(not c.isascii() and unicodedata.numeric(c, None) is not None for c in text)


def parse_price(text: str | None, *, column: str) -> Decimal:
    """A shelf price as a positive Decimal of at most two decimals written in ASCII digits,
    or a RowProblem whose reason is one of ``PRICE_RULES``. Never raises anything else."""
    if text is None or not str(text).strip():
        raise RowProblem("no_price", f"column {column!r} is empty")
    cleaned = str(text).strip().replace("\u00a0", "").replace(" ", "")
    if _other_numeral(cleaned):
        raise RowProblem(
            "non_ascii_digits", f"column {column!r}: {text!r} is not written in ASCII digits"
        )
    match = _PRICE.match(cleaned)
    if not match:
        raise RowProblem("bad_price", f"column {column!r}: {text!r} is not a price")
    value = Decimal(match["num"].replace(",", "."))
    if value <= 0:
        raise RowProblem("bad_price", f"column {column!r}: {text!r} is not above zero")
    if value != value.quantize(CENT):
        # A price is kept to the cent: 999999999.9999 would be stored as 1000000000.00.
        raise RowProblem(
            "price_too_precise", f"column {column!r}: {text!r} has more than two decimals"
        )
    return value


def text_or_none(value) -> str | None:
    """The listed layer keeps words verbatim: only a truly empty cell becomes None."""
    if value is None:
        return None
    value = str(value)
    return value if value.strip() else None


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _excerpt(data: bytes, line: int) -> str:
    """The offending line as readable text, cut short (a rejection keeps it)."""
    lines = data.split(b"\n")
    text = lines[line - 1] if 0 < line <= len(lines) else b""
    return safe_text(text[:200].decode("utf-8", errors="backslashreplace"))


def decoded(path: Path) -> str:
    """The whole file as text, or a FeedError naming the true line of its first NUL or
    undecodable byte (before any row is read, so a bad byte late in a file writes nothing).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FeedError(
            path, "file", f"cannot be opened ({exc.strerror})", reason="cannot_open"
        ) from exc
    nul = data.find(b"\x00")
    if nul >= 0:
        line = _line_of(data, nul)
        raise FeedError(
            path,
            f"line {line}",
            f"a NUL byte at byte {nul} (a UTF-16 or binary file?)",
            reason="nul_byte",
            line=line,
            excerpt=_excerpt(data, line),
        )
    skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + skip
        line = _line_of(data, at)
        byte = data[at : at + 1].hex()
        raise FeedError(
            path,
            f"line {line}",
            f"not UTF-8 (byte 0x{byte} at byte {at}: {exc.reason})",
            reason="not_utf8",
            line=line,
            excerpt=_excerpt(data, line),
        ) from None


def read_csv(path: Path, *, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """Rows of a UTF-8 CSV with a header, numbered by their line in the file.

    The whole file is decoded and parsed before a row is returned: a bad byte, a NUL or
    broken quoting anywhere is a FeedError with its true line, never a half-read file.
    """
    text = decoded(path)
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames or []
    except csv.Error as exc:
        raise FeedError(
            path, "line 1 (header)", f"unreadable CSV ({exc})", reason="bad_csv", line=1
        ) from None
    missing = [c for c in required if c not in header]
    if missing:
        raise FeedError(
            path,
            "line 1 (header)",
            f"required column(s) missing: {', '.join(missing)}",
            reason="missing_columns",
            line=1,
        )
    rows = []
    ended = reader.reader.line_num  # the line the last whole record ended on
    try:
        for row in reader:
            ended = reader.reader.line_num
            rows.append((ended, row))
    except csv.Error as exc:
        # Named by the line the broken record starts on (an unclosed quote runs to the end).
        raise FeedError(
            path,
            f"line {ended + 1}",
            f"unreadable CSV ({exc})",
            reason="bad_csv",
            line=ended + 1,
            excerpt=safe_text(text.split("\n")[ended][:200]) if text.count("\n") >= ended else "",
        ) from None
    return rows


# A JSON feed holds records a few levels deep; anything deeper is not a shop's feed.
MAX_JSON_DEPTH = 32
# No price, size, id or count in a feed comes near this: a number beyond it is an error
# of the file (``1e400`` would be infinity), not a value to store.
MAX_JSON_NUMBER = 10**18
_JSON_PIECE = re.compile(
    r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|NaN|-?Infinity|[\[\]{}]|\n'
)


class _BadJsonValue(Exception):
    def __init__(self, piece: str, reason: str, rule: str) -> None:
        self.piece, self.reason, self.rule = piece, reason, rule
        super().__init__(rule)


def _json_pieces(text: str):
    """(piece, line) for every string, number, constant and bracket of a JSON text."""
    line = 1
    for match in _JSON_PIECE.finditer(text):
        piece = match.group()
        if piece == "\n":
            line += 1
            continue
        yield piece, line
        line += piece.count("\n")


def _number(piece: str):
    digits = piece.lstrip("-")
    if len(digits) > 18 and "." not in piece and "e" not in piece.lower():
        raise _BadJsonValue(piece, "number_out_of_range", f"the number {piece[:40]} is too large")
    value = float(piece) if any(c in piece for c in ".eE") else int(piece)
    if not math.isfinite(value) or abs(value) >= MAX_JSON_NUMBER:
        raise _BadJsonValue(piece, "number_out_of_range", f"the number {piece[:40]} is too large")
    return value


def _constant(piece: str):
    raise _BadJsonValue(piece, "number_out_of_range", f"{piece} is not a number JSON allows")


def _bad_string(value: str) -> str | None:
    if "\x00" in value:
        return "a string holds a NUL character (\\u0000)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "a string holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
    return None


def _deepest(data) -> tuple[int, str | None]:
    """How deep ``data`` nests, and the first string (key or value) it cannot store."""
    depth, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict | list):
            depth = max(depth, level)
            if depth > MAX_JSON_DEPTH:
                return depth, None
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and (problem := _bad_string(key)):
                    return depth, problem
                stack.append((item, level + 1))
        elif isinstance(value, str) and (problem := _bad_string(value)):
            return depth, problem
    return depth, None


def _line_where(text: str, wanted) -> int | None:
    for piece, line in _json_pieces(text):
        if wanted(piece):
            return line
    return None


def _too_deep_line(text: str) -> int | None:
    depth = 0
    for piece, line in _json_pieces(text):
        if piece in ("[", "{"):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return line
        elif piece in ("]", "}"):
            depth -= 1
    return None


def _string_line(text: str) -> int | None:
    def bad(piece: str) -> bool:
        if not piece.startswith('"') or "\\u" not in piece:
            return False
        try:
            return _bad_string(json.loads(piece)) is not None
        except ValueError:
            return False

    return _line_where(text, bad)


def _json_error(path: Path, text: str, line: int | None, rule: str, reason: str) -> FeedError:
    place = f"line {line}" if line else "file"
    excerpt = ""
    if line:
        excerpt = safe_text(text.split("\n")[line - 1][:200])
    return FeedError(path, place, rule, reason=reason, line=line, excerpt=excerpt)


def read_json(path: Path):
    """A UTF-8 JSON document, read and checked whole before a record is used: a NUL, a bad
    byte, a number out of range (``1e400``, ``NaN``), a document nested deeper than
    ``MAX_JSON_DEPTH`` or a string the database cannot hold is a FeedError with its line."""
    text = decoded(path)
    try:
        data = json.loads(text, parse_int=_number, parse_float=_number, parse_constant=_constant)
    except _BadJsonValue as bad:
        wanted = bad.piece
        line = _line_where(text, lambda piece: piece == wanted)
        raise _json_error(path, text, line, bad.rule, bad.reason) from None
    except RecursionError:
        rule = f"nested deeper than {MAX_JSON_DEPTH} levels"
        raise _json_error(path, text, _too_deep_line(text), rule, "too_deep") from None
    except json.JSONDecodeError as exc:
        raise FeedError(
            path,
            f"line {exc.lineno}",
            f"not valid UTF-8 JSON ({exc})",
            reason="bad_json",
            line=exc.lineno,
            excerpt=safe_text(text.split("\n")[exc.lineno - 1][:200]),
        ) from None
    depth, problem = _deepest(data)
    if depth > MAX_JSON_DEPTH:
        rule = f"nested deeper than {MAX_JSON_DEPTH} levels"
        raise _json_error(path, text, _too_deep_line(text), rule, "too_deep")
    if problem:
        raise _json_error(path, text, _string_line(text), problem, "bad_string")
    return data
