"""Who made a request: the one answer for admin, API and site code alike.

While a support person acts as someone else, the acting middleware (in ``accounts``) keeps
the person at the keyboard in ``request.real_user`` and the account acted as in
``request.acting_as``, and swaps ``request.user`` for the latter. Audit rows must name the
real person, so every writer asks here rather than reading ``request.user``. This module
reads those attributes by name only: ``omnium`` imports no app.
"""

from __future__ import annotations

from typing import Any

#: The attributes the acting middleware sets on every request it sees.
REAL_USER_ATTR = "real_user"
ACTING_AS_ATTR = "acting_as"


def _django_request(request: Any) -> Any:
    # A DRF request wraps the Django one; the middleware's attributes live on the inner one.
    return getattr(request, "_request", request)


def request_acting_as(request: Any) -> Any | None:
    """The account the request's user is acting as, or None when nobody acts as anyone.

    A DRF request's ``user`` may come from its own authentication (an API key) rather than
    the session the middleware read; acting only counts while ``user`` is still the account
    the middleware put there.
    """
    acting = getattr(_django_request(request), ACTING_AS_ATTR, None)
    if acting is not None and request.user.pk == acting.pk:
        return acting
    return None


def request_actor(request: Any) -> Any | None:
    """The person really at the keyboard: the support person while they act as someone,
    else the signed-in user; None for an anonymous request."""
    if request_acting_as(request) is not None:
        return getattr(_django_request(request), REAL_USER_ATTR)
    user = request.user
    return user if user.is_authenticated else None
