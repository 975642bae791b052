"""Conditional GETs for hot read endpoints: ``ETag`` and ``Last-Modified``, and 304.

A view method decorated with ``conditional(freshness)`` first asks ``freshness(request,
**kwargs)`` for a small tuple describing the data behind the response: timestamps
(``updated_at`` and the like), versions and counts from one cheap query. The tuple, the
path and the negotiated format make the ``ETag``; its latest timestamp is the
``Last-Modified``. A client whose ``If-None-Match`` (or ``If-Modified-Since``) still matches
gets a 304 without the response ever being built. ``freshness`` returns None for a record
the requester cannot see (or a merged one that answers as another): the view then answers
as it would without the decorator.

With ``cache_seconds``, a JSON body is also kept in the cache under its ETag: a client
without a validator (or with a stale one) then gets the stored bytes while the data stands
still, and the response is built once per change rather than once per request. The key is
the ETag, so a change to the data is a new key and never serves an old body; the lifetime
bounds what the freshness tuple does not see (a participant renamed after a scorecard was
stored shows within ``cache_seconds``).

With ``version``, a record that carries an optimistic-lock counter puts it at the head of
its ETag (``"7-3f2a…"``): the tag still changes with everything the freshness tuple sees,
so ``If-None-Match`` means what it did, and a write to the record may name the version it
was made against by sending the same tag back in ``If-Match`` (``if_match_version``). The
write compares only the version, under the record's row lock, and answers 412 when it has
moved on.

The throttles still run first (in DRF's ``initial``), so a 304 or a stored body counts as a
request and carries the ``RateLimit-*`` headers; it is just cheap.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date
from rest_framework.request import Request

from omnium.exceptions import PreconditionFailed

Freshness = Callable[..., tuple | None]


def parse_uuid(value: Any) -> uuid.UUID | None:
    """``value`` as a UUID, or None: a freshness query must not fail on a bad id (the view
    then answers the bad id as it always has)."""
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


class CompiledState:
    """A freshness query written with the ORM and compiled to SQL once per process.

    ``build(pk)`` returns a ``values_list`` queryset for one record. Compiling it (the ORM's
    query building, which costs several times the database's work on a hot endpoint) is
    done once, for a sentinel key; each call then runs the same SQL with the requested key
    in the sentinel's place. So the query stays the ORM's, gate and all, and a change to the
    managers it uses changes it too (the next process compiles the new one).
    """

    _SENTINEL = uuid.UUID("5e171e1a-0000-4000-8000-00000000c0de")

    def __init__(self, build: Callable[[uuid.UUID], QuerySet]) -> None:
        self._build = build
        self._compiled: tuple[str, tuple, tuple[int, ...]] | None = None

    def _compile(self) -> tuple[str, tuple, tuple[int, ...]]:
        queryset = self._build(self._SENTINEL).order_by()[:1]
        sql, params = queryset.query.get_compiler(connection.alias).as_sql()
        slots = tuple(i for i, value in enumerate(params) if value == self._SENTINEL)
        if not slots:
            raise ValueError("a compiled freshness query must filter on the key it is given")
        return sql, tuple(params), slots

    def row(self, pk: uuid.UUID) -> tuple | None:
        if self._compiled is None:
            self._compiled = self._compile()
        sql, params, slots = self._compiled
        values = list(params)
        for slot in slots:
            values[slot] = pk
        with connection.cursor() as cursor:
            cursor.execute(sql, values)
            return cursor.fetchone()


def _etag(
    request: Request, state: tuple, version: int | None = None, url: str | None = None
) -> str:
    material = repr((state, url or request.build_absolute_uri(), _format(request)))
    digest = hashlib.sha256(material.encode()).hexdigest()[:32]
    return f'"{digest}"' if version is None else f'"{version}-{digest}"'


def etag_for(
    request: Request,
    freshness: Freshness,
    *,
    url: str,
    version_at: int | None = None,
    **kwargs: Any,
) -> str | None:
    """The ETag a read of ``url`` (absolute, as the read would build it) would carry now,
    for a write's response, so the client can chain its next ``If-Match``; None when the
    reader cannot see the record."""
    state = freshness(request, **kwargs)
    if state is None:
        return None
    return _etag(request, state, None if version_at is None else state[version_at], url)


def if_match_version(request: Request) -> int | None:
    """The version an ``If-Match`` header names, or None without one (or with ``*``: any
    version of a record that exists). A tag is one this API gave out (``"7-3f2a…"``) or the
    bare version (``"7"``); only the version is compared. A weak tag, a tag of another form
    or tags naming different versions can never hold, so they answer 412 at once."""
    header = request.headers.get("If-Match", "").strip()
    if not header or header == "*":
        return None
    versions = set()
    for tag in (t.strip() for t in header.split(",")):
        if not (len(tag) >= 2 and tag[0] == tag[-1] == '"'):
            raise PreconditionFailed(
                f"If-Match {tag!r} is not a strong ETag this API gave out; send the ETag of "
                "your read (or the version in quotes)."
            )
        version = tag[1:-1].split("-", 1)[0]
        if not version.isdigit():
            raise PreconditionFailed(f"If-Match {tag} names no version of this record.")
        versions.add(int(version))
    if len(versions) > 1:
        raise PreconditionFailed("If-Match names several versions; name the one you read.")
    return versions.pop()


def _last_modified(state: tuple) -> datetime | None:
    moments = [value for value in state if isinstance(value, datetime)]
    return max(moments) if moments else None


def conditional(freshness: Freshness, *, cache_seconds: int = 0, version_at: int | None = None):
    """``version_at``: the position in the freshness tuple of the record's version, which
    then heads the ETag (see the module's docstring)."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, request: Request, *args, **kwargs):
            if request.method not in ("GET", "HEAD"):
                return method(self, request, *args, **kwargs)
            state = freshness(request, **kwargs)
            if state is None:
                return method(self, request, *args, **kwargs)
            etag = _etag(request, state, None if version_at is None else state[version_at])
            last_modified = _last_modified(state)
            timestamp = int(last_modified.timestamp()) if last_modified else None
            response = get_conditional_response(request, etag=etag, last_modified=timestamp)
            cacheable = cache_seconds > 0 and _format(request) == "json"
            if response is None and cacheable:
                stored = cache.get(_cache_key(etag))
                if stored is not None:
                    response = HttpResponse(stored, content_type="application/json")
            if response is None:
                response = method(self, request, *args, **kwargs)
                if response.status_code != 200:
                    return response
                if cacheable and hasattr(response, "add_post_render_callback"):
                    response.add_post_render_callback(
                        lambda rendered: cache.set(
                            _cache_key(etag), rendered.content, cache_seconds
                        )
                    )
            if response.status_code in (200, 304):
                response["ETag"] = etag
                if timestamp is not None:
                    response["Last-Modified"] = http_date(timestamp)
                patch_vary_headers(response, ["Accept"])
            return response

        wrapper.conditional = True  # the schema documents a 304 (omnium.schema)
        return wrapper

    return decorate


def _format(request: Request) -> str:
    return getattr(getattr(request, "accepted_renderer", None), "format", "")


def _cache_key(etag: str) -> str:
    return f"conditional-body:{etag.strip(chr(34))}"


class CacheHeadersMiddleware:
    """``Cache-Control`` and ``Vary`` on every successful API read.

    A read without credentials (no signed-in session, no ``Authorization``) is the same for
    every anonymous client, so shared caches may keep it briefly (``public``); one with
    credentials may show what only that account sees (a reviewer's unpublished fixtures),
    so it is ``private`` and revalidated. ``Vary`` names every header the answer depends
    on, so a cache never hands one account's body to another. A view that set its own
    ``Cache-Control`` keeps it.
    """

    PUBLIC = f"public, max-age={60}"
    PRIVATE = "private, no-cache"

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            request.method in ("GET", "HEAD")
            and request.path.startswith("/api/")
            and response.status_code in (200, 304)
        ):
            if "Cache-Control" not in response:
                user = getattr(request, "user", None)
                signed_in = bool(user is not None and user.is_authenticated)
                credentials = signed_in or "HTTP_AUTHORIZATION" in request.META
                response["Cache-Control"] = self.PRIVATE if credentials else self.PUBLIC
            patch_vary_headers(response, ["Accept", "Authorization", "Cookie"])
        return response
