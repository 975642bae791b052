"""bench-api: the API under a production-like server, against a bare Django view.

Loads the sample data (ingest/samples.py) into a benchmark database of its own, starts
gunicorn on loopback (``--workers`` sync workers, DEBUG off, persistent database
connections) and drives it with a threaded keep-alive HTTP client: ``--requests`` GETs per
endpoint (after a warm-up), ``--concurrency`` at a time, the endpoints interleaved, as an
anonymous client (so every API request goes through the anonymous admission's row locks)
sending no validators (so no 304s: the conditional endpoints answer in full, from their
stored body while the data stands still). Endpoints:

- bare: a plain Django view (JSON, no database, no DRF), served only with BENCH_BARE_VIEW;
- fixture: a fixture's detail; scorecard: a cricket fixture's scorecard;
- leaderboard: the cricket batting leaderboard (most runs, every format);
- career: the career of the cricket player with the most runs;
- product: a product's detail with its prices by airport.

Prints p50/p95 per endpoint and each p95 as a multiple of the bare view's, then
``bench-api: bare_p95_ms=<x> worst_p95_ms=<y> ratio=<worst/bare>`` (target ratio <= 3).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from tqdm import tqdm

from bench.common import REPO, closing_line, setup_django

DATABASE = "omnium_bench_api"


def load_samples() -> None:
    """The samples through the real pipelines; the statistics refreshes they request run
    here and now (no worker serves the benchmark database), as do any left pending."""
    from cricket.stats.models import RefreshStatus, StatisticsRefresh
    from cricket.stats.refresh import statistics_refresh_run
    from ingest.samples import SAMPLE_LOADERS
    from omnium.celery import app

    app.conf.task_always_eager = True
    for label, loader in SAMPLE_LOADERS:
        started = time.perf_counter()
        line = loader()
        print(f"  {label}: {line} ({time.perf_counter() - started:.1f} s)", flush=True)
    for pk in StatisticsRefresh.objects.filter(status=RefreshStatus.PENDING).values_list(
        "pk", flat=True
    ):
        statistics_refresh_run(refresh_id=pk)


def endpoints() -> dict[str, str]:
    from catalogue.models import Product
    from cricket.stats.aggregates import Scope, careers
    from sports.models import Fixture

    cricket = Fixture.objects.public().filter(sport__code="cricket").order_by("code").first()
    football = (
        Fixture.objects.public().filter(sport__code="football").order_by("scheduled_start").first()
    )
    top_batter = careers(Scope(), ordering="-runs", limit=1, offset=0)[0]["participant_id"]
    product = Product.objects.visible().order_by("name").first()
    return {
        "bare": "/bench/bare",
        "fixture": f"/api/v1/fixtures/{football.pk}/",
        "scorecard": f"/api/v1/cricket/fixtures/{cricket.pk}/scorecard/",
        "leaderboard": "/api/v1/cricket/leaderboards/batting/",
        "career": f"/api/v1/cricket/players/{top_batter}/career/",
        "product": f"/api/v1/products/{product.pk}/",
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(port: int, workers: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-key-4f0c2a9e7d1b3c5a8e6f0d2b4a6c8e0f1a3b5c7d9e",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "BEHIND_TLS_PROXY": "false",
        "DB_CONN_MAX_AGE": "600",
        "BENCH_BARE_VIEW": "true",
        "API_ANON_PER_MINUTE": str(10**9),
        "API_ANON_GLOBAL_PER_MINUTE": str(10**9),
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "omnium.settings",
    }
    server = subprocess.Popen(  # noqa: S603 -- a fixed command line: the project's own server
        [
            str(REPO / ".venv" / "bin" / "gunicorn"),
            "omnium.wsgi:application",
            f"--bind=127.0.0.1:{port}",
            f"--workers={workers}",
            "--worker-class=sync",
            "--keep-alive=30",
            "--log-level=warning",
        ],
        cwd=REPO,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/bench/bare", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    stop_server(server)
    raise SystemExit("bench-api: gunicorn did not answer within 60 s")


def stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def drive(
    base: str, paths: dict[str, str], *, requests: int, concurrency: int, warmup: int
) -> dict[str, list[float]]:
    """``requests`` GETs of every path from ``concurrency`` threads, each with its own
    keep-alive connection, the endpoints interleaved (each thread takes the next request of
    the next endpoint in turn) so a change in the machine's load during the run falls on
    all of them alike; returns every latency in milliseconds, per endpoint."""
    names = list(paths)
    latencies: dict[str, list[float]] = {name: [] for name in names}
    lock = threading.Lock()
    counter = iter(range(requests * len(names)))
    progress = tqdm(
        total=requests * len(names), desc="requests", unit="req", leave=False, mininterval=2
    )

    def worker() -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            for n in range(warmup // concurrency + 1):
                client.get(paths[names[n % len(names)]]).raise_for_status()
            while True:
                with lock:
                    n = next(counter, None)
                if n is None:
                    return
                name = names[n % len(names)]
                started = time.perf_counter()
                response = client.get(paths[name])
                elapsed = (time.perf_counter() - started) * 1000
                if response.status_code != 200:
                    raise SystemExit(f"bench-api: {paths[name]} answered {response.status_code}")
                with lock:
                    latencies[name].append(elapsed)
                    progress.update()

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    progress.close()
    return latencies


def percentile(values: list[float], fraction: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(fraction * 100) - 1]


def measure(targets: dict[str, str], args: argparse.Namespace) -> dict[str, tuple[float, float]]:
    """Serve the site under gunicorn and drive ``targets``: (p50, p95) in ms per target."""
    from django.db import connections

    connections.close_all()
    port = free_port()
    print(f"gunicorn: {args.workers} workers on 127.0.0.1:{port}", flush=True)
    server = start_server(port, args.workers)
    try:
        latencies = drive(
            f"http://127.0.0.1:{port}",
            targets,
            requests=args.requests,
            concurrency=args.concurrency,
            warmup=args.warmup,
        )
    finally:
        stop_server(server)
    return {
        name: (percentile(values, 0.50), percentile(values, 0.95))
        for name, values in latencies.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="timed GETs per endpoint")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--warmup", type=int, default=100)
    args = parser.parse_args()

    logging.getLogger("httpx").setLevel(logging.WARNING)
    setup_django(DATABASE)
    print("loading the sample data (idempotent) ...", flush=True)
    load_samples()
    results = measure(endpoints(), args)
    bare_p95 = results["bare"][1]
    print(f"\n{'endpoint':<12} {'p50 ms':>8} {'p95 ms':>8} {'p95/bare':>9}")
    for name, (p50, p95) in results.items():
        print(f"{name:<12} {p50:8.2f} {p95:8.2f} {p95 / bare_p95:9.2f}")
    worst = max(p95 for name, (_p50, p95) in results.items() if name != "bare")
    print(
        closing_line(
            "api",
            bare_p95_ms=f"{bare_p95:.2f}",
            worst_p95_ms=f"{worst:.2f}",
            ratio=f"{worst / bare_p95:.2f}",
        )
    )


if __name__ == "__main__":
    main()
