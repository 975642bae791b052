"""The API's two limits, as throttles over the durable counters of ``accounts.services``.

- ``AnonymousAdmissionThrottle``: anonymous requests, per source and globally per UTC
  minute. Identity is a daily pseudonym of the client's network, never the raw address.
  ``REMOTE_ADDR`` is what the web server saw; a deployment behind a proxy sets it from the
  proxy's header in the server, not here, so a client cannot choose its own identity with a
  forged header.
- ``ConsumerRateThrottle``: requests an API key authenticated, under the key's consumer's
  per-minute limit and UTC daily quota.

Each passes the other's requests untouched. The headers, the 429 and ``Retry-After`` are
the shared base's (``omnium.throttling.AdmissionThrottle``).
"""

from __future__ import annotations

from django.utils import timezone
from rest_framework.request import Request

from accounts.models import ApiKey
from accounts.services import Admission, api_anonymous_admit, api_usage_admit
from omnium.throttling import AdmissionThrottle


class AnonymousAdmissionThrottle(AdmissionThrottle):
    """Counts anonymous requests; signed-in people and API keys pass (keys have the
    consumer throttle). The headers report the source limit."""

    def admit(self, request: Request) -> Admission | None:
        if request.user is not None and request.user.is_authenticated:
            return None
        return api_anonymous_admit(address=request.META.get("REMOTE_ADDR", ""), at=timezone.now())


class ConsumerRateThrottle(AdmissionThrottle):
    """Counts requests authenticated by an API key; anonymous and session requests pass
    (they are the anonymous throttle's). The headers report the limit closest to running
    out, or the one exceeded."""

    def admit(self, request: Request) -> Admission | None:
        key = request.auth
        if not isinstance(key, ApiKey):
            return None
        return api_usage_admit(key=key, at=timezone.now())
