"""Writes on accounts. Every function here is the one place its operation is implemented."""

from __future__ import annotations

from django.db import transaction

from accounts.models import AccountStatus, Role, User


@transaction.atomic
def admin_account_ensure(*, username: str, password: str) -> tuple[User, bool]:
    """Create the first administrator if ``username`` does not exist; never touch it after.

    Returns the account and whether it was created. An existing account keeps its password:
    re-running ``make run`` must not reset a password someone has since changed.
    """
    user = User.objects.select_for_update().filter(username=username).first()
    if user is not None:
        return user, False
    user = User(
        username=username,
        role=Role.ADMIN,
        status=AccountStatus.ACTIVE,
        is_staff=True,
        is_superuser=True,
    )
    user.set_password(password)
    user.save()
    return user, True
