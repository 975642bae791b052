"""The anonymous API limits: a DRF throttle over durable database counters.

Identity is a daily pseudonym of the client's network, never the raw address. ``REMOTE_ADDR``
is what the web server saw; a deployment behind a proxy sets it from the proxy's header in
the server, not here, so a client cannot choose its own identity with a forged header.
"""

from __future__ import annotations

from django.utils import timezone
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.services import api_anonymous_admit


class AnonymousAdmissionThrottle(BaseThrottle):
    """Admits an anonymous request under the per-source and global per-minute limits.

    Signed-in people and API keys pass untouched (keys have the consumer throttle). Every
    anonymous response carries ``RateLimit-Limit``, ``RateLimit-Remaining`` and
    ``RateLimit-Reset`` for the source limit; a refusal is a 429 with ``Retry-After`` (the
    seconds to the next UTC minute), via DRF's ``wait``.
    """

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view) -> bool:
        if request.user is not None and request.user.is_authenticated:
            return True
        admission = api_anonymous_admit(
            address=request.META.get("REMOTE_ADDR", ""), at=timezone.now()
        )
        if view is not None and hasattr(view, "headers"):
            view.headers = {
                **view.headers,
                "RateLimit-Limit": str(admission.limit),
                "RateLimit-Remaining": str(admission.remaining),
                "RateLimit-Reset": str(admission.reset_seconds),
            }
        if admission.allowed:
            return True
        self._wait = admission.reset_seconds
        return False

    def wait(self) -> float | None:
        return self._wait
