"""django-axes wiring that never stores a client address or user agent.

Axes counts failures per (username, client) in ``AccessAttempt``, whose client column is a
PostgreSQL ``inet``. We give it a pseudonym instead of the address: the keyed hash from
``omnium.clients``, laid into the IPv6 documentation prefix (2001:db8::/32, which no real
client can have) so it fits the column and still compares for equality.
"""

from __future__ import annotations

import ipaddress

from axes.handlers.database import AxesDatabaseHandler
from django.http import HttpRequest

from omnium.clients import client_pseudonym

_DOCUMENTATION_PREFIX = int(ipaddress.IPv6Address("2001:db8::"))


def lockout_client_key(request: HttpRequest) -> str:
    digest = client_pseudonym(request.META.get("REMOTE_ADDR", ""), scope="lockout")
    return str(ipaddress.IPv6Address(_DOCUMENTATION_PREFIX | int(digest[:24], 16)))


class PseudonymousAxesHandler(AxesDatabaseHandler):
    """Axes' database handler with the user agent and Accept header dropped before writing."""

    @staticmethod
    def _strip(request: HttpRequest | None) -> None:
        # Axes' own request attributes (set by its middleware), which HttpRequest does not
        # declare: set by name.
        if request is not None:
            setattr(request, "axes_user_agent", "")  # noqa: B010
            setattr(request, "axes_http_accept", "")  # noqa: B010

    def user_login_failed(self, sender, credentials, request=None, **kwargs):
        self._strip(request)
        return super().user_login_failed(sender, credentials, request, **kwargs)

    def user_logged_in(self, sender, request, user, **kwargs):
        self._strip(request)
        return super().user_logged_in(sender, request, user, **kwargs)
