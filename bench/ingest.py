"""bench-ingest: the Cricsheet import against the floor of what any import must do.

Into an empty benchmark database of its own (dropped and recreated each run):

1. import the dev corpus (``dev_matches.tar.gz``) through the real importer, in
   ``--workers`` processes (default 2, as ``import_cricsheet --workers 2`` would);
2. the floor: read and parse the same files, and COPY their delivery rows (same columns
   and types) into a bare table with no index, key or constraint — once in one process and
   once in ``--workers`` processes fed by one reader, as the import is; the ratio compares
   the import with the floor at its own parallelism;
3. check every innings of every file against the database, counted straight from the JSON
   (fixtures, innings, deliveries; per innings total with penalty runs, wickets, legal
   balls);
4. import the same corpus again (every file unchanged) and check it wrote nothing.

Prints deliveries per second, both times, the ratio import/floor and the re-import ratio,
and ends with the ``bench-ingest:`` line. ``--limit N`` takes the first N files only;
``--years-from YEAR`` makes the deliveries' year partitions from YEAR first (a new database
has only this year's and the default: an import of older fixtures lands in the default).
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
IMPORT_RETRIES = [0]  # of the last run_import


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


def run_import(corpus: Path, limit: int | None, label: str, workers: int):
    from tqdm import tqdm

    from ingest.cricsheet.importer import Importer

    with tqdm(total=limit, unit="match", desc=label, mininterval=2) as bar:
        # A first load into an empty database: statistics are rebuilt once afterwards
        # (bench-stats measures that), not refreshed block by block.
        importer = Importer(refresh=False)
        summary = importer.run_sources(
            sources(corpus, limit), progress=lambda _: bar.update(1), workers=workers
        )
    IMPORT_RETRIES[0] = importer.retries
    return summary


BARE_TABLE = (
    "CREATE TABLE bench_bare_delivery (id bigint, innings_id uuid, over_number "
    "smallint, position smallint, sequence integer, ball_label varchar(16), "
    "actual_delivery varchar(16), batter_id uuid, bowler_id uuid, non_striker_id uuid, "
    "runs_batter smallint, runs_extras smallint, runs_total smallint, non_boundary "
    "boolean, extra_wides smallint, extra_noballs smallint, extra_byes smallint, "
    "extra_legbyes smallint, extra_penalty smallint, revision integer, is_current "
    "boolean, source_event_id uuid, submission_id uuid, submission_event_ordinal "
    "integer, created_at timestamptz)"
)


def _rows(documents):
    """Rows shaped like cricket_delivery's, one per delivery of ``documents``."""
    stamp, person, innings, submission = datetime.now(UTC), uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    n = 0
    for doc in documents:
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


def _copy(rows) -> int:
    """COPY ``rows`` into the bare table in chunks on this process's connection."""
    from django.db import connection

    written = 0
    with connection.cursor() as cursor:
        while chunk := list(itertools.islice(rows, CHUNK)):
            with cursor.cursor.copy("COPY bench_bare_delivery FROM STDIN") as copy:
                for row in chunk:
                    copy.write_row(row)
            written += len(chunk)
    return written


def _floor_worker(inbox, done) -> None:
    """One floor process: parse each file it is handed, then COPY all their deliveries."""
    from django.db import connection

    parsed = []
    while (raw := inbox.get()) is not None:
        parsed.append(json.loads(raw))
    done.put(_copy(_rows(parsed)))
    connection.close()


def floor(corpus: Path, limit: int | None, workers: int = 1) -> tuple[float, int]:
    """The cheapest way to land the same rows: read and parse every file, then COPY their
    deliveries (shaped like cricket_delivery's) into a bare table with no index, key or
    constraint, in ``workers`` processes fed by one reader, as the import is. Returns the
    seconds and the rows written."""
    import multiprocessing

    from django.db import connection, connections

    _as_owner(
        "DROP TABLE IF EXISTS bench_bare_delivery",
        BARE_TABLE,
        f"GRANT INSERT ON bench_bare_delivery TO {connection.settings_dict['USER']}",
    )
    started = time.perf_counter()
    if workers == 1:
        written = _copy(_rows(json.loads(raw) for _, raw in sources(corpus, limit)))
    else:
        context = multiprocessing.get_context("fork")
        connections.close_all()  # each forked process opens its own connection
        inboxes = [context.Queue(maxsize=400) for _ in range(workers)]
        done = context.Queue()
        processes = [context.Process(target=_floor_worker, args=(inbox, done)) for inbox in inboxes]
        for process in processes:
            process.start()
        for n, (_, raw) in enumerate(sources(corpus, limit)):
            inboxes[n % workers].put(raw)
        for inbox in inboxes:
            inbox.put(None)
        written = sum(done.get() for _ in processes)
        for process in processes:
            process.join()
    seconds = time.perf_counter() - started
    _as_owner("DROP TABLE bench_bare_delivery")
    return seconds, written


def _as_owner(*statements: str) -> None:
    """Run DDL as the tables' owner (the application's role may not create tables)."""
    import psycopg
    from django.conf import settings

    owner = settings.DATABASE_OWNER
    with psycopg.connect(
        host=owner["HOST"] or "127.0.0.1",
        port=owner["PORT"] or 5432,
        dbname=owner["NAME"],
        user=owner["USER"],
        password=owner["PASSWORD"] or None,
        autocommit=True,
    ) as conn:
        for statement in statements:
            conn.execute(statement.encode())


def _legal(delivery: dict) -> bool:
    extras = delivery.get("extras") or {}
    return not extras.get("wides") and not extras.get("noballs")


def verify(corpus: Path, limit: int | None) -> list[str]:
    """Every innings of every file against the database, counted straight from the JSON
    (not through the importer): fixtures, innings, deliveries, and per innings the total
    with penalty runs, the wickets and the legal balls. Returns the disagreements."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT m.external_id, i.ordinal,
                   coalesce(sum(d.runs_total), 0) + coalesce(i.penalty_runs_pre, 0)
                       + coalesce(i.penalty_runs_post, 0),
                   count(d.id),
                   count(d.id) FILTER (WHERE coalesce(d.extra_wides, 0) = 0
                                         AND coalesce(d.extra_noballs, 0) = 0),
                   (SELECT count(*) FROM cricket_deliverywicket w
                      JOIN cricket_delivery dw ON dw.id = w.delivery_id
                     WHERE dw.innings_id = i.id AND dw.is_current)
              FROM sports_externalidmap m
              JOIN cricket_innings i ON i.fixture_id = m.internal_id
              LEFT JOIN cricket_delivery d ON d.innings_id = i.id AND d.is_current
             WHERE m.source_code = 'cricsheet' AND m.entity_type = 'fixture'
             GROUP BY m.external_id, i.id
            """
        )
        stored = {(row[0], row[1]): row[2:] for row in cursor.fetchall()}
    problems, files, innings_seen = [], 0, 0
    from ingest.cricsheet.importer import match_id_of

    for name, raw in sources(corpus, limit):
        files += 1
        match_id = match_id_of(name)
        for ordinal, inning in enumerate(json.loads(raw)["innings"], start=1):
            innings_seen += 1
            balls = [d for over in inning.get("overs", []) for d in over["deliveries"]]
            penalty = inning.get("penalty_runs") or {}
            expected = (
                sum(d["runs"]["total"] for d in balls) + penalty.get("pre", 0)
                + penalty.get("post", 0),
                len(balls),
                sum(_legal(d) for d in balls),
                sum(len(d.get("wickets") or ()) for d in balls),
            )  # fmt: skip
            got = stored.pop((match_id, ordinal), None)
            if got is None or tuple(got) != expected:
                problems.append(f"{match_id} innings {ordinal}: file {expected}, stored {got}")
    problems.extend(f"{k[0]} innings {k[1]}: stored but not in the files" for k in stored)
    print(
        f"verify:   {files} files, {innings_seen} innings: "
        f"{'all equal' if not problems else f'{len(problems)} disagreement(s)'}"
    )
    for line in problems[:20]:
        print(f"          {line}")
    return problems


def snapshot() -> dict[str, tuple]:
    """Row count and latest write of every table the import touches."""
    from django.db import connection

    tables = {
        "sports_fixture": "updated_at",
        "sports_fixturecompetitor": "updated_at",
        "sports_participant": "updated_at",
        "sports_participantalias": "last_seen",
        "sports_externalidmap": "updated_at",
        "sports_submission": "submitted_at",
        "sports_timelineitem": "created_at",
        "sports_competition": "updated_at",
        "cricket_innings": "updated_at",
        "cricket_delivery": "created_at",
        "cricket_deliverywicket": None,
    }
    state = {}
    with connection.cursor() as cursor:
        for table, stamp in tables.items():
            column = f"max({stamp})" if stamp else "NULL"
            cursor.execute(f"SELECT count(*), {column} FROM {table}")  # noqa: S608
            state[table] = cursor.fetchone()
    return state


def delivery_partitions(years_from: int | None) -> int:
    """Make the deliveries' year partitions from ``years_from`` (if given) to this year;
    returns how many partitions the table has."""
    from django.db import connection  # after setup_django: Django is configured by then

    with connection.cursor() as cursor:
        for year in range(years_from or datetime.now(UTC).year, datetime.now(UTC).year + 1):
            cursor.execute(
                "SELECT omnium_partition_create(%s, %s, %s, %s)",
                ["cricket_delivery", str(year), f"{year}-01-01", f"{year + 1}-01-01"],
            )
        cursor.execute(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'cricket_delivery'::regclass"
        )
        return cursor.fetchone()[0]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, default=None, help="Only the first N files.")
    parser.add_argument(
        "--workers", type=int, default=2, help="Import processes (import_cricsheet --workers)."
    )
    parser.add_argument(
        "--years-from",
        type=int,
        default=None,
        metavar="YEAR",
        help="Make the deliveries' year partitions from YEAR to this year before the import "
        "(an established database has them; a new one has this year's and the default).",
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        raise SystemExit(f"bench-ingest: corpus not found at {args.corpus}")
    drop_database(DATABASE)
    setup_django(DATABASE)
    partitions = delivery_partitions(args.years_from)
    print(f"deliveries: {partitions} partitions before the import (the default counted)")

    first = run_import(args.corpus, args.limit, "import", args.workers)
    if first.rejected:
        print(f"{first.rejected} file(s) rejected; first: {first.rejections[0][:500]}")
    print(f"import:   {first.line()}")
    print(
        f"          {args.workers} process(es); matches tried again after meeting "
        f"another's rows: {IMPORT_RETRIES[0]}"
    )
    rate = first.deliveries / first.seconds if first.seconds else 0.0
    print(f"          {rate:,.0f} deliveries/s")

    floor_one, rows_one = floor(args.corpus, args.limit, workers=1)
    print(f"floor:    parse every file + COPY {rows_one} rows, 1 process: {floor_one:.1f} s")
    floor_seconds, rows = floor(args.corpus, args.limit, workers=args.workers)
    print(
        f"floor:    the same in {args.workers} process(es), as the import ran: "
        f"{floor_seconds:.1f} s"
    )
    if rows != first.deliveries or rows_one != first.deliveries:
        print(f"          the floor wrote {rows} rows, the import {first.deliveries}")

    problems = verify(args.corpus, args.limit)
    before = snapshot()
    again = run_import(args.corpus, args.limit, "re-import", args.workers)
    changed = [t for t, v in snapshot().items() if v != before[t]]
    print(
        "re-import wrote nothing (row counts and latest writes unchanged)"
        if not changed
        else f"re-import CHANGED: {', '.join(changed)}"
    )
    print(f"re-import: {again.line()}")
    ratio = first.seconds / floor_seconds if floor_seconds else 0.0
    reimport_ratio = again.seconds / first.seconds if first.seconds else 0.0
    print(
        f"ratio import/floor {ratio:.2f} at {args.workers} process(es) (target <= 2.0), "
        f"{first.seconds / floor_one if floor_one else 0.0:.2f} against one process; "
        f"re-import/import {reimport_ratio:.3f}"
    )
    print(
        closing_line(
            "ingest",
            deliveries=first.deliveries,
            deliveries_per_s=f"{rate:.0f}",
            floor_s=f"{floor_seconds:.1f}",
            floor_one_s=f"{floor_one:.1f}",
            ratio=f"{ratio:.2f}",
            reimport_ratio=f"{reimport_ratio:.3f}",
            partitions=partitions,
        )
    )
    if problems or changed or first.rejected:
        raise SystemExit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
