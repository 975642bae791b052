"""Typed readers for configuration taken from the environment.

Each reader raises ``ImproperlyConfigured`` naming the variable and the rule it broke, so a
typo in a deployment fails at start-up with a sentence a person can act on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str, environ: Mapping[str, str] | None) -> str | None:
    value = (os.environ if environ is None else environ).get(name)
    if value is None:
        return None
    return value.strip()


def env_str(
    name: str, default: str | None = None, *, environ: Mapping[str, str] | None = None
) -> str:
    value = _raw(name, environ)
    if value is None or value == "":
        if default is None:
            raise ImproperlyConfigured(f"{name}: this variable is required and is not set.")
        return default
    return value


def env_bool(name: str, default: bool, *, environ: Mapping[str, str] | None = None) -> bool:
    value = _raw(name, environ)
    if value is None or value == "":
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}: expected a boolean (one of {', '.join(sorted(_TRUE | _FALSE))}), got {value!r}."
    )


def env_int(
    name: str,
    default: int,
    *,
    minimum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    value = _raw(name, environ)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}: expected a whole number, got {value!r}.") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}: must be at least {minimum}, got {number}.")
    return number


def env_list(
    name: str, default: list[str], *, environ: Mapping[str, str] | None = None
) -> list[str]:
    value = _raw(name, environ)
    if value is None or value == "":
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if any(item == "" for item in items):
        raise ImproperlyConfigured(
            f"{name}: expected a comma-separated list without empty items, got {value!r}."
        )
    return items


def env_url(
    name: str,
    default: str,
    *,
    schemes: tuple[str, ...],
    environ: Mapping[str, str] | None = None,
) -> str:
    """A URL whose scheme is one of ``schemes`` and which names a host."""
    value = env_str(name, default, environ=environ)
    try:
        parts = urlsplit(value)
        port = parts.port  # raises ValueError on a non-numeric or out-of-range port
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: not a valid URL ({exc}): {value!r}.") from None
    if parts.scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name}: the scheme must be one of {', '.join(schemes)}, got {value!r}."
        )
    if not parts.hostname:
        raise ImproperlyConfigured(f"{name}: the URL names no host: {value!r}.")
    del port
    return value


def database_from_url(name: str, url: str) -> dict[str, object]:
    """Django ``DATABASES`` entry for a ``postgres://user:pass@host:port/dbname`` URL."""
    parts = urlsplit(url)
    db_name = unquote(parts.path.lstrip("/"))
    if not db_name:
        raise ImproperlyConfigured(f"{name}: the URL names no database: {url!r}.")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": db_name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or 5432),
    }
