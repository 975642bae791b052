from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q

from omnium.models import UUIDModel


class Role(models.TextChoices):
    """Application role: authoritative for capability, checked on every write."""

    VIEWER = "viewer", "Viewer"
    SUBMITTER = "submitter", "Submitter"
    REVIEWER = "reviewer", "Reviewer"
    EDITOR = "editor", "Editor"
    ADMIN = "admin", "Administrator"


class AccountStatus(models.TextChoices):
    INVITED = "invited", "Invited"
    ACTIVE = "active", "Active"
    DISABLED = "disabled", "Disabled"


class User(UUIDModel, AbstractUser):
    """A person who signs in. Rows are never deleted: provenance must keep resolving."""

    display_name = models.CharField(max_length=150, blank=True)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    status = models.CharField(
        max_length=16, choices=AccountStatus.choices, default=AccountStatus.ACTIVE
    )
    invited_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="invitees"
    )
    disabled_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        indexes = [models.Index(fields=["role"], name="accounts_user_role_idx")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status=AccountStatus.DISABLED, disabled_at__isnull=False)
                | (~Q(status=AccountStatus.DISABLED) & Q(disabled_at__isnull=True)),
                name="accounts_user_disabled_at_iff_disabled",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def can_sign_in(self) -> bool:
        return self.is_active and self.status == AccountStatus.ACTIVE


class AuditEntry(models.Model):
    """One state change that names a person.

    ``actor`` is who really acted; ``acting_as`` is whom they were acting as (support), so
    a change made "as" someone never hides the person behind it. Append-only: the trigger
    refuses UPDATE and DELETE, so not even a buggy service can rewrite history.
    """

    id = models.BigAutoField(primary_key=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_entries",
    )
    acting_as = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_entries_as",
    )
    action = models.CharField(max_length=100)
    entity_type = models.CharField(max_length=100, blank=True)
    entity_key = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = "audit entry"
        verbose_name_plural = "audit log"
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["entity_type", "entity_key"], name="accounts_audit_entity_idx"),
            models.Index(fields=["actor", "at"], name="accounts_audit_actor_idx"),
            models.Index(fields=["action"], name="accounts_audit_action_idx"),
        ]
        triggers = [
            pgtrigger.Protect(
                name="audit_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.entity_type}:{self.entity_key}"
