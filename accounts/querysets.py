from __future__ import annotations

from typing import TYPE_CHECKING, Self

from django.db import models
from django.utils import timezone

if TYPE_CHECKING:
    # models.py imports this module, so the models are named here for mypy only; ruff does
    # not see the quoted names in the class bases, hence the noqa.
    from accounts.models import AccountGrant, AccountSession, Subscriber  # noqa: F401


class AccountSessionQuerySet(models.QuerySet["AccountSession"]):
    def live(self) -> Self:
        """Sessions a browser could still use: not revoked, not expired."""
        return self.filter(revoked_at__isnull=True, expire_date__gt=timezone.now())


class AccountGrantQuerySet(models.QuerySet["AccountGrant"]):
    def on(self, subject: models.Model) -> Self:
        from django.contrib.contenttypes.models import ContentType

        return self.filter(
            subject_type=ContentType.objects.get_for_model(subject), subject_id=str(subject.pk)
        )


class SubscriberQuerySet(models.QuerySet["Subscriber"]):
    def subscribed(self) -> Self:
        return self.filter(unsubscribed_at__isnull=True)
