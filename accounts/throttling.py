"""The per-consumer limits: a DRF throttle for requests that an API key authenticated.

Anonymous and session requests pass through untouched; they are the anonymous throttle's.
"""

from __future__ import annotations

from django.utils import timezone
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.models import ApiKey
from accounts.services import api_usage_admit


class ConsumerRateThrottle(BaseThrottle):
    """Admits a keyed request under its consumer's per-minute limit and UTC daily quota.

    Over either, DRF answers 429 with ``Retry-After`` (from ``wait``). Every keyed response
    carries ``RateLimit-Limit``, ``RateLimit-Remaining`` and ``RateLimit-Reset`` (seconds),
    so a partner can pace itself before it is refused. The headers go on ``view.headers``,
    which DRF copies onto whatever response the view finally returns, the 429 included.
    """

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view) -> bool:
        key = request.auth
        if not isinstance(key, ApiKey):
            return True
        admission = api_usage_admit(key=key, at=timezone.now())
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
