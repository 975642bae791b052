"""Shared plumbing for benchmarks: a database of their own, timing, the closing line."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def setup_django(database: str = "omnium_bench") -> None:
    """Point Django at a benchmark database (created and migrated if needed), never at the
    development data."""
    sys.path.insert(0, str(REPO))
    os.environ["DATABASE_URL"] = os.environ.get(
        "BENCH_DATABASE_URL", f"postgres://127.0.0.1:5432/{database}"
    )
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "omnium.settings")
    from omnium.services import ensure_database

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fresh_database(database: str) -> None:
    """Like ``setup_django``, on a benchmark database dropped and created anew first.

    A benchmark that needs empty tables cannot TRUNCATE them: the append-only tables refuse
    TRUNCATE even to their owner. So it starts from a new database instead."""
    from urllib.parse import urlsplit

    import psycopg

    sys.path.insert(0, str(REPO))
    from omnium.dbroles import admin_url, connect_params

    url = os.environ.get("BENCH_DATABASE_URL", f"postgres://127.0.0.1:5432/{database}")
    name = urlsplit(url).path.lstrip("/")
    if not name.startswith("omnium_bench"):
        raise SystemExit(f"refusing to drop {name!r}, not a benchmark database")
    with psycopg.connect(
        **connect_params(admin_url(url, os.environ.get("DATABASE_ADMIN_URL")), "postgres"),
    ) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())
    setup_django(database)


def analyze(database: str) -> None:
    """Fresh planner statistics, as autovacuum would leave them, taken as the owner: the
    application's role owns no table, so its ANALYZE skips every one. A database copied
    from a template starts with no activity counts, so autovacuum would never analyze it."""
    import psycopg

    sys.path.insert(0, str(REPO))
    from omnium.dbroles import connect_params, role_urls

    url = os.environ.get("BENCH_DATABASE_URL", f"postgres://127.0.0.1:5432/{database}")
    owner = role_urls(url, os.environ.get("DATABASE_OWNER_URL"))[1]
    with psycopg.connect(**connect_params(owner)) as conn:
        conn.execute("ANALYZE")


def median_ms(fn: Callable[[], object], *, runs: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def closing_line(name: str, **figures: object) -> str:
    parts = " ".join(f"{k}={v}" for k, v in figures.items())
    return f"bench-{name}: {parts}"


def percentile(samples: list[float], fraction: float) -> float:
    """The sample at ``fraction`` of the sorted samples (nearest rank, no interpolation)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]
