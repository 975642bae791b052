"""Who may read the pipelines' rows, registered with ``omnium.readable``.

- **Batches**: their submitter, the reviewers of their competition, editors and
  administrators (``ingest.batches.permissions.visible_batches``, which the API uses too).
  An onboarding task of a batch is read exactly when its batch is.
- **Stored objects** (a file's name, owner and checksum): their owner, whoever may review a
  batch that holds them, and those who review everywhere (editors, administrators).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from accounts.access import effective_role, user_can_everywhere
from accounts.models import Capability
from ingest.batches.models import Batch, BatchItem, BatchParticipantOnboardingTask
from ingest.batches.permissions import reviewable_batches, visible_batches
from ingest.models import StoredObject
from omnium.readable import readable_register, readable_register_through


def _batches(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    return visible_batches(user, queryset)


def _stored_objects(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    if effective_role(user) is None:
        return queryset.none()
    if user_can_everywhere(user, Capability.REVIEW):
        return queryset
    reviewed = BatchItem.objects.filter(
        batch__in=reviewable_batches(user, Batch.objects.all()).values("pk")
    ).values("stored_object_id")
    return queryset.filter(Q(owner=user) | Q(pk__in=reviewed))


def register() -> None:
    """Called from ``IngestConfig.ready()``."""
    readable_register(Batch, _batches)
    readable_register(StoredObject, _stored_objects)
    readable_register_through(BatchItem, "batch")
    readable_register_through(BatchParticipantOnboardingTask, "batch")
