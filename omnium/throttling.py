"""The base of the API's admission throttles: ask a counter, say 429 or pass, and tell the
client where it stands.

The counters themselves belong to the apps that keep them (``accounts.throttling``: the
anonymous limits and the per-consumer limits); this module knows only the answer's shape, so
omnium imports no app.
"""

from __future__ import annotations

from typing import Protocol

from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle


class AdmissionAnswer(Protocol):
    """One counted request: admitted or not, and the limit to report in the headers.

    Read-only, as the throttle only reads it: an immutable answer (a frozen dataclass)
    qualifies.
    """

    @property
    def allowed(self) -> bool: ...
    @property
    def limit(self) -> int: ...
    @property
    def remaining(self) -> int: ...
    @property
    def reset_seconds(self) -> int: ...


class AdmissionThrottle(BaseThrottle):
    """Admits a request when ``admit`` says so; ``admit`` returning None lets it pass
    uncounted (the request is another throttle's business).

    Every counted response carries ``RateLimit-Limit``, ``RateLimit-Remaining`` and
    ``RateLimit-Reset`` (seconds), so a client can pace itself before it is refused. The
    headers go on ``view.headers``, which DRF copies onto whatever response the view finally
    returns, the 429 included. A refusal's ``Retry-After`` comes from ``wait``: the seconds
    until the exceeded limit resets.
    """

    def __init__(self) -> None:
        self._wait: float | None = None

    def admit(self, request: Request) -> AdmissionAnswer | None:
        raise NotImplementedError

    def allow_request(self, request: Request, view) -> bool:
        admission = self.admit(request)
        if admission is None:
            return True
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
