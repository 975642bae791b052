"""Shared abstract models: the conventions every app's entities follow.

- Entities have a UUIDv7 primary key made in Python: unique without a round trip, and
  time-ordered so index pages fill in order like a sequence would.
- The busiest logs (timeline items, deliveries, stat lines, price observations) use a
  bigint identity instead; they do not inherit from ``UUIDModel``.
- Enumerations are ``models.TextChoices`` on a ``CharField``: validated in Python, so a new
  value is a state-only migration, not DDL.
"""

from __future__ import annotations

import uuid

import uuid_utils.compat as uuid_compat
from django.db import models


def uuid7() -> uuid.UUID:
    """A new time-ordered UUID (RFC 9562 version 7) as a standard ``uuid.UUID``."""
    return uuid_compat.uuid7()


class UUIDModel(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)

    class Meta:
        abstract = True


class TimestampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True, editable=False)

    class Meta:
        abstract = True


def related_rows(model: type[models.Model], relation: str) -> models.Manager[models.Model]:
    """The default manager of the model at the other end of ``model``'s ``relation``.

    A queryset module that its own app's models module imports cannot import those models
    back; it reaches them through the relation instead, once the registry has loaded them.
    """
    other = model._meta.get_field(relation).related_model
    if not isinstance(other, type) or not issubclass(other, models.Model):
        raise LookupError(f"{model._meta.label}.{relation} leads to no model")
    return other._default_manager
