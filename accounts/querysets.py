from __future__ import annotations

from django.db import models
from django.utils import timezone


class AccountSessionQuerySet(models.QuerySet):
    def live(self):
        """Sessions a browser could still use: not revoked, not expired."""
        return self.filter(revoked_at__isnull=True, expire_date__gt=timezone.now())


class AccountGrantQuerySet(models.QuerySet):
    def on(self, subject: models.Model):
        from django.contrib.contenttypes.models import ContentType

        return self.filter(
            subject_type=ContentType.objects.get_for_model(subject), subject_id=str(subject.pk)
        )


class SubscriberQuerySet(models.QuerySet):
    def subscribed(self):
        return self.filter(unsubscribed_at__isnull=True)
