"""Prices: observations appended as shown, with their USD value at the day's rate."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.services import audit_record
from catalogue.fx_sources import ECB_SOURCE, PEGS, ecb_currencies
from catalogue.models import (
    FxMissing,
    FxRate,
    Listing,
    ObservationSourceKind,
    PriceObservation,
    PriceType,
)
from catalogue.services.alert_queue import alert_check_after_commit
from catalogue.services.common import CENT

if TYPE_CHECKING:
    from accounts.models import User


# The ECB publishes every TARGET business day; its longest closures (Easter, Christmas to
# New Year) leave at most four days without a rate. A newest ECB rate older than this means
# the installed history ends before the day: no rate for that day, not an old one.
ECB_MAX_GAP = timedelta(days=7)


@dataclass(frozen=True)
class FxQuote:
    """Dollars per unit of a currency on a day, from which dated rate."""

    rate: Decimal
    as_of: date
    source: str


def fx_day(when: datetime) -> date:
    """The day an observation is converted at: its UTC date, the same at write time and in
    the backfill (the database returns UTC)."""
    return when.astimezone(UTC).date()


class FxBook:
    """Rates to USD for one run: the latest rate on or before the observed day (the nearest
    earlier business day for the ECB's daily rates; a peg from the day it applies)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, date], FxQuote | FxMissing] = {}
        self._known: dict[str, bool] = {}

    def convert(self, currency: str, when: datetime) -> FxQuote | FxMissing:
        day = fx_day(when)
        if currency == "USD":
            return FxQuote(Decimal(1), day, "identity")
        key = (currency, day)
        if key not in self._cache:
            self._cache[key] = self._look_up(currency, day)
        return self._cache[key]

    def _look_up(self, currency: str, day: date) -> FxQuote | FxMissing:
        fx = (
            FxRate.objects.filter(currency=currency, as_of__lte=day)
            .order_by("-as_of", "source")
            .first()
        )
        if fx is not None and not (fx.source == ECB_SOURCE and day - fx.as_of > ECB_MAX_GAP):
            return FxQuote(fx.rate_to_usd, fx.as_of, fx.source)
        if currency not in self._known:
            self._known[currency] = (
                currency in ecb_currencies()
                or any(peg.currency == currency for peg in PEGS)
                or FxRate.objects.filter(currency=currency).exists()
            )
        return FxMissing.NO_RATE_FOR_DAY if self._known[currency] else FxMissing.NO_SOURCE

    def rate(self, currency: str, when: datetime) -> tuple[Decimal, str] | None:
        """The rate and a label naming its source and day, or None when there is none."""
        quote = self.convert(currency, when)
        if not isinstance(quote, FxQuote):
            return None
        return quote.rate, f"{quote.source} ({quote.as_of})"


def usd_columns(price: Decimal, quote: FxQuote | FxMissing) -> dict[str, object]:
    """The conversion columns of an observation of ``price`` under ``quote``."""
    if not isinstance(quote, FxQuote):
        return {
            "price_usd": None,
            "fx_rate": None,
            "fx_as_of": None,
            "fx_source": "",
            "fx_missing": quote,
        }
    return {
        "price_usd": (price * quote.rate).quantize(CENT, rounding=ROUND_HALF_UP),
        "fx_rate": quote.rate,
        "fx_as_of": quote.as_of,
        "fx_source": quote.source,
        "fx_missing": "",
    }


@dataclass(frozen=True)
class ObservedPrice:
    """What a listing showed at one moment, as a collector read it."""

    price: Decimal
    currency: str
    observed_at: datetime
    source_kind: str = ObservationSourceKind.FEED
    price_type: str = PriceType.REGULAR
    was_price: Decimal | None = None
    in_stock: bool | None = None
    run_id: int | None = None


def price_refusal(price: Decimal, currency: str) -> tuple[str, str] | None:
    """(rule, sentence) when no purchase costs ``price`` in ``currency``: above that
    currency's ceiling (``settings.PRICE_CEILINGS``); None for a price that can be kept."""
    ceilings = settings.PRICE_CEILINGS
    ceiling = Decimal(ceilings.get(currency, ceilings["*"]))
    if price > ceiling:
        return (
            "price_above_ceiling",
            f"{price} {currency} is above the most a purchase costs ({ceiling} {currency})",
        )
    return None


def time_refusal(observed_at: datetime, *, now: datetime) -> tuple[str, str] | None:
    """(rule, sentence) when ``observed_at`` is later than ``now`` by more than the skew
    allowed (``settings.COLLECT_FUTURE_SKEW_SECONDS``): it would stay the latest price."""
    skew = timedelta(seconds=settings.COLLECT_FUTURE_SKEW_SECONDS)
    if observed_at > now + skew:
        return (
            "observed_in_future",
            f"observed at {observed_at.isoformat()}, more than {skew} after {now.isoformat()}",
        )
    return None


def _append_observation(
    listing: Listing, observed: ObservedPrice, fx: FxBook | None
) -> PriceObservation | None:
    """The write behind price_observation_record; callers hold a transaction."""
    if observed.price is None or observed.price <= 0:
        raise ValidationError(
            {"price": f"A price must be a positive amount, not {observed.price!r}."}
        )
    refused = price_refusal(observed.price, observed.currency)
    if refused is not None:
        raise ValidationError({"price": refused[1]}, code=refused[0])
    refused = time_refusal(observed.observed_at, now=timezone.now())
    if refused is not None:
        raise ValidationError({"observed_at": refused[1]}, code=refused[0])
    if PriceObservation.objects.filter(listing=listing, observed_at=observed.observed_at).exists():
        return None
    quote = (fx or FxBook()).convert(observed.currency, observed.observed_at)
    observation = PriceObservation.objects.create(
        listing=listing,
        price=observed.price,
        currency=observed.currency,
        **usd_columns(observed.price, quote),
        was_price=observed.was_price,
        price_type=observed.price_type,
        in_stock=observed.in_stock,
        observed_at=observed.observed_at,
        run_id=observed.run_id,
        source_kind=observed.source_kind,
    )
    alert_check_after_commit(observation.pk, listing.product_id)
    return observation


@transaction.atomic
def price_observation_record(
    *,
    listing: Listing,
    price: Decimal,
    currency: str,
    observed_at: datetime,
    source_kind: str = ObservationSourceKind.FEED,
    price_type: str = PriceType.REGULAR,
    was_price: Decimal | None = None,
    in_stock: bool | None = None,
    run_id: int | None = None,
    fx: FxBook | None = None,
    actor: User | None = None,
) -> PriceObservation | None:
    """Append what a listing showed at ``observed_at``; None if that moment is already known.

    The currency is kept as shown; the USD figure uses the day's rate when one is known,
    with that rate's day and source, and stays empty (never estimated) when none is, with
    the reason in ``fx_missing``.
    Followers' price alerts are checked after commit (``alert_queue``).
    """
    observed = ObservedPrice(
        price=price,
        currency=currency,
        observed_at=observed_at,
        source_kind=source_kind,
        price_type=price_type,
        was_price=was_price,
        in_stock=in_stock,
        run_id=run_id,
    )
    return _append_observation(listing, observed, fx)


@transaction.atomic
def fx_rate_record(
    *, currency: str, rate_to_usd: Decimal, as_of: date, source: str, actor: User | None = None
) -> FxRate:
    fx, _ = FxRate.objects.get_or_create(
        currency=currency, as_of=as_of, source=source, defaults={"rate_to_usd": rate_to_usd}
    )
    return fx


@transaction.atomic
def fx_rate_set(
    *, currency: str, rate_to_usd: Decimal, as_of: date, source: str, actor: User
) -> FxRate:
    """A person's rate for ``currency`` on ``as_of`` from ``source``: recorded, or replacing
    that day's rate from that source, with an audit row holding the old rate (None when
    new) and the new one. Rates are never edited in place or deleted in the console: a new
    day appends a new row. Holds the day's row lock; a no-op writes nothing.

    Unlike ``fx_rate_record`` (collectors: the first rate seen for a day stays), a person's
    rate wins, since they are correcting what the collectors saw.
    """
    if rate_to_usd is None or rate_to_usd <= 0:
        raise ValidationError({"rate_to_usd": "A rate must be greater than zero."})
    fx, created = FxRate.objects.select_for_update().get_or_create(
        currency=currency, as_of=as_of, source=source, defaults={"rate_to_usd": rate_to_usd}
    )
    if not created and fx.rate_to_usd == rate_to_usd:
        return fx
    old = None if created else fx.rate_to_usd
    if not created:
        fx.rate_to_usd = rate_to_usd
        fx.save(update_fields=["rate_to_usd"])
    audit_record(
        actor=actor,
        action="fx_rate.set",
        entity=fx,
        key=fx.pk,
        detail={"currency": currency, "as_of": as_of, "source": source,
                "old": old, "new": rate_to_usd},
    )  # fmt: skip
    return fx
