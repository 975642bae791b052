"""Pseudonyms for client addresses.

A client address is personal data: nothing in omnium stores, logs or uses it as a cache key.
Code that needs to tell clients apart uses ``client_pseudonym``: an HMAC of the address under
a server key, with IPv6 reduced to its /64 (one subscriber usually holds a whole /64, so the
full address would let a client escape a limit by rotating its low bits).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from datetime import UTC, date, datetime

from django.conf import settings


def network_of(address: str) -> str:
    """The unit a client is counted by: an IPv4 address, or an IPv6 /64 network."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return "invalid"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_pseudonym(address: str, *, key: str | None = None, scope: str = "") -> str:
    """HMAC-SHA256 of the client's network under ``key`` (default ``CLIENT_HASH_KEY``).

    ``scope`` separates uses (for example a day for daily-rotated pseudonyms), so a pseudonym
    from one use cannot be matched against another.
    """
    secret = (key if key is not None else settings.CLIENT_HASH_KEY).encode()
    message = f"{scope}\x00{network_of(address)}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def daily_key(day: date, *, secret: str | None = None) -> str:
    """The pseudonym key for one UTC day, derived from the server secret and the date.

    Nothing is stored: every process derives the same key for the same day, and at UTC
    midnight every pseudonym changes, so counters of different days cannot be linked.
    """
    base = (secret if secret is not None else settings.CLIENT_HASH_KEY).encode()
    return hmac.new(base, f"daily-key\x00{day.isoformat()}".encode(), hashlib.sha256).hexdigest()


def daily_pseudonym(address: str, *, at: datetime, scope: str) -> str:
    """``client_pseudonym`` under the key of the UTC day holding ``at``."""
    day = at.astimezone(UTC).date()
    return client_pseudonym(address, key=daily_key(day), scope=scope)
