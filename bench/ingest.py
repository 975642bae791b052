"""bench-ingest: the Cricsheet import against the floor of what any import must do.

Into an empty benchmark database of its own (dropped and recreated each run):

1. import the dev corpus (``dev_matches.tar.gz``) through the real importer;
2. the floor: read and parse the same files, and COPY the same number of delivery rows
   (same columns and types) into a bare table with no index, key or constraint;
3. import the same corpus again (every file unchanged).

Prints deliveries per second, both times, the ratio import/floor and the re-import ratio,
and ends with the ``bench-ingest:`` line. ``--limit N`` takes the first N files only.
Data: Cricsheet (https://cricsheet.org), ODC-By 1.0.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import REPO, closing_line, setup_django

DATABASE = "omnium_bench_ingest"
CORPUS = REPO.parent / "shared" / "data" / "cricsheet" / "dev_matches.tar.gz"
CHUNK = 50_000


def drop_database(name: str) -> None:
    """Start from an empty database: the import's first run must create everything."""
    import os

    import psycopg
    from psycopg import sql

    url = os.environ.get("BENCH_DATABASE_URL", f"postgres://127.0.0.1:5432/{name}")
    parts = urlsplit(url)
    with psycopg.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        dbname="postgres",
        autocommit=True,
        **({"user": unquote(parts.username)} if parts.username else {}),
    ) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(unquote(parts.path.lstrip("/")))
            )
        )


def sources(corpus: Path, limit: int | None):
    from ingest.cricsheet.importer import iter_sources

    return itertools.islice(iter_sources([corpus]), limit)


def run_import(corpus: Path, limit: int | None, label: str):
    from tqdm import tqdm

    from ingest.cricsheet.importer import Importer

    with tqdm(total=limit, unit="match", desc=label, mininterval=2) as bar:
        summary = Importer().run_sources(sources(corpus, limit), progress=lambda _: bar.update(1))
    return summary


def floor(corpus: Path, limit: int | None, deliveries: int) -> float:
    """Parse every file, then COPY ``deliveries`` rows shaped like cricket_delivery's into a
    bare table. Returns seconds."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_bare_delivery")
        cursor.execute(
            "CREATE TABLE bench_bare_delivery (id bigint, innings_id uuid, over_number "
            "smallint, position smallint, sequence integer, ball_label varchar(16), "
            "actual_delivery varchar(16), batter_id uuid, bowler_id uuid, non_striker_id uuid, "
            "runs_batter smallint, runs_extras smallint, runs_total smallint, non_boundary "
            "boolean, extra_wides smallint, extra_noballs smallint, extra_byes smallint, "
            "extra_legbyes smallint, extra_penalty smallint, revision integer, is_current "
            "boolean, source_event_id uuid, submission_id uuid, submission_event_ordinal "
            "integer, created_at timestamptz)"
        )
    started = time.perf_counter()
    parsed = []
    for _, raw in sources(corpus, limit):
        parsed.append(json.loads(raw))
    stamp, person, innings, submission = datetime.now(UTC), uuid.uuid4(), uuid.uuid4(), uuid.uuid4()

    def rows():
        n = 0
        for doc in parsed:
            for inning in doc["innings"]:
                for over in inning.get("overs", []):
                    for position, d in enumerate(over["deliveries"]):
                        n += 1
                        extras = d.get("extras") or {}
                        runs = d["runs"]
                        yield (
                            n, innings, over["over"], position, n, "0.1", "", person, person,
                            person, runs["batter"], runs["extras"], runs["total"],
                            bool(runs.get("non_boundary")), extras.get("wides"),
                            extras.get("noballs"), extras.get("byes"), extras.get("legbyes"),
                            extras.get("penalty"), 1, True, uuid.uuid4(), submission, n, stamp,
                        )  # fmt: skip

    written = 0
    with connection.cursor() as cursor:
        iterator = rows()
        while written < deliveries:
            chunk = list(itertools.islice(iterator, min(CHUNK, deliveries - written)))
            if not chunk:
                break
            with cursor.cursor.copy("COPY bench_bare_delivery FROM STDIN") as copy:
                for row in chunk:
                    copy.write_row(row)
            written += len(chunk)
    seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE bench_bare_delivery")
    return seconds


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, default=None, help="Only the first N files.")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        raise SystemExit(f"bench-ingest: corpus not found at {args.corpus}")
    drop_database(DATABASE)
    setup_django(DATABASE)

    first = run_import(args.corpus, args.limit, "import")
    if first.rejected:
        print(f"{first.rejected} file(s) rejected; first: {first.rejections[0][:500]}")
    print(f"import:   {first.line()}")
    rate = first.deliveries / first.seconds if first.seconds else 0.0
    print(f"          {rate:,.0f} deliveries/s")

    floor_seconds = floor(args.corpus, args.limit, first.deliveries)
    print(f"floor:    parse every file + COPY {first.deliveries} rows: {floor_seconds:.1f} s")

    again = run_import(args.corpus, args.limit, "re-import")
    print(f"re-import: {again.line()}")
    ratio = first.seconds / floor_seconds if floor_seconds else 0.0
    reimport_ratio = again.seconds / first.seconds if first.seconds else 0.0
    print(f"ratio import/floor {ratio:.2f} (target <= 2.0); re-import/import {reimport_ratio:.3f}")
    print(
        closing_line(
            "ingest",
            deliveries=first.deliveries,
            deliveries_per_s=f"{rate:.0f}",
            ratio=f"{ratio:.2f}",
            reimport_ratio=f"{reimport_ratio:.3f}",
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
