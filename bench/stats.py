"""bench-stats: cricket statistics, full rebuild against the precise refresh of one fixture.

On a benchmark database of its own (``--database``, default omnium_bench_stats): when
``--template`` names an imported corpus database it is copied (``CREATE DATABASE ...
TEMPLATE``) and migrated; otherwise the first ``--limit`` matches of the dev corpus archive
are imported if the database holds fewer. Then, in the same run:

- rebuild: every line of every public fixture and every participant's snapshots
  (``statistics_rebuild_all``);
- refresh: the dependency set of one fixture through the one refresh path,
  ``statistics_refresh`` (dependencies, version bumps) plus the task's body
  ``statistics_refresh_run`` (that fixture's lines, its participants' snapshots): what a
  correction of one delivery costs. Median over ``--runs`` fixtures;
- ratio refresh / rebuild (target <= 1 %);
- career read: the career table of every player (valid snapshots, stale ones folded live),
  median over ``--runs`` reads (target <= 1 s).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import REPO, closing_line, median_ms, setup_django

ARCHIVE = REPO.parent / "shared" / "data" / "cricsheet" / "dev_matches.tar.gz"


def copy_template(database: str, template: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://127.0.0.1:5432/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database])
        if exists.fetchone() is None:
            print(f"copying {template} into {database} ...", flush=True)
            conn.execute(f'CREATE DATABASE "{database}" TEMPLATE "{template}"')


def load(limit: int) -> None:
    from tqdm import tqdm

    from ingest.cricsheet.importer import Importer, iter_sources
    from sports.models import Fixture

    have = Fixture.objects.filter(sport__code="cricket").count()
    if have >= limit:
        print(f"database holds {have} cricket fixtures", flush=True)
        return
    with tqdm(total=limit, unit="match") as bar:
        summary = Importer().run_sources(
            islice(iter_sources([ARCHIVE]), limit), progress=lambda _: bar.update(1)
        )
    print(summary.line(), flush=True)
    from django.db import connection

    with connection.cursor() as cursor:  # fresh statistics, as autovacuum would leave them
        cursor.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="omnium_bench_stats")
    parser.add_argument("--template", default="", help="An imported corpus database to copy.")
    parser.add_argument("--limit", type=int, default=1500, help="Matches to import (no template).")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.template:
        copy_template(args.database, args.template)
    setup_django(args.database)
    if not args.template:
        load(args.limit)
    else:
        from django.db import connection

        with connection.cursor() as cursor:  # a copy starts without planner statistics
            cursor.execute("ANALYZE")

    from django.db import connection

    from cricket.models import Delivery
    from cricket.stats.aggregates import career_table
    from cricket.stats.refresh import (
        statistics_rebuild_all,
        statistics_refresh,
        statistics_refresh_run,
    )
    from sports.models import Fixture

    deliveries = Delivery.objects.current().count()
    public = Fixture.objects.public().filter(sport__code="cricket")
    fixtures = list(public.values_list("pk", flat=True))
    print(f"{len(fixtures)} public fixtures, {deliveries} live deliveries", flush=True)

    started = time.perf_counter()
    lines, snapshots = statistics_rebuild_all(reason="bench-stats", actor="integration:bench")
    rebuild_s = time.perf_counter() - started
    print(f"rebuild: {lines} line rows, {snapshots} snapshot rows in {rebuild_s:.2f} s", flush=True)

    with connection.cursor() as cursor:  # fresh planner statistics for the new lines too
        cursor.execute("ANALYZE")

    # Precise refresh of one fixture's dependency set (what one correction triggers).
    rng = random.Random(6)
    samples = []
    for pk in rng.sample(fixtures, min(args.runs, len(fixtures))):
        started = time.perf_counter()
        refresh = statistics_refresh(
            fixture_ids=[pk], reason="bench-stats: one fixture", actor="integration:bench"
        )
        statistics_refresh_run(refresh_id=refresh.pk)
        samples.append(time.perf_counter() - started)
    refresh_s = statistics.median(samples)
    print(f"refresh of one fixture: median {refresh_s * 1000:.1f} ms over {len(samples)}")

    players = len(career_table())
    career_ms = median_ms(career_table, runs=args.runs, warmup=1)
    print(f"career table of every player ({players} rows): median {career_ms:.1f} ms")
    ratio = refresh_s / rebuild_s if rebuild_s else float("nan")
    print(f"ratio refresh/rebuild: {ratio:.4%} (target <= 1%)")
    print(
        closing_line(
            "stats",
            rebuild_s=f"{rebuild_s:.2f}",
            refresh_s=f"{refresh_s:.3f}",
            ratio=f"{ratio:.4f}",
            career_read_ms=f"{career_ms:.1f}",
        )
    )


if __name__ == "__main__":
    main()
