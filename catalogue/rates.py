"""Reading prices in a currency the reader chose: the rates a set of observations needs,
loaded in one query, and the conversion of one observation with them.

A price in currency C observed on day D (UTC) converts with the latest rate on or before D,
as the write side does (``catalogue.services.prices.FxBook``: the newest ``as_of``, ties
broken by the source's name). An observation that already carries its USD value
(``price_usd``, written at its own day's rate) is read through it, so every page agrees
with the USD the observation records; only the second leg (USD to the display currency)
is read here. A price whose
rate is unknown is never converted by guess: the conversion answers None.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
ONE = Decimal(1)

# What a reader can choose: three currencies, or each price as its shop showed it.
LISTED = "listed"
DISPLAY_CURRENCIES = ("USD", "EUR", "GBP")
DISPLAY_CHOICES: list[tuple[str, str]] = [
    ("USD", "US dollars (USD)"),
    ("EUR", "Euros (EUR)"),
    ("GBP", "Pounds sterling (GBP)"),
    (LISTED, "As each shop shows it"),
]
DEFAULT_DISPLAY = "USD"


@dataclass
class RateTable:
    """Rates to USD by currency: sorted days and the rate in force from each day on."""

    days: dict[str, list[date]] = field(default_factory=dict)
    rates: dict[str, list[Decimal]] = field(default_factory=dict)
    # Many observations share a day (one per shop): each (currency, day) is looked up once.
    _seen: dict[tuple[str, date], Decimal | None] = field(default_factory=dict, repr=False)

    def rate(self, currency: str, day: date) -> Decimal | None:
        """USD per unit of ``currency`` on ``day``: the latest rate on or before it."""
        if currency == "USD":
            return ONE
        key = (currency, day)
        try:
            return self._seen[key]
        except KeyError:
            pass
        days = self.days.get(currency)
        i = bisect_right(days, day) if days else 0
        found = self.rates[currency][i - 1] if i else None
        self._seen[key] = found
        return found


def rate_table(currencies: Iterable[str], first_day: date, last_day: date) -> RateTable:
    """Every rate that can apply to a day from ``first_day`` to ``last_day``, in one query:
    per currency, the rates dated inside the span and the latest one before it."""
    from django.db.models import OuterRef, Q, Subquery
    from django.db.models.functions import Coalesce

    # Imported here: catalogue.querysets imports this module and catalogue.models that one.
    from catalogue.models import FxRate

    wanted = sorted({c for c in currencies if c != "USD"})
    table = RateTable()
    if not wanted:
        return table
    floor = (
        FxRate.objects.filter(currency=OuterRef("currency"), as_of__lte=first_day)
        .order_by("-as_of")
        .values("as_of")[:1]
    )
    rows = (
        FxRate.objects.filter(currency__in=wanted, as_of__lte=last_day)
        .filter(Q(as_of__gte=Coalesce(Subquery(floor), first_day)))
        .order_by("currency", "as_of", "source")
        .values_list("currency", "as_of", "rate_to_usd")
    )
    for currency, as_of, rate in rows:
        days = table.days.setdefault(currency, [])
        if days and days[-1] == as_of:
            continue  # the same day from a later-named source: the first source wins
        days.append(as_of)
        table.rates.setdefault(currency, []).append(rate)
    return table


def convert(
    price: Decimal,
    currency: str,
    usd: Decimal | None,
    day: date,
    target: str,
    table: RateTable,
) -> Decimal | None:
    """``price`` in ``currency`` on ``day`` as ``target`` (``LISTED``: unchanged), or None
    when a rate it needs is unknown. ``usd`` is the USD value the observation recorded."""
    if target in (LISTED, currency):
        return price
    if usd is None:
        to_usd = table.rate(currency, day)
        if to_usd is None:
            return None
        usd = price * to_usd
    if target == "USD":
        return usd.quantize(CENT, rounding=ROUND_HALF_UP)
    from_usd = table.rate(target, day)
    if from_usd is None:
        return None
    return (usd / from_usd).quantize(CENT, rounding=ROUND_HALF_UP)
