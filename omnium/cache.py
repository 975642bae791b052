"""The cache fails open: with Redis down, a read is a miss and a write is skipped.

Nothing omnium keeps in the cache is the only copy of anything (stored response bodies keyed
by their ETag, see ``omnium.conditional``), so an unreachable Redis must cost speed, never a
500. Each failure is counted (``/healthz`` shows the count) and logged at most once a
minute per process, so a dead server does not flood the log. Connecting gives up after
``CACHE_CONNECT_TIMEOUT`` seconds (settings), so no request waits long on it.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger("omnium.cache")
LOG_EVERY_SECONDS = 60


class _Failures:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.last_logged = 0.0
        self.last_error = ""

    def record(self, operation: str, error: Exception) -> None:
        now = time.monotonic()
        with self.lock:
            self.count += 1
            self.last_error = f"{operation}: {error}"
            due = now - self.last_logged >= LOG_EVERY_SECONDS or self.count == 1
            if due:
                self.last_logged = now
        if due:
            log.warning("cache unavailable, failing open (%s so far): %s", self.count, error)


FAILURES = _Failures()


def cache_failures() -> dict[str, Any]:
    """How often this process found the cache unavailable, for ``/healthz``."""
    return {"failures": FAILURES.count, "last_error": FAILURES.last_error}


def _fail_open(operation: str, fallback: Any):
    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except redis.RedisError as error:
                FAILURES.record(operation, error)
                return fallback(*args, **kwargs) if callable(fallback) else fallback

        return wrapper

    return decorate


def _default(key, default=None, *args, **kwargs):
    return default


class FailOpenRedisCache(RedisCache):
    get = _fail_open("get", _default)(RedisCache.get)
    get_many = _fail_open("get_many", {})(RedisCache.get_many)
    has_key = _fail_open("has_key", False)(RedisCache.has_key)
    set = _fail_open("set", None)(RedisCache.set)
    add = _fail_open("add", False)(RedisCache.add)
    set_many = _fail_open("set_many", [])(RedisCache.set_many)
    touch = _fail_open("touch", False)(RedisCache.touch)
    delete = _fail_open("delete", False)(RedisCache.delete)
    delete_many = _fail_open("delete_many", None)(RedisCache.delete_many)
