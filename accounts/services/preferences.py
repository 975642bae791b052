"""An account's own preferences."""

from __future__ import annotations

from django.db import transaction

from accounts.models import (
    AccountPreference,
    User,
)
from accounts.services.audit import audit_record


@transaction.atomic
def preference_mail_set(*, user: User, enabled: bool, actor: User) -> AccountPreference:
    preference, _ = AccountPreference.objects.select_for_update().get_or_create(user=user)
    if preference.mail_notifications == enabled:
        return preference
    preference.mail_notifications = enabled
    preference.save(update_fields=["mail_notifications", "updated_at"])
    audit_record(
        actor=actor,
        action="account.preference.mail",
        entity=user,
        key=user.pk,
        detail={"mail_notifications": enabled},
    )
    return preference
