"""bench-scale: the site's busiest reads and a day's price writes at ten times the dev data,
on the live tables and on flat (unpartitioned) copies of them made in the same run.

On a benchmark database of its own (``omnium_bench_scale``), at ``--scale`` (1 = the sizes
the scale-out plan is written for):

- a catalogue of ``10M x scale`` price observations, filled by ``bench/prices.py``'s
  generator (products with 500 observations over five listings, and five products with
  five years of daily prices at ten shops);
- a cricket corpus of ``10 x scale`` times the dev corpus's 5,583,522 deliveries: the first
  ``--limit`` matches of the dev archive imported (or ``--template``, an imported corpus
  database, copied: by default ``omnium_corpus_full`` when it exists and is idle), their
  statistic lines built, then copied in SQL as many times as it takes, each copy with new
  ids (uuids hashed with the copy number, integer ids offset by the table's largest one;
  which columns are ids and references is read from the models, since a reference may be
  kept by a trigger rather than a foreign key), so every fixture, innings, delivery,
  wicket, timeline item, stat line and statistic line exists once per copy and the players
  are shared (their careers grow with the corpus, as a long-running site's do).

The database is reused while it holds exactly the sizes asked for, else it is dropped and
filled anew (the logs are append-only and cannot be truncated).

The baseline: each logged table the reads touch (``FLAT_TABLES``) is copied, in this run, to
``bench_flat_<table>``: ``CREATE TABLE ... (LIKE <table> INCLUDING DEFAULTS INCLUDING
CONSTRAINTS INCLUDING IDENTITY)`` filled with the same rows, then given every index the
live table declares on itself (``pg_get_indexdef`` of its own indexes, built after the
fill). ``LIKE ... INCLUDING INDEXES`` on a partitioned parent gives the same set: the
parent's (partitioned) indexes, not an index created on one partition only; the bench warns
when a partition has such an index, since the flat copy then lacks it. The copies carry no
triggers: the live tables' append-only triggers fire on update, delete and truncate, not on
the insert timed here. Each read runs twice through the same code: once as it is, once with
the statements rewritten to name the flat copies (and the two answers must agree).

Timed, median over ``--runs``:

- latest: a product page's latest prices (``Listing ... .visible().latest_prices()``);
- history: a history product's price chart (``product_price_history``, EUR);
- career: a player's page reads (``player_career`` and ``player_innings``) for the players
  with the most innings;
- scorecard: a fixture's scorecard page reads (``fixture_scorecard`` and the charts over its
  live deliveries);
- timeline: a fixture's timeline items in order (what the fixture timeline API pages);
- insert_day: one observation for every listing (a day's collection) inserted in one
  statement, in a transaction rolled back (so the database stays as generated).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.prices
import bench.stats
from bench.common import REPO, closing_line, setup_django

DATABASE = "omnium_bench_scale"
OBSERVATIONS = 10_000_000
DEV_DELIVERIES = 5_583_522  # the dev corpus's deliveries (data/cricsheet/README.md)
CORPUS_FACTOR = 10
ARCHIVES = [
    base / "shared" / "data" / "cricsheet" / "dev_matches.tar.gz"
    for base in (REPO.parent, REPO.parent.parent)
]

# The logged tables the timed reads and writes touch: these get flat copies.
FLAT_TABLES = (
    "catalogue_priceobservation",
    "cricket_delivery",
    "sports_timelineitem",
    "sports_statline",
)

# Everything a cricket fixture owns, copied once per copy of the corpus. Rows referring to
# anything else (players, teams, venues, competitions, dismissal kinds) keep their targets.
CORPUS_TABLES = (
    "sports_submission",
    "sports_fixture",
    "sports_fixturecompetitor",
    "cricket_fixtureofficial",
    "cricket_innings",
    "cricket_inningspowerplay",
    "cricket_inningsmiscountedover",
    "cricket_inningsabsent",
    "cricket_delivery",
    "cricket_deliverywicket",
    "cricket_deliverywicketfielder",
    "sports_ledgerstream",
    "sports_timelineitem",
    "sports_timelineactor",
    "sports_statline",
    "cricket_fixturelinesstate",
    "cricket_cricketmatchside",
    "cricket_cricketteaminningsline",
    "cricket_cricketbattingline",
    "cricket_cricketbowlingline",
    "cricket_cricketfieldingline",
    "cricket_cricketpartnership",
    "cricket_cricketbattingmilestone",
    "cricket_cricketappearance",
)
CORPUS_TEMPLATE = "omnium_corpus_full"  # the whole dev corpus, imported once
MARK_TABLE = "bench_scale_corpus"  # what the corpus was grown to (for reuse)

INSERT_DAY_SQL = """
INSERT INTO catalogue_priceobservation (listing_id, price, currency, price_usd, fx_rate, price_type,
                     observed_at, source_kind)
SELECT l.id, round((20 + random() * 200)::numeric, 2), 'EUR', NULL, NULL, 'regular',
       %s::timestamptz + make_interval(secs => (random() * 3600)::int), 'feed'
FROM catalogue_listing l
"""


# -- the database ---------------------------------------------------------------------------


def admin_connection(database: str):
    """A superuser connection to the benchmark database (the corpus copy runs with
    ``session_replication_role = replica``: the rows are copies of rows already checked, so
    neither foreign keys nor triggers are checked again)."""
    import psycopg

    from omnium.dbroles import admin_url, connect_params

    here = os.environ.get("BENCH_DATABASE_URL", f"postgres://127.0.0.1:5432/{DATABASE}")
    url = admin_url(here, os.environ.get("DATABASE_ADMIN_URL"))
    return psycopg.connect(**connect_params(url, database))


def usable_template(name: str) -> str:
    """The corpus database to copy: ``name`` if it exists and nobody is connected to it
    (PostgreSQL copies only an idle database), '' to import matches instead. The default
    template is optional; a template asked for by name must be usable."""
    if name in ("", "none"):
        return ""
    with admin_connection("postgres") as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        busy = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [name]
        ).fetchone()[0]
    if exists and not busy:
        return name
    why = "does not exist" if not exists else f"has {busy} open connection(s)"
    if name == CORPUS_TEMPLATE:
        print(f"{name} {why}: importing matches instead", flush=True)
        return ""
    raise SystemExit(f"bench-scale: --template {name}: {why}")


def drop_database(database: str) -> None:
    from django.db import connection

    if not database.startswith("omnium_bench"):
        raise SystemExit(f"bench-scale: refusing to drop {database!r}, not a benchmark database")
    connection.close()
    with admin_connection("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'.encode())
    print(f"dropped the benchmark database {database!r}", flush=True)


def held(cursor) -> tuple[int, int, int]:
    """(observations, deliveries the corpus was grown for, matches it was grown from) the
    database holds now (zeros for a corpus never grown)."""
    cursor.execute("SELECT count(*) FROM catalogue_priceobservation")
    observations = cursor.fetchone()[0]
    cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [MARK_TABLE])
    if not cursor.fetchone()[0]:
        return observations, 0, 0
    cursor.execute(f"SELECT target, base_matches FROM {MARK_TABLE}")  # noqa: S608
    row = cursor.fetchone()
    return (observations, *row) if row else (observations, 0, 0)


# -- the cricket corpus, grown by SQL --------------------------------------------------------


def _introspect(cur, table: str) -> dict[str, Any]:
    from django.apps import apps

    cur.execute(
        """SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attgenerated <> ''
             FROM pg_attribute a
            WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attnum""",
        [table],
    )
    columns = [(name, kind) for name, kind, generated in cur.fetchall() if not generated]
    # Keys and references as the models declare them: a partitioned table's primary key
    # carries its partition key too, and a reference into one may be a trigger, not a
    # foreign key, so the catalogue of constraints would miss them.
    model = next(m for m in apps.get_models() if m._meta.db_table == table)
    fks = {
        field.column: field.related_model._meta.db_table
        for field in model._meta.concrete_fields
        if field.many_to_one or field.one_to_one
    }
    cur.execute(
        """SELECT array_agg(a.attname::text) FROM pg_index i
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
            WHERE i.indrelid = %s::regclass AND i.indisunique AND NOT i.indisprimary
            GROUP BY i.indexrelid""",
        [table],
    )
    uniques = [set(cols) for (cols,) in cur.fetchall()]
    pk = getattr(model._meta.pk, "column", None)  # a composite key has none: its "id" part
    if pk is None and "id" in dict(columns):
        pk = "id"
    return {"columns": columns, "pk": pk, "fks": fks, "uniques": uniques}


def _copy_plan(cur) -> tuple[dict[str, str], dict[str, str]]:
    """Per table, the column list and the SELECT list writing copy ``k`` of a base row, and
    the integer offsets; ids of copied tables are mapped, unique keys kept unique."""
    shapes = {t: _introspect(cur, t) for t in CORPUS_TABLES}
    kinds = {t: dict(s["columns"]) for t, s in shapes.items()}
    offsets: dict[str, int] = {}
    for table, shape in shapes.items():
        if shape["pk"] and kinds[table][shape["pk"]] in ("bigint", "integer"):
            cur.execute(f'SELECT coalesce(max("{shape["pk"]}"), 0) + 1 FROM {table}')  # noqa: S608
            offsets[table] = cur.fetchone()[0]

    def mapped(column: str, target: str) -> str:
        pk = shapes[target]["pk"]
        if kinds[target][pk] == "uuid":
            return f"md5(\"{column}\"::text || ':' || k)::uuid"
        return f'"{column}" + k * {offsets[target]}::bigint'

    targets, selects = {}, {}
    for table, shape in shapes.items():
        exprs: dict[str, str] = {}
        for column, _kind in shape["columns"]:
            if column == shape["pk"]:
                exprs[column] = mapped(column, table)
            elif shape["fks"].get(column) in shapes:
                exprs[column] = mapped(column, shape["fks"][column])
        for unique in shape["uniques"]:
            if unique & exprs.keys():
                continue  # already unique per copy through a mapped id
            free = [c for c in unique if c not in shape["fks"]]
            uuids = [c for c in free if kinds[table][c] == "uuid"]
            texts = [c for c in free if kinds[table][c].startswith(("character", "text"))]
            for column in uuids:  # an id of a copied row held without a foreign key
                exprs[column] = f"md5(\"{column}\"::text || ':' || k)::uuid"
            for column in texts if not uuids else []:
                exprs[column] = f"\"{column}\" || '~' || k"
        names = [c for c, _ in shape["columns"]]
        targets[table] = ", ".join(f'"{c}"' for c in names)
        selects[table] = ", ".join(exprs.get(c, f'"{c}"') for c in names)
    return targets, selects


def grow_corpus(database: str, copies: int, *, target: int) -> None:
    """Append ``copies`` copies of every corpus row, with new ids, by SQL."""
    from tqdm import tqdm

    with admin_connection(database) as conn, conn.cursor() as cur:
        cur.execute("SET session_replication_role = replica")
        targets, selects = _copy_plan(cur)
        for table in CORPUS_TABLES:
            cur.execute(f"CREATE TEMP TABLE base_{table} AS SELECT * FROM {table}")  # noqa: S608
        cur.execute("SELECT count(*) FROM base_cricket_delivery")
        per_copy = cur.fetchone()[0]
        with tqdm(total=copies * per_copy, unit="delivery", unit_scale=True) as bar:
            for k in range(1, copies + 1):
                conn.execute("BEGIN")
                for table in CORPUS_TABLES:
                    cur.execute(
                        f"INSERT INTO {table} ({targets[table]}) "  # noqa: S608
                        f"SELECT {selects[table]} FROM base_{table}, (SELECT {k} AS k) n"
                    )
                conn.execute("COMMIT")
                bar.update(per_copy)
        for table in CORPUS_TABLES:  # new rows after the copies take fresh ids
            cur.execute(
                """SELECT a.attname FROM pg_attribute a WHERE a.attrelid = %s::regclass
                   AND a.attidentity <> ''""",
                [table],
            )
            for (column,) in cur.fetchall():
                cur.execute(
                    f"SELECT setval(pg_get_serial_sequence(%s, %s), "  # noqa: S608
                    f'coalesce((SELECT max("{column}") FROM {table}), 1))',
                    [table, column],
                )
        cur.execute("SET session_replication_role = DEFAULT")
        cur.execute("SELECT count(*) FROM base_sports_fixture")
        base_matches = cur.fetchone()[0]
        cur.execute(f"CREATE TABLE {MARK_TABLE} (target bigint, copies int, base_matches int)")
        cur.execute(f"INSERT INTO {MARK_TABLE} VALUES (%s, %s, %s)", [target, copies, base_matches])  # noqa: S608
        for table in CORPUS_TABLES:
            cur.execute(f"VACUUM (ANALYZE) {table}")


# -- the flat copies -------------------------------------------------------------------------


def make_flat_copies(database: str) -> dict[str, float]:
    """``bench_flat_<t>`` for each of ``FLAT_TABLES``: same columns, rows and indexes, one
    table. Returns the seconds each took."""
    spent = {}
    with admin_connection(database) as conn, conn.cursor() as cur:
        from django.conf import settings

        cur.execute(f'SET ROLE "{settings.DATABASE_OWNER["USER"]}"')
        for table in FLAT_TABLES:
            started = time.perf_counter()
            flat = f"bench_flat_{table}"
            cur.execute(
                """SELECT count(*) FROM pg_inherits h JOIN pg_index i ON i.indrelid = h.inhrelid
                    WHERE h.inhparent = %s::regclass AND NOT EXISTS (
                          SELECT 1 FROM pg_inherits x WHERE x.inhrelid = i.indexrelid)""",
                [table],
            )
            if cur.fetchone()[0]:
                print(f"warning: a partition of {table} has an index its parent lacks")
            cur.execute(f"DROP TABLE IF EXISTS {flat}")
            cur.execute(
                f"CREATE TABLE {flat} (LIKE {table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS "
                "INCLUDING IDENTITY INCLUDING GENERATED)"
            )
            cur.execute(f"INSERT INTO {flat} SELECT * FROM {table}")  # noqa: S608
            cur.execute(
                "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
                "JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = %s::regclass",
                [table],
            )
            for name, definition in cur.fetchall():
                statement = re.sub(
                    rf" ON (ONLY )?(public\.)?{table} ",
                    f" ON {flat} ",
                    definition,
                    count=1,
                ).replace(f"INDEX {name} ", f"INDEX bench_flat_{name[:50]} ", 1)
                cur.execute(statement)
            cur.execute(
                """SELECT a.attname FROM pg_attribute a WHERE a.attrelid = %s::regclass
                   AND a.attidentity <> ''""",
                [flat],
            )
            for (column,) in cur.fetchall():
                cur.execute(
                    f"SELECT setval(pg_get_serial_sequence(%s, %s), "  # noqa: S608
                    f'coalesce((SELECT max("{column}") FROM {flat}), 1))',
                    [flat, column],
                )
            cur.execute(f"VACUUM (ANALYZE) {flat}")
            spent[table] = time.perf_counter() - started
            print(f"  flat copy of {table:<32} {spent[table]:7.1f} s", flush=True)
    return spent


def drop_flat_copies() -> None:
    from django.db import connection

    from omnium.db import as_owner

    connection.close()
    with as_owner(), connection.cursor() as cursor:
        for table in FLAT_TABLES:
            cursor.execute(f"DROP TABLE IF EXISTS bench_flat_{table}")


_NAMES = re.compile(r'(?<![\w"])("?)(' + "|".join(FLAT_TABLES) + r")\1(?!\w)")


@contextmanager
def flat() -> Iterator[list[int]]:
    """Every statement of the block names the flat copies instead of the live tables.
    Yields a one-item list counting the statements rewritten."""
    from django.db import connection

    rewritten = [0]

    def wrapper(execute, sql, params, many, context):
        new = _NAMES.sub(lambda m: f"{m[1]}bench_flat_{m[2]}{m[1]}", sql)
        if new != sql:
            rewritten[0] += 1
        return execute(new, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield rewritten


def both(name: str, read: Callable[[Any], object], items: list, *, runs: int):
    """The read's median over ``items`` (in turn) on the live tables and, when it reads one
    of them, on the flat copies, the two timed alternately; the two answers for the first
    item must agree. The flat figure is None for a read that touches none of them."""
    live_answer = read(items[0])
    with flat() as rewritten:
        flat_answer = read(items[0])
    if rewritten[0] and repr(live_answer) != repr(flat_answer):
        raise SystemExit(f"bench-scale: the {name} read differs on the flat copies")
    live, flats = [], []
    for item in (items * (runs // len(items) + 1))[:runs]:
        for samples, rewrite in (
            ((live, False), (flats, True)) if rewritten[0] else ((live, False),)
        ):
            with flat() if rewrite else nullcontext():
                started = time.perf_counter()
                read(item)
                samples.append((time.perf_counter() - started) * 1000)
    live_ms = statistics.median(live)
    flat_ms = statistics.median(flats) if flats else None
    shown = f"{flat_ms:9.2f} ms" if flat_ms is not None else "(reads none)"
    print(f"{name:<10} live {live_ms:9.2f} ms   flat {shown}", flush=True)
    return live_ms, flat_ms


# -- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scale", type=float, default=1.0,
        help="1 = 10M observations and 10x the dev corpus's deliveries",
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=300, help="matches imported (no template)")
    parser.add_argument(
        "--template",
        default=CORPUS_TEMPLATE,
        help=f"an imported corpus database to copy (default {CORPUS_TEMPLATE} when it exists;"
        " 'none' imports --limit matches instead)",
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--archive",
        type=Path,
        default=next((p for p in ARCHIVES if p.exists()), ARCHIVES[0]),
    )
    args = parser.parse_args()
    bench.stats.ARCHIVE = args.archive
    args.template = usable_template(args.template)
    observations_wanted = bench.prices.filled_count(round(OBSERVATIONS * args.scale))
    deliveries_wanted = round(CORPUS_FACTOR * DEV_DELIVERIES * args.scale)

    if args.template:
        bench.stats.copy_template(DATABASE, args.template)
    setup_django(DATABASE)
    from django.db import connection

    with connection.cursor() as cursor:
        observations, target, base_matches = held(cursor)
        cursor.execute("SELECT count(*) FROM catalogue_retailer")
        started = observations or target or cursor.fetchone()[0]
    reuse = (
        observations == observations_wanted
        and target == deliveries_wanted
        and (args.template or base_matches >= args.limit)
    )
    if reuse:
        print(f"reusing {observations:,} observations and the grown corpus", flush=True)
    else:
        if started:  # a fill, whole or broken off
            drop_database(DATABASE)
            if args.template:
                bench.stats.copy_template(DATABASE, args.template)
            setup_django(DATABASE)
        print(f"generating {observations_wanted:,} observations ...", flush=True)
        bench.prices.generate(round(OBSERVATIONS * args.scale))
        grow(args, deliveries_wanted)
    report(args)


def grow(args: argparse.Namespace, deliveries_wanted: int) -> None:
    from django.db import connection

    from cricket.stats.models import CricketMatchSide
    from cricket.stats.refresh import statistics_rebuild_all

    if not args.template:
        bench.stats.load(args.limit)
    if not CricketMatchSide.objects.exists():
        started = time.perf_counter()
        statistics_rebuild_all(reason="bench-scale", actor="integration:bench")
        print(f"statistic lines built in {time.perf_counter() - started:.1f} s", flush=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM cricket_delivery")
        base = cursor.fetchone()[0]
    copies = max(1, math.ceil(deliveries_wanted / max(base, 1))) - 1
    print(f"{base:,} deliveries imported; appending {copies} copies ...", flush=True)
    connection.close()
    started = time.perf_counter()
    grow_corpus(DATABASE, copies, target=deliveries_wanted)
    print(f"corpus grown in {time.perf_counter() - started:.1f} s", flush=True)


def report(args: argparse.Namespace) -> None:
    from django.db import connection, transaction
    from django.db.models import Count

    from catalogue.models import Listing, Product
    from catalogue.selectors import product_price_history
    from cricket.charts import scorecard_charts
    from cricket.selectors import fixture_scorecard
    from cricket.stats.models import CricketBattingLine
    from cricket.stats.selectors import player_career, player_innings
    from sports.models import Fixture, Participant, TimelineItem

    print("making the flat copies ...", flush=True)
    make_flat_copies(DATABASE)
    connection.close()
    with connection.cursor() as cursor:
        sizes = {}
        for table in FLAT_TABLES:
            cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608
            sizes[table] = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM sports_fixture")
        fixtures = cursor.fetchone()[0]
    print(", ".join(f"{t} {n:,}" for t, n in sizes.items()), flush=True)

    rng = random.Random(20261203)
    runs = args.runs
    products = list(
        Product.objects.exclude(name_key__startswith="bench history").values_list("id", flat=True)
    )
    picks = [rng.choice(products) for _ in range(5)]
    histories = list(Product.objects.filter(name_key__startswith="bench history"))
    public = Fixture.objects.public().filter(sport__code="cricket")
    fixture_ids = list(public.values_list("pk", flat=True))
    cards = [rng.choice(fixture_ids) for _ in range(5)]
    for pk in cards:  # lines current before timing (the read rebuilds stale ones)
        fixture_scorecard(Fixture.objects.get(pk=pk))
    top = (
        CricketBattingLine.objects.values("participant_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .values_list("participant_id", flat=True)[:5]
    )
    players = list(Participant.objects.filter(pk__in=list(top)))

    def latest(product_id):
        return [
            (row.pk, row.latest)
            for row in Listing.objects.filter(product_id=product_id).visible().latest_prices()
        ]

    def history(product):
        return product_price_history(product, currency="EUR")

    def career(person):
        return player_career(person), [line.pk for line in player_innings(person)]

    def scorecard(pk):
        fixture = Fixture.objects.get(pk=pk)
        cards = fixture_scorecard(fixture)
        charts = scorecard_charts(
            fixture.pk,
            {c.ordinal: c.team for c in cards if not c.super_over},
        )
        return cards, charts

    def timeline(pk):
        return list(
            TimelineItem.objects.filter(fixture_id=pk)
            .order_by("seq", "id")
            .values_list("id", "seq", "event_type")
        )

    figures: dict[str, float | None] = {}
    for name, read, items in (
        ("latest", latest, picks),
        ("history", history, histories),
        ("career", career, players),
        ("scorecard", scorecard, cards),
        ("timeline", timeline, cards),
    ):
        figures[f"{name}_ms"], figures[f"{name}_flat_ms"] = both(name, read, items, runs=runs)

    with connection.cursor() as cursor:
        cursor.execute("SELECT max(observed_at) FROM catalogue_priceobservation")
        last = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM catalogue_listing")
        listings = cursor.fetchone()[0]

    def insert_day(_item) -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(INSERT_DAY_SQL, [last])
            transaction.set_rollback(True)

    print(f"a day's observations: {listings:,} rows", flush=True)
    figures["insert_day_ms"], figures["insert_day_flat_ms"] = both(
        "insert_day", insert_day, [None], runs=max(3, runs // 3)
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = %s::regclass", [FLAT_TABLES[0]])
        partitioned = cursor.fetchone()[0] == "p"
    print(
        closing_line(
            "scale",
            scale=f"{args.scale:g}",
            observations=sizes["catalogue_priceobservation"],
            deliveries=sizes["cricket_delivery"],
            fixtures=fixtures,
            partitioned="yes" if partitioned else "no",
            **{key: f"{value:.2f}" for key, value in figures.items() if value is not None},
            load=bench.prices.load_average(),
        )
    )
    drop_flat_copies()


if __name__ == "__main__":
    main()
