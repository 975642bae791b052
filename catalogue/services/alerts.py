"""Price alerts: following a product, and checking new prices against every follow.

A new observation alerts a follower when it is the latest price at its shop, at a visible
storefront at one of the follower's airports (any, when they named none), and

- it is at or below their target price and lower than the shop's previous price (or the
  shop's first): compared in the target's currency, as shown when the currencies agree,
  else in USD at the rates of the observation's day, never by a guessed rate; or
- it is at least their drop per cent below the shop's previous price (any drop at all when
  the follow names neither a target nor a drop).

At most one alert per account, product and day (``PriceAlert``'s unique constraint); it
goes out as a notification through ``omnium.notify`` (registered by discussions, which
keeps its own dedupe and mail caps).

Writers of observations call ``alert_check_after_commit`` (``alert_queue``); a Celery task
then runs ``alert_check`` with the observations' ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone

from accounts.models import AccountStatus
from accounts.services import audit_record
from catalogue.alert_records import AlertReason, Follow, PriceAlert
from catalogue.models import PriceObservation, Product
from catalogue.services.listings import product_follow_merges
from catalogue.services.prices import FxBook
from omnium.notify import notify

if TYPE_CHECKING:
    from accounts.models import User

PRICE_ALERT_KIND = "price_alert"
_CURRENCY = re.compile(r"^[A-Z]{3}$")
_IATA = re.compile(r"^[A-Z]{3}$")
HUNDRED = Decimal(100)


def _live(product: Product) -> Product:
    # Read afresh: a caller's instance may predate a merge made since.
    return product_follow_merges(Product.objects.get(pk=product.pk))


def _follow_of(user: User, product: Product) -> Follow | None:
    return Follow.objects.of_products([product.pk]).filter(user=user).order_by("created_at").first()


# --- following -----------------------------------------------------------------------------


def _clean_terms(
    target_price: Decimal | None,
    target_currency: str | None,
    drop_percent: Decimal | None,
    airports: Iterable[str],
) -> tuple[Decimal | None, str | None, Decimal | None, list[str]]:
    errors: dict[str, str] = {}
    currency = (target_currency or "").strip().upper() or None
    if (target_price is None) != (currency is None):
        errors["target_price" if target_price is None else "target_currency"] = (
            "A target price needs its currency, and a currency needs a target price."
        )
    if target_price is not None and target_price <= 0:
        errors["target_price"] = f"A target price must be above zero, not {target_price}."
    if currency is not None and not _CURRENCY.match(currency):
        errors["target_currency"] = f"{currency!r} is not a three-letter currency code."
    if drop_percent is not None and not Decimal(0) < drop_percent < HUNDRED:
        errors["drop_percent"] = f"A drop is between 0 and 100 per cent, not {drop_percent}."
    codes = sorted({code.strip().upper() for code in airports if code.strip()})
    bad = [code for code in codes if not _IATA.match(code)]
    if bad:
        errors["airports"] = f"Not three-letter airport codes: {', '.join(bad)}."
    if errors:
        raise ValidationError(errors)
    return target_price, currency, drop_percent, codes


@transaction.atomic
def follow_set(
    *,
    user: User,
    product: Product,
    actor: User,
    target_price: Decimal | None = None,
    target_currency: str | None = None,
    drop_percent: Decimal | None = None,
    airports: Iterable[str] = (),
) -> Follow:
    """``user`` follows ``product`` (its live survivor, if it was merged) on these terms,
    replacing the terms of an earlier follow of it (or of a product since merged into it).
    Bad terms raise ``ValidationError`` naming each field; nothing is written. A no-op
    writes nothing."""
    target_price, target_currency, drop_percent, codes = _clean_terms(
        target_price, target_currency, drop_percent, airports
    )
    product = _live(product)
    terms = {
        "target_price": target_price,
        "target_currency": target_currency,
        "drop_percent": drop_percent,
        "airports": codes,
    }
    existing = _follow_of(user, product)
    if existing is None:
        follow = Follow.objects.create(user=user, product=product, **terms)
        old: dict[str, Any] | None = None
    else:
        follow = Follow.objects.select_for_update().get(pk=existing.pk)
        old = {name: getattr(follow, name) for name in terms}
        if old == terms and follow.product_id == product.pk:
            return follow
        for name, value in terms.items():
            setattr(follow, name, value)
        follow.product = product
        follow.save(update_fields=[*terms, "product", "updated_at"])
    audit_record(
        actor=actor,
        action="catalogue.follow_set",
        entity=follow,
        key=follow.pk,
        detail={"user": user.pk, "product": product.pk, "old": old, "new": terms},
        acting_as=user if user.pk != actor.pk else None,
    )
    return follow


@transaction.atomic
def follow_remove(*, user: User, product: Product, actor: User) -> bool:
    """``user`` stops following ``product`` (and any product merged into it); True if a
    follow was removed. Alerts already sent stay on record."""
    product = _live(product)
    follows = list(Follow.objects.of_products([product.pk]).filter(user=user).select_for_update())
    if not follows:
        return False
    Follow.objects.filter(pk__in=[follow.pk for follow in follows]).delete()
    for follow in follows:
        audit_record(
            actor=actor,
            action="catalogue.follow_remove",
            entity=follow,
            key=follow.pk,
            detail={"user": user.pk, "product": follow.product_id},
            acting_as=user if user.pk != actor.pk else None,
        )
    return True


# --- checking new prices -------------------------------------------------------------------


@dataclass(frozen=True)
class AlertReport:
    checked: int
    sent: int
    already_sent: int


def _in_currency(
    observation: PriceObservation, currency: str, fx: FxBook
) -> tuple[Decimal, Decimal] | None:
    """The observation's price and ``currency`` made comparable: both as shown when the
    currencies agree, else both in USD at the rates of the observation's day; None when a
    rate is missing (nothing is compared by guess). Returns (price, one unit of currency)."""
    if observation.currency == currency:
        return observation.price, Decimal(1)
    rate = fx.rate(currency, observation.observed_at)
    if observation.price_usd is None or rate is None:
        return None
    return observation.price_usd, rate[0]


def _drop_percent(observation: Any) -> Decimal | None:
    previous, previous_currency = observation.previous_price, observation.previous_currency
    if previous is None:
        return None
    if previous_currency == observation.currency:
        now, before = observation.price, previous
    elif observation.price_usd is not None and observation.previous_usd is not None:
        now, before = observation.price_usd, observation.previous_usd
    else:
        return None
    drop: Decimal = (before - now) / before * HUNDRED
    return drop


def _reason(follow: Follow, observation: Any, fx: FxBook) -> str | None:
    location = observation.listing.location
    if follow.airports and location.iata not in follow.airports:
        return None
    drop = _drop_percent(observation)
    # A price that stays under the target day after day alerted when it got there: only a
    # first price, or one lower than the shop's previous, alerts on the target.
    lower = observation.previous_price is None or (drop is not None and drop > 0)
    if follow.target_price is not None and follow.target_currency and lower:
        comparable = _in_currency(observation, follow.target_currency, fx)
        if comparable is not None and comparable[0] <= follow.target_price * comparable[1]:
            return AlertReason.TARGET
    if drop is not None and drop > 0:
        if follow.drop_percent is not None and drop >= follow.drop_percent:
            return AlertReason.DROP
        if follow.drop_percent is None and follow.target_price is None:
            return AlertReason.DROP
    return None


def _money(amount: Decimal, currency: str) -> str:
    return f"{amount:.2f} {currency}"


def _body(product: Product, observation: Any, follow: Follow, reason: str) -> str:
    location = observation.listing.location
    where = f"{location.iata} ({location.name})" if location.iata else location.name
    text = f"{_money(observation.price, observation.currency)} at {where}"
    if observation.previous_price is not None:
        text += f", was {_money(observation.previous_price, observation.previous_currency)}"
    if reason == AlertReason.TARGET and follow.target_price is not None:
        text += f"; your target is {_money(follow.target_price, follow.target_currency or '')}"
    return f"{product.name}: {text}."


def _new_observations(observation_ids: Sequence[int]) -> list[Any]:
    """The observations that can alert: each the latest at its listing, at a listing the
    public sees, with the previous price at that listing alongside."""
    listing_rows = PriceObservation.objects.filter(listing=OuterRef("listing"))
    previous = listing_rows.filter(observed_at__lt=OuterRef("observed_at")).order_by("-observed_at")
    return list(
        PriceObservation.objects.filter(
            pk__in=list(observation_ids),
            listing__ignored_at__isnull=True,
            listing__location__visible=True,
            listing__location__is_catalogue_only=False,
        )
        .exclude(Exists(listing_rows.filter(observed_at__gt=OuterRef("observed_at"))))
        .annotate(
            previous_price=Subquery(previous.values("price")[:1]),
            previous_currency=Subquery(previous.values("currency")[:1]),
            previous_usd=Subquery(previous.values("price_usd")[:1]),
        )
        .select_related("listing__location", "listing__product")
        .order_by("pk")
    )


@transaction.atomic
def alert_check(*, observation_ids: Sequence[int]) -> AlertReport:
    """Check new observations against every follow of their products and send what they
    set off: per account and product the cheapest alerting observation of the batch, at
    most one alert a day (a second alert that day is counted in ``already_sent``). Safe to
    run twice: the unique (account, product, day) record and the notification's dedupe key
    each refuse a repeat."""
    observations = _new_observations(observation_ids)
    by_product: dict[UUID, list[Any]] = {}
    live: dict[UUID, Product] = {}
    for observation in observations:
        product = observation.listing.product
        if product.merged_into_id:
            product = product_follow_merges(product)
        live[product.pk] = product
        by_product.setdefault(product.pk, []).append(observation)
    if not by_product:
        return AlertReport(checked=len(observations), sent=0, already_sent=0)

    follows = (
        Follow.objects.of_products(by_product)
        .filter(user__status=AccountStatus.ACTIVE, user__is_active=True)
        .select_related("user", "product")
        .order_by("created_at", "pk")
    )
    fx = FxBook()
    chosen: dict[tuple[UUID, UUID], tuple[Follow, Any, str]] = {}
    for follow in follows:
        product_id = product_follow_merges(follow.product).pk
        for observation in by_product.get(product_id, ()):
            reason = _reason(follow, observation, fx)
            if reason is None:
                continue
            key = (follow.user_id, product_id)
            best = chosen.get(key)
            cheaper = best is None or (
                observation.price_usd is not None
                and best[1].price_usd is not None
                and observation.price_usd < best[1].price_usd
            )
            if cheaper:
                chosen[key] = (follow, observation, reason)

    day = timezone.localdate()
    sent = already = 0
    for (user_id, product_id), (follow, observation, reason) in chosen.items():
        product = live[product_id]
        try:
            # A savepoint: an alert already sent today fails only this insert.
            with transaction.atomic():
                alert = PriceAlert.objects.create(
                    user_id=user_id,
                    product=product,
                    day=day,
                    observation=observation,
                    reason=reason,
                    previous_price=observation.previous_price,
                )
        except IntegrityError:
            already += 1
            continue
        notify(
            recipient=follow.user,
            actor=None,
            kind=PRICE_ALERT_KIND,
            context_label=product.name,
            body=_body(product, observation, follow, reason),
            url=reverse("catalogue:product-detail", args=[product.pk]),
            source=alert,
            dedupe_key=f"price_alert:{user_id}:{product_id}:{day.isoformat()}",
        )
        sent += 1
    return AlertReport(checked=len(observations), sent=sent, already_sent=already)
