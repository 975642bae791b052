"""Authentication backends: the lockout gate in front, then Django's model backend with the
account status rule."""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.contrib.auth.backends import ModelBackend

from accounts.models import AccountStatus
from accounts.subjects import subject_revoked


class LockoutBackend(AxesStandaloneBackend):
    """django-axes' gate, first in ``AUTHENTICATION_BACKENDS``.

    An ``authenticate`` call without a request comes from code in this process (the test
    client's ``login``, a shell), not from a remote client, so there is no client to count
    failures for; axes would raise instead of answering, so such calls go on to the next
    backend.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class StatusModelBackend(ModelBackend):
    """Only an active account signs in: an invited one has yet to set its password through
    its welcome link, a disabled one is kept only as the record of what it did. A login
    subject of a deleted account is refused before any row is looked up (its one-way
    marker), so not even an account later made under that name can inherit its sessions.

    Signing in never changes a role or a grant: this backend only reads."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username and subject_revoked(str(username)):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)

    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and (
            getattr(user, "status", AccountStatus.ACTIVE) == AccountStatus.ACTIVE
        )
