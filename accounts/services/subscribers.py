"""Newsletter subscribers: consent asked for, confirmed by the address, and withdrawn."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import Subscriber, SubscriptionRequest, User
from accounts.services.audit import audit_record
from accounts.services.mail import email_send_reserve
from accounts.services.tokens import token_digest

_INVALID_LINK = "This confirmation link is not valid: it was used already, or it has expired."


def _mail_bucket(email: str) -> str:
    # The ledger keys the cap by a digest, so it holds no address.
    return f"auth:subscription:{hashlib.sha256(email.encode()).hexdigest()[:32]}"


def _send_confirmation(*, email: str, raw_token: str) -> None:
    path = reverse("accounts:subscribe-confirm", kwargs={"token": raw_token})
    link = f"{settings.SITE_URL.rstrip('/')}{path}"
    send_mail(
        "Confirm your omnium newsletter subscription",
        "Someone (we hope you) asked for the omnium newsletter at this address, or changed "
        f"its details. To confirm, open this link within {settings.SUBSCRIPTION_CONFIRM_HOURS} "
        f"hours:\n\n{link}\n\nIf it was not you, ignore this message: nothing changes.",
        None,
        [email],
    )


@transaction.atomic
def subscriber_signup(
    *,
    email: str,
    consent_text: str,
    first_name: str = "",
    last_name: str = "",
    home_airport: str = "",
    interests: list[str] | None = None,
    source: str = "site",
) -> SubscriptionRequest | None:
    """Ask the address to confirm a signup, a change or a return after unsubscribing.

    Nothing about an existing subscriber changes here: the request is held and a single-use
    link is mailed (after commit) to the address; ``subscriber_confirm`` applies it. Returns
    the request, or None when the address has had its share of confirmation mails lately
    (the form answers the same either way, so it tells nobody whether an address is known).
    """
    email = email.strip().lower()
    if not consent_text.strip():
        raise ValidationError({"consent": "Consent is required."})
    if not email_send_reserve(bucket=_mail_bucket(email)):
        return None
    raw_token = secrets.token_urlsafe(32)
    now = timezone.now()
    request = SubscriptionRequest.objects.create(
        email=email,
        first_name=first_name.strip(),
        last_name=last_name.strip(),
        home_airport=home_airport.strip().upper(),
        interests=sorted(set(interests or [])),
        consent_text=consent_text,
        source=source,
        token_hash=token_digest(raw_token),
        created_at=now,
        expires_at=now + timedelta(hours=settings.SUBSCRIPTION_CONFIRM_HOURS),
    )
    audit_record(
        actor=None, action="subscriber.requested", entity=request, key=request.pk, detail={}
    )
    transaction.on_commit(lambda: _send_confirmation(email=email, raw_token=raw_token))
    return request


def _live_request(raw_token: str, *, lock: bool) -> SubscriptionRequest:
    requests = SubscriptionRequest.objects.filter(token_hash=token_digest(raw_token))
    request = (requests.select_for_update() if lock else requests).first()
    if request is None or request.confirmed_at is not None or request.expires_at <= timezone.now():
        raise ValidationError(_INVALID_LINK)
    return request


def subscription_request_check(*, raw_token: str) -> SubscriptionRequest:
    """The live request behind a confirmation link, or a ValidationError."""
    return _live_request(raw_token, lock=False)


@transaction.atomic
def subscriber_confirm(*, raw_token: str) -> Subscriber:
    """Apply a confirmed request: the subscriber is created, or updated and (after an
    unsubscribe) subscribed again, with the consent as confirmed now. The link is spent;
    the row lock means two clicks cannot both apply it."""
    request = _live_request(raw_token, lock=True)
    now = timezone.now()
    fields = {
        "first_name": request.first_name,
        "last_name": request.last_name,
        "home_airport": request.home_airport,
        "interests": request.interests,
        "consent_text": request.consent_text,
        "consent_at": now,
        "source": request.source,
        "unsubscribed_at": None,
    }
    subscriber, created = Subscriber.objects.select_for_update().get_or_create(
        email=request.email, defaults=fields
    )
    if not created:
        for name, value in fields.items():
            setattr(subscriber, name, value)
        subscriber.save()
    request.confirmed_at = now
    request.save(update_fields=["confirmed_at"])
    audit_record(
        actor=None,
        action="subscriber.signup" if created else "subscriber.confirmed_change",
        entity=subscriber,
        key=subscriber.pk,
        detail={"request": str(request.pk)},
    )
    return subscriber


@transaction.atomic
def subscriber_unsubscribe(*, email: str, actor: User | None = None) -> Subscriber | None:
    """Withdraw: the row stays as the record of consent given and withdrawn. Only the
    subscriber confirming a new request undoes it."""
    subscriber = Subscriber.objects.select_for_update().filter(email=email.strip().lower()).first()
    if subscriber is None or subscriber.unsubscribed_at is not None:
        return subscriber
    subscriber.unsubscribed_at = timezone.now()
    subscriber.save(update_fields=["unsubscribed_at"])
    audit_record(actor=actor, action="subscriber.unsubscribe", entity=subscriber, key=subscriber.pk)
    return subscriber
