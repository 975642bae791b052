"""Throttle plumbing whose client identity is a keyed hash, never the raw address."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle

from omnium.clients import client_pseudonym


class HashedAnonRateThrottle(AnonRateThrottle):
    """DRF's anonymous throttle, identifying a client by ``client_pseudonym``.

    The cache key therefore holds only the pseudonym. ``REMOTE_ADDR`` is what the web server
    saw; a deployment behind a proxy sets it from the proxy's header in the server, not here,
    so a client cannot choose its own identity with a forged header.
    """

    def get_ident(self, request: Request) -> str:
        return client_pseudonym(request.META.get("REMOTE_ADDR", ""), scope="throttle")
