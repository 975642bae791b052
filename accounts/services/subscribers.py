"""Newsletter subscribers: consent given and withdrawn."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import (
    Subscriber,
    User,
)
from accounts.services.audit import audit_record


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
) -> Subscriber:
    """Record a newsletter signup with the consent sentence shown and when it was ticked.

    Signing up again with the same address refreshes the consent (and ends an earlier
    unsubscription); the address is the identity, compared lowercased.
    """
    email = email.strip().lower()
    if not consent_text.strip():
        raise ValidationError({"consent": "Consent is required."})
    now = timezone.now()
    fields = {
        "first_name": first_name.strip(),
        "last_name": last_name.strip(),
        "home_airport": home_airport.strip().upper(),
        "interests": sorted(set(interests or [])),
        "consent_text": consent_text,
        "consent_at": now,
        "source": source,
        "unsubscribed_at": None,
    }
    subscriber, created = Subscriber.objects.select_for_update().get_or_create(
        email=email, defaults=fields
    )
    if not created:
        for name, value in fields.items():
            setattr(subscriber, name, value)
        subscriber.save()
    audit_record(
        actor=None,
        action="subscriber.signup" if created else "subscriber.resubscribe",
        entity=subscriber,
        key=subscriber.pk,
    )
    return subscriber


@transaction.atomic
def subscriber_unsubscribe(*, email: str, actor: User | None = None) -> Subscriber | None:
    """Withdraw: the row stays as the record of consent given and withdrawn."""
    subscriber = Subscriber.objects.select_for_update().filter(email=email.strip().lower()).first()
    if subscriber is None or subscriber.unsubscribed_at is not None:
        return subscriber
    subscriber.unsubscribed_at = timezone.now()
    subscriber.save(update_fields=["unsubscribed_at"])
    audit_record(actor=actor, action="subscriber.unsubscribe", entity=subscriber, key=subscriber.pk)
    return subscriber
