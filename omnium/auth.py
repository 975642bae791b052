"""The signed-in account behind a request, for code that already requires one.

``request.user`` is typed as "an account or AnonymousUser" everywhere, even behind
``login_required`` or DRF's ``IsAuthenticated``; services take the account itself. This
is the one place that narrows it, so a view does not repeat the check (or a cast).
"""

from __future__ import annotations

from typing import TypeVar

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

# Generic over the account class so omnium names no app's user model.
_Account = TypeVar("_Account", bound=AbstractBaseUser)


def signed_in(user: _Account | AnonymousUser | None) -> _Account:
    """``user`` itself when it is an account.

    Precondition: the caller is behind an authentication check; an anonymous or missing
    user here means that check is missing, which is refused rather than passed on.
    """
    if user is None or isinstance(user, AnonymousUser):
        raise PermissionDenied("Sign in first.")
    return user
