"""A newsletter signup waiting for its address to confirm it. Loaded by ``accounts.models``.

Nothing about a subscriber changes on a form post alone: anyone can type any address, so a
signup (or a change, or a return after unsubscribing) is held here until the link mailed
to the address is followed. Only the token's SHA-256 is stored; the link is single use and
expires (``SUBSCRIPTION_CONFIRM_HOURS``). Rows stay as the record of what was asked.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from omnium.models import UUIDModel


class SubscriptionRequest(UUIDModel):
    email = models.EmailField()
    # What the form asked for, applied to the subscriber only on confirmation.
    first_name = models.CharField(max_length=100, blank=True)
    last_name = models.CharField(max_length=100, blank=True)
    home_airport = models.CharField(max_length=3, blank=True)
    interests = models.JSONField(default=list, blank=True)
    consent_text = models.TextField()
    source = models.CharField(max_length=50, default="site")
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(email=Lower("email")), name="accounts_subrequest_email_lowercase"
            ),
            models.CheckConstraint(
                condition=Q(expires_at__gt=models.F("created_at")),
                name="accounts_subrequest_expires_after_creation",
            ),
            models.CheckConstraint(
                condition=~Q(consent_text=""), name="accounts_subrequest_consent_present"
            ),
        ]
        indexes = [models.Index(fields=["email"], name="accounts_subrequest_email_idx")]

    def __str__(self) -> str:
        return f"subscription request {self.pk}"
