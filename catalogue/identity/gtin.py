"""GTIN normalisation and validation. A barcode is only ever read, never invented."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class GtinStatus(StrEnum):
    VALID = "valid"
    FLOAT_ARTIFACT = "float_artifact"
    EMPTY = "empty"
    NOT_DIGITS = "not_digits"
    BAD_LENGTH = "bad_length"
    BAD_CHECK_DIGIT = "bad_check_digit"
    RESTRICTED = "restricted"
    # A code that passes the check digit but names no trade item: all one digit, fewer
    # than 8 significant digits, or a known dummy range. Kept as listed, never a key.
    PLACEHOLDER = "placeholder"


@dataclass(frozen=True)
class GtinReading:
    """What the rules made of a listed barcode. ``gtin`` is set only when it identifies a
    trade item across shops; ``status`` says why not otherwise."""

    raw: str
    status: GtinStatus
    gtin: str | None = None

    @property
    def usable(self) -> bool:
        return self.gtin is not None


_SEPARATORS = re.compile(r"[\s\-]")


def check_digit_ok(digits: str) -> bool:
    """The GS1 mod-10 check, the same for GTIN-8/12/13/14 (weights 3,1 from the right)."""
    if not (digits.isascii() and digits.isdigit()) or len(digits) < 2:
        return False
    body, check = digits[:-1], int(digits[-1])
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return (10 - total % 10) % 10 == check


def canonical_form(digits: str) -> str:
    """GTIN-8/12/13 padded to 13 digits, a real GTIN-14 (indicator digit) kept at 14, so the
    same item written as UPC-A and as EAN-13 compares equal."""
    padded = digits.zfill(14)
    return padded[1:] if padded[0] == "0" else padded


def _restricted(gtin13: str) -> bool:
    # GS1 prefixes 020-029, 040-049 and 200-299 are restricted circulation numbers: a
    # shop's in-store codes (weighed goods, own labels), meaningless in another shop.
    return gtin13.startswith(("02", "04", "2"))


# GS1 prefix 952 is issued for demonstrations and examples; 980 are refund receipts and
# 981-984 and 99 coupons: none of them is a product on a shelf.
_DUMMY_PREFIXES = ("952", "98", "99")
_SEQUENCES = ("0123456789" * 2, "1234567890" * 2, "9876543210" * 2)


def placeholder(digits: str) -> bool:
    """A code that passes its check but is a placeholder (``0000000000000``, a counting
    sequence, a demonstration or coupon prefix, fewer than 8 significant digits)."""
    body = digits[:-1]
    if len(set(digits)) == 1 or len(set(body)) == 1:
        return True
    if len(digits.lstrip("0")) < 8:
        return True
    significant = body.lstrip("0")
    if any(significant in sequence for sequence in _SEQUENCES):
        return True
    return canonical_form(digits).startswith(_DUMMY_PREFIXES)


def read_gtin(raw: str | None) -> GtinReading:
    text = "" if raw is None else _SEPARATORS.sub("", str(raw))
    if raw is None or not text:
        return GtinReading(raw=raw or "", status=GtinStatus.EMPTY)
    # ASCII digits only: other numerals (Arabic-Indic, Devanagari...) print no barcode.
    if not (text.isascii() and text.isdigit()):
        return GtinReading(raw=raw, status=GtinStatus.NOT_DIGITS)
    status = GtinStatus.VALID
    # A code stored through a float gains a trailing 0 ("...361.0" -> "...3610"): 14 digits
    # whose first 13 are a valid EAN-13. One in ten real GTIN-14s would also pass their own
    # check, but case codes do not appear on shelf lists, so the EAN-13 reading wins.
    if len(text) == 14 and text.endswith("0") and check_digit_ok(text[:13]):
        text, status = text[:13], GtinStatus.FLOAT_ARTIFACT
    if len(text) not in (8, 12, 13, 14):
        return GtinReading(raw=raw, status=GtinStatus.BAD_LENGTH)
    if not check_digit_ok(text):
        return GtinReading(raw=raw, status=GtinStatus.BAD_CHECK_DIGIT)
    if placeholder(text):
        return GtinReading(raw=raw, status=GtinStatus.PLACEHOLDER)
    if len(text) == 8:
        # EAN-8 prefixes 0 and 2 are velocity / in-store codes.
        if text[0] in "02":
            return GtinReading(raw=raw, status=GtinStatus.RESTRICTED)
        return GtinReading(raw=raw, status=status, gtin=canonical_form(text))
    gtin = canonical_form(text)
    if len(gtin) == 13 and _restricted(gtin):
        return GtinReading(raw=raw, status=GtinStatus.RESTRICTED)
    return GtinReading(raw=raw, status=status, gtin=gtin)


_EMBEDDED = re.compile(r"(?<!\d)(\d{12,14})(?!\d)")


def gtin_in_text(text: str | None) -> GtinReading | None:
    """A valid barcode written inside a title ("... 3.4 oz 6291108734056"), if exactly one."""
    found = {r.gtin: r for m in _EMBEDDED.finditer(text or "") if (r := read_gtin(m.group(1))).gtin}
    if len(found) != 1:
        return None
    return next(iter(found.values()))
