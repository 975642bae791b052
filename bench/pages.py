"""bench-pages: every public page type under a production-like server, against a bare view.

The same harness as bench-api (``bench/api.py``): the samples loaded through the real
pipelines into a benchmark database of its own, gunicorn on loopback with DEBUG off, and a
threaded keep-alive client driving ``--requests`` GETs per page, ``--concurrency`` at a
time, the pages interleaved. Page types: the home page, the competition list, a league,
a football fixture, a cricket scorecard (with its charts), a cricket player, the
leaderboards, a cricket record, the product list, a product, a brand, an airport, the
articles — and, where this checkout has them, search results and participant and venue pages.

Prints p50/p95 per page and each p95 as a multiple of the bare view's, then
``bench-pages: bare_p95_ms=<x> worst_p95_ms=<y> worst=<page> ratio=<worst/bare>``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.api import load_samples, measure
from bench.common import closing_line, setup_django

DATABASE = "omnium_bench_pages"


def pages() -> dict[str, str]:
    from django.urls import NoReverseMatch, reverse

    from catalogue.models import Location, Product
    from cricket.stats.aggregates import Scope, careers
    from sports.models import Competition, Fixture, FixtureCompetitor

    cricket = Fixture.objects.public().filter(sport__code="cricket").order_by("code").first()
    football = (
        Fixture.objects.public().filter(sport__code="football").order_by("scheduled_start").first()
    )
    league = Competition.objects.get(code="epl", parent__isnull=True)
    top_batter = careers(Scope(), ordering="-runs", limit=1, offset=0)[0]["participant_id"]
    product = Product.objects.visible().order_by("name").first()
    airport = Location.objects.visible().order_by("code").first()
    targets = {
        "bare": "/bench/bare",
        "home": reverse("home"),
        "competitions": reverse("sports:competition-list"),
        "league": reverse("sports:competition-detail", args=[league.pk]),
        "fixture": reverse("sports:fixture-detail", args=[football.pk]),
        "scorecard": reverse("cricket:scorecard", args=[cricket.pk]),
        "player": reverse("cricket_stats:player", args=[top_batter]),
        "leaderboards": reverse("cricket_stats:leaderboards"),
        "records": reverse("cricket_stats:record", args=["highest-innings"]),
        "products": reverse("catalogue:product-list"),
        "product": reverse("catalogue:product-detail", args=[product.pk]),
        "brand": reverse("catalogue:brand-detail", args=[product.brand.slug]),
        "airport": reverse("catalogue:location-detail", args=[airport.code]),
        "articles": reverse("discussions:article-list"),
    }
    team = (
        FixtureCompetitor.objects.filter(fixture=football, participant__isnull=False)
        .values_list("participant_id", flat=True)
        .first()
    )
    optional = {
        "search": ("search:results", [], "?q=sauvage"),
        "team": ("sports:participant-detail", [team], ""),
        "venue": ("sports:venue-detail", [football.venue_id], ""),
    }
    for name, (url_name, args, query) in optional.items():
        if any(a is None for a in args):
            continue
        try:
            targets[name] = reverse(url_name, args=args) + query
        except NoReverseMatch:
            continue
    return targets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="timed GETs per page")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--warmup", type=int, default=40)
    args = parser.parse_args()

    logging.getLogger("httpx").setLevel(logging.WARNING)
    setup_django(DATABASE)
    print("loading the sample data (idempotent) ...", flush=True)
    load_samples()
    results = measure(pages(), args)
    bare_p95 = results["bare"][1]
    print(f"\n{'page':<14} {'p50 ms':>8} {'p95 ms':>8} {'p95/bare':>9}")
    for name, (p50, p95) in results.items():
        print(f"{name:<14} {p50:8.2f} {p95:8.2f} {p95 / bare_p95:9.2f}")
    worst_name, (_, worst) = max(
        ((name, r) for name, r in results.items() if name != "bare"), key=lambda item: item[1][1]
    )
    print(
        closing_line(
            "pages",
            bare_p95_ms=f"{bare_p95:.2f}",
            worst_p95_ms=f"{worst:.2f}",
            worst=worst_name,
            ratio=f"{worst / bare_p95:.2f}",
        )
    )


if __name__ == "__main__":
    main()
