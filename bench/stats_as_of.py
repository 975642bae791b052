"""bench-stats-as-of: statistics views and records read as of a moment before a round of
corrections, against the same reads of today's stored lines, in the same run.

On a benchmark database of its own (``--database``, default omnium_bench_stats_as_of): the
first ``--limit`` matches of the dev corpus archive are imported if it holds fewer, and
every line is rebuilt. The moment D is taken, then ``--corrections`` deliveries (one per
fixture, spread over the corpus) are corrected through ``delivery_correct`` and the lines
of those fixtures rebuilt, so as of D those fixtures are the affected scope whose lines
are derived again from the revisions live at D.

Timed: each read (a view's first page of 50 through ``figures.view_rows``, a record's
first 50 rows through ``records.record_rows``), median over ``--runs`` after warm-up, once
as of D and once without ``as_of`` (the baseline: the stored lines). p50 and p95 are of
the as-of reads; ``ratio`` is their p50 over the baseline's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.stats
from bench.common import REPO, closing_line, median_ms, percentile, setup_django
from bench.stats import load

ARCHIVES = [
    base / "shared" / "data" / "cricsheet" / "dev_matches.tar.gz"
    for base in (REPO.parent, REPO.parent.parent)
]

VIEWS = [
    ("batting, every player", "batting", {}),
    ("batting in T20s", "batting", {"format": "T20"}),
    ("bowling, every player", "bowling", {}),
    ("fielding, every player", "fielding", {}),
    ("team figures", "team", {}),
    ("batting by season", "batting", {"group_by": "season"}),
]
RECORDS = [
    ("record: highest innings", "highest-innings"),
    ("record: best innings bowling", "best-bowling-innings"),
    ("record: partnerships", "partnerships"),
]


def _correct(count: int) -> int:
    """Correct one delivery in each of ``count`` fixtures (a dot ball becomes a single);
    returns how many were corrected."""
    from cricket.corrections import delivery_correct
    from cricket.models import Delivery
    from cricket.stats.engine import lines_rebuild
    from cricket.stats.partnerships import records_rebuild

    fixtures: list = []
    done = 0
    for delivery in (
        Delivery.objects.current()
        .filter(runs_batter=0, runs_extras=0, wickets__isnull=True)
        .select_related("innings")
        .order_by("innings__fixture_id", "sequence")
        .distinct("innings__fixture_id")[:count]
    ):
        delivery_correct(
            delivery=delivery,
            changes={"runs_batter": 1},
            reason="bench-stats-as-of: a single, not a dot",
            actor="integration:bench",
        )
        fixtures.append(delivery.innings.fixture_id)
        done += 1
    lines_rebuild(fixture_ids=fixtures)
    records_rebuild(fixture_ids=fixtures)
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="omnium_bench_stats_as_of")
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--corrections", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--archive", type=Path, default=next((p for p in ARCHIVES if p.exists()), ARCHIVES[0])
    )
    args = parser.parse_args()
    bench.stats.ARCHIVE = args.archive
    setup_django(args.database)
    from django.utils import timezone

    from cricket.stats.figures import view_rows
    from cricket.stats.models import CricketMatchSide
    from cricket.stats.partnerships import records_ensure
    from cricket.stats.query import StatsQuery
    from cricket.stats.records import record_rows
    from cricket.stats.records_filters import records_filter_from_params
    from cricket.stats.refresh import statistics_rebuild_all

    load(args.limit)
    if not CricketMatchSide.objects.exists():
        print("rebuilding every line ...", flush=True)
        statistics_rebuild_all(reason="bench-stats-as-of", actor="integration:bench")
    records_ensure()
    moment = timezone.now().isoformat()
    corrected = _correct(args.corrections)
    print(f"as of {moment}: {corrected} fixtures corrected since", flush=True)

    ours, theirs = [], []
    reads = []
    for label, view, params in VIEWS:
        for as_of in (moment, None):
            query = StatsQuery.parse({**params, **({"as_of": as_of} if as_of else {})}, view=view)
            reads.append((label, as_of, lambda q=query: view_rows(q, limit=50)))
    for label, kind in RECORDS:
        for as_of in (moment, None):
            rf = records_filter_from_params({"as_of": as_of} if as_of else {})

            def read(rf=rf, kind=kind):
                with rf.moment():
                    return list(record_rows(kind, rf)[:50])

            reads.append((label, as_of, read))
    for (label, _, then), (_, _, now) in zip(reads[::2], reads[1::2], strict=True):
        q = median_ms(then, runs=args.runs, warmup=1)
        b = median_ms(now, runs=args.runs, warmup=1)
        ours.append(q)
        theirs.append(b)
        print(f"{label:40s} as of D {q:9.1f} ms   today {b:9.1f} ms", flush=True)
    ours.sort()
    p50 = statistics.median(ours)
    p95 = percentile(ours, 0.95)
    print(
        closing_line(
            "stats-as-of",
            p50_ms=f"{p50:.1f}",
            p95_ms=f"{p95:.1f}",
            baseline_p50_ms=f"{statistics.median(theirs):.1f}",
            ratio=f"{p50 / statistics.median(theirs):.3f}",
            fixtures=args.limit,
            corrected=corrected,
        )
    )


if __name__ == "__main__":
    main()
