"""Read replicas: public reads go to the ``replica`` alias, everything else to the primary.

``DATABASE_REPLICA_URL`` adds a ``replica`` alias (a hot standby streaming from the primary).
Without it the router answers "default" for everything and costs nothing.

A read goes to the replica only when all of these hold:

- the request is a public read: ``GET``/``HEAD``/``OPTIONS``, outside the console
  (``/admin/``), by a visitor or a signed-in viewer (a role above viewer, or staff, reads
  the primary: a stale read never reaches the people who curate the data). The API's key
  holders count as their owner once DRF has authenticated them;
- the session did not write in the last ``REPLICA_PIN_SECONDS``: a successful unsafe request
  pins its session to the primary, so whoever just wrote reads their own write;
- nor did the account: an API key has no session, so a successful unsafe request by a
  signed-in account (by session or by a key, whose owner DRF has set by then) also pins the
  account itself, in the cache, for as long; its reads by any key or session go to the
  primary until then (the cache fails open: with Redis down only the session's pin holds);
- the read is not inside a transaction on the primary (a read inside a write sees the write);
- the model is not one of the primary's own (``REPLICA_PRIMARY_APPS``: accounts, sessions,
  lockouts, the console's log). Sessions, API keys, usage counters and jobs are freshness
  checks: they must see the write the previous request made;
- the replica answers and its replay lag is at most ``REPLICA_MAX_LAG_SECONDS``. The lag is
  measured on the replica (how long ago the last replayed transaction committed, when WAL it
  has received is still waiting to be replayed) at most once per ``REPLICA_CHECK_SECONDS``
  in each process. A replica that does not answer is left alone for
  ``REPLICA_RETRY_SECONDS``: reads go to the primary, a warning is logged once, and
  ``/healthz`` shows it.

Celery tasks, management commands and anything outside a request never read the replica.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

REPLICA = "replica"
PIN_KEY = "_primary_pin_until"
ACCOUNT_PIN_KEY = "replica:pin:account:{pk}"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# The request whose reads may go to the replica (set by ReplicaRoutingMiddleware for a
# public read, None everywhere else).
_public_request: ContextVar[HttpRequest | None] = ContextVar("replica_request", default=None)


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def _reader_is_public(user: Any) -> bool:
    if user is None or not user.is_authenticated:
        return True
    return not (user.is_staff or user.is_superuser) and getattr(user, "role", None) == "viewer"


def request_is_public_read(request: HttpRequest) -> bool:
    """A read the replica may answer: safe method, not the console, a visitor or viewer,
    no recent write by the session."""
    if request.method not in SAFE_METHODS or request.path.startswith("/admin/"):
        return False
    if not _reader_is_public(getattr(request, "user", None)):
        return False
    return not _pinned(request.session.get(PIN_KEY) if hasattr(request, "session") else None)


def _pinned(until: object) -> bool:
    """Whether a pin's stored deadline (a session's or an account's) is still ahead."""
    return isinstance(until, int | float) and until > time.time()


def _account_pinned(request: HttpRequest, user: Any) -> bool:
    """Whether ``user`` (a signed-in account) wrote in the last ``REPLICA_PIN_SECONDS``:
    asked of the cache once per request and account (a key's owner is known only once DRF
    has authenticated it, after the middleware)."""
    if user is None or not user.is_authenticated:
        return False
    asked = getattr(request, "_replica_account_pin", None)
    if asked is not None and asked[0] == user.pk:
        return bool(asked[1])
    pinned = _pinned(cache.get(ACCOUNT_PIN_KEY.format(pk=user.pk)))
    request._replica_account_pin = (user.pk, pinned)  # type: ignore[attr-defined]
    return pinned


def _pin_account(user: Any) -> None:
    if user is not None and user.is_authenticated:
        seconds = settings.REPLICA_PIN_SECONDS
        cache.set(ACCOUNT_PIN_KEY.format(pk=user.pk), time.time() + seconds, timeout=seconds + 1)


@dataclass
class ReplicaState:
    """What this process last learnt about the replica."""

    state: str = "unknown"  # ok, lagging, unavailable
    lag_seconds: float | None = None
    checked_at: float = 0.0  # time.monotonic()
    error: str = ""


_state = ReplicaState()
_state_lock = threading.Lock()

# Replay lag on the standby: 0 when everything received is replayed; otherwise how long
# ago the last replayed transaction committed. NULL receive position: not a standby.
LAG_SQL = """
SELECT pg_is_in_recovery(),
       CASE WHEN pg_last_wal_receive_lsn() IS NULL
                 OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
            ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0)
       END
"""


def probe() -> ReplicaState:
    """Ask the replica for its replay lag now, and remember the answer."""
    connection = connections[REPLICA]
    try:
        with connection.cursor() as cursor:
            cursor.execute(LAG_SQL)
            row = cursor.fetchone()
        in_recovery, lag = bool(row[0]), max(float(row[1]), 0.0)
    except DatabaseError as error:
        connection.close()
        return _remember("unavailable", None, f"{type(error).__name__}: {error}".strip())
    if not in_recovery:
        return _remember("ok", 0.0, "")
    limit = float(settings.REPLICA_MAX_LAG_SECONDS)
    return _remember("ok" if lag <= limit else "lagging", lag, "")


def _remember(state: str, lag: float | None, error: str) -> ReplicaState:
    with _state_lock:
        if state != _state.state and state != "ok":
            logger.warning(
                "read replica %s%s: public reads go to the primary",
                state,
                f" ({error})" if error else f" ({lag:.1f} s behind)",
            )
        elif state != _state.state and _state.state in {"lagging", "unavailable"}:
            logger.warning("read replica ok again: public reads go to it")
        _state.state, _state.lag_seconds, _state.error = state, lag, error
        _state.checked_at = time.monotonic()
        return ReplicaState(**vars(_state))


def current_state() -> ReplicaState:
    """The last answer, probing again once it is older than the check (or retry) interval."""
    with _state_lock:
        known = ReplicaState(**vars(_state))
    wait = (
        settings.REPLICA_RETRY_SECONDS
        if known.state == "unavailable"
        else settings.REPLICA_CHECK_SECONDS
    )
    if known.state == "unknown" or time.monotonic() - known.checked_at >= wait:
        return probe()
    return known


def health() -> dict[str, Any] | str:
    """``/healthz``'s entry: a fresh probe, or "not configured"."""
    if not replica_configured():
        return "not configured"
    state = probe()
    report: dict[str, Any] = {"state": state.state, "lag_seconds": state.lag_seconds}
    if state.state != "ok":
        report["warning"] = f"public reads go to the primary: the replica is {state.state}" + (
            f" ({state.error})" if state.error else ""
        )
    return report


def _forget() -> None:
    """Back to "unknown" (the next routed read probes): for tests."""
    with _state_lock:
        _state.state, _state.lag_seconds, _state.checked_at, _state.error = (
            "unknown",
            None,
            0.0,
            "",
        )


@contextmanager
def public_reads(request: HttpRequest) -> Iterator[None]:
    token = _public_request.set(request)
    try:
        yield
    finally:
        _public_request.reset(token)


class ReplicaRouter:
    """Reads to ``replica`` on the conditions above; writes and migrations to the primary."""

    def db_for_read(self, model: type, **hints: Any) -> str:
        request = _public_request.get()
        if request is None or not replica_configured():
            return DEFAULT_DB_ALIAS
        if model._meta.app_label in settings.REPLICA_PRIMARY_APPS:  # type: ignore[attr-defined]
            return DEFAULT_DB_ALIAS
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        # DRF authenticates an API key after the middleware ran, and sets the owner on the
        # Django request: a key owned by staff reads the primary.
        user = getattr(request, "user", None)
        if not _reader_is_public(user):
            return DEFAULT_DB_ALIAS
        if _account_pinned(request, user):  # the account wrote a moment ago
            return DEFAULT_DB_ALIAS
        if current_state().state != "ok":
            return DEFAULT_DB_ALIAS
        return REPLICA

    def db_for_write(self, model: type, **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        # One database, two copies of it.
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS


class ReplicaRoutingMiddleware:
    """Marks public reads for the router; pins a session, and the account, that wrote to
    the primary."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not replica_configured():
            return self.get_response(request)
        if request_is_public_read(request):
            with public_reads(request):
                return self.get_response(request)
        response = self.get_response(request)
        wrote = request.method not in SAFE_METHODS and response.status_code < 400
        if wrote and hasattr(request, "session"):
            request.session[PIN_KEY] = time.time() + settings.REPLICA_PIN_SECONDS
        if wrote:
            _pin_account(getattr(request, "user", None))
        return response
