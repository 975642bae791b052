from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models

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

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        indexes = [models.Index(fields=["role"], name="accounts_user_role_idx")]

    def __str__(self) -> str:
        return self.display_name or self.username
