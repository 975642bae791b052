"""bench-suggest: what curation costs on the development catalogue (local-only data).

In a benchmark database of its own, in the same run:

- collect: the three development feeds collected with the curated models' history on,
  against the same collection with history off (``SIMPLE_HISTORY_ENABLED``), each in a
  transaction rolled back afterwards: the price of keeping who changed what;
- suggest: ``candidates_suggest`` over the collected catalogue (first run queues, later runs
  only refresh), against the baseline of reading the same live product rows once.

Prints the medians and the ratios; the last line is ``bench-suggest: …``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import closing_line, fresh_database, median_ms

FEEDS = ("rs-maxi", "ebay-perfume", "alko")


def collect_all() -> float:
    from ingest.collectors.services import source_collect, source_register_builtin

    start = time.perf_counter()
    for slug in FEEDS:
        source_collect(source=source_register_builtin(slug=slug))
    return time.perf_counter() - start


def timed_rolled_back(history: bool) -> float:
    from django.db import transaction
    from django.test import override_settings

    with override_settings(SIMPLE_HISTORY_ENABLED=history), transaction.atomic():
        seconds = collect_all()
        transaction.set_rollback(True)
    return seconds


def main() -> None:
    fresh_database("omnium_bench_suggest")

    from catalogue.models import Product
    from catalogue.suggest import _rows
    from curation.models import MergeCandidate
    from curation.services import candidates_suggest
    from omnium.testing import SHARED_DATA

    if not (SHARED_DATA / "catalogue").is_dir():
        sys.exit(f"bench-suggest needs the local-only catalogue data at {SHARED_DATA}/catalogue")
    without = timed_rolled_back(history=False)
    with_history = timed_rolled_back(history=True)
    print(f"collect 3 feeds: {without:.1f} s without history, {with_history:.1f} s with it")

    collect_all()
    products = Product.objects.canonical().count()
    start = time.perf_counter()
    first = candidates_suggest()
    first_ms = (time.perf_counter() - start) * 1000
    again_ms = median_ms(candidates_suggest, runs=5, warmup=1)
    read_ms = median_ms(_rows, runs=5, warmup=1)
    print(first.line())
    print(
        f"{products} live products, {MergeCandidate.objects.count()} candidates: first suggest "
        f"{first_ms:.0f} ms, repeat {again_ms:.0f} ms, reading the rows {read_ms:.0f} ms"
    )
    print(
        closing_line(
            "suggest",
            products=products,
            candidates=MergeCandidate.objects.count(),
            suggest_first_ms=round(first_ms),
            suggest_repeat_ms=round(again_ms),
            read_rows_ms=round(read_ms),
            suggest_over_read=round(again_ms / read_ms, 1),
            history_overhead=round(with_history / without, 2),
        )
    )


if __name__ == "__main__":
    main()
