from __future__ import annotations

from typing import Any

import redis
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django.views.defaults import bad_request as default_bad_request
from django.views.defaults import page_not_found
from django.views.defaults import server_error as default_server_error

from omnium.cache import cache_failures
from omnium.exceptions import PayloadTooLarge, error_body
from omnium.home import panels as home_panels
from omnium.replica import health as replica_health


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 for a URL nothing matched (or a path converter refused, as ``<uuid:pk>`` refuses
    a malformed id): the API's error body under /api/, Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("not_found", "Not found."), status=404)
    return page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400 (a suspicious request refused before any view): under /api/ the error
    body, and 413 for a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""
    if request.path.startswith("/api/"):
        if isinstance(exception, RequestDataTooBig):
            body = error_body("payload_too_large", str(PayloadTooLarge.default_detail))
            return JsonResponse(body, status=413)
        return JsonResponse(error_body("invalid", "Bad request."), status=400)
    return default_bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """An unhandled exception (already logged by Django): under /api/ the error body."""
    if request.path.startswith("/api/"):
        body = error_body("server_error", "Server error: the failure was logged.")
        return JsonResponse(body, status=500)
    return default_server_error(request)


@require_safe
def bench_bare(request: HttpRequest) -> JsonResponse:
    """The baseline of ``make bench-api``: Django's whole middleware stack and a JSON body,
    no database, no DRF (routed only when ``BENCH_BARE_VIEW`` is on)."""
    return JsonResponse({"ok": True})


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"panels": home_panels(request)})


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        return False


def _redis_ok() -> bool:
    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when PostgreSQL and Redis both answer; 503 naming each one that does not.

    The read replica is reported, not checked: public reads fall back to the primary when
    it is down or behind, so its entry carries a warning and the status stays 200."""
    checks: dict[str, Any] = {
        "database": "ok" if _database_ok() else "unavailable",
        "redis": "ok" if _redis_ok() else "unavailable",
    }
    healthy = all(state == "ok" for state in checks.values())
    # Not a check: the cache fails open, so its failures slow pages down but break nothing.
    checks["cache"] = cache_failures()
    checks["replica"] = replica_health()
    return JsonResponse(checks, status=200 if healthy else 503)
