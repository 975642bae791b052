"""Prices: observations appended as shown, with their USD value at the day's rate."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.services import audit_record
from catalogue.models import (
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


class FxBook:
    """Rates to USD for one run: the latest rate on or before the observed day."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, object], FxRate | None] = {}

    def rate(self, currency: str, when: datetime) -> tuple[Decimal, str] | None:
        if currency == "USD":
            return Decimal(1), "identity"
        day = when.date()
        key = (currency, day)
        if key not in self._cache:
            self._cache[key] = (
                FxRate.objects.filter(currency=currency, as_of__lte=day)
                .order_by("-as_of", "source")
                .first()
            )
        fx = self._cache[key]
        if fx is None:
            return None
        return fx.rate_to_usd, f"{fx.source} ({fx.as_of})"


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


def _append_observation(
    listing: Listing, observed: ObservedPrice, fx: FxBook | None
) -> PriceObservation | None:
    """The write behind price_observation_record; callers hold a transaction."""
    if observed.price is None or observed.price <= 0:
        raise ValidationError(
            {"price": f"A price must be a positive amount, not {observed.price!r}."}
        )
    if PriceObservation.objects.filter(listing=listing, observed_at=observed.observed_at).exists():
        return None
    rate = (fx or FxBook()).rate(observed.currency, observed.observed_at)
    price_usd = fx_rate = None
    if rate is not None:
        fx_rate = rate[0]
        price_usd = (observed.price * fx_rate).quantize(CENT, rounding=ROUND_HALF_UP)
    observation = PriceObservation.objects.create(
        listing=listing,
        price=observed.price,
        currency=observed.currency,
        price_usd=price_usd,
        fx_rate=fx_rate,
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

    The currency is kept as shown; the USD figure uses the day's rate when one is known and
    stays empty (never estimated) when none is.
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
