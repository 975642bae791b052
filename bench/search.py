"""bench-search: site search over the dev data and over a 100k-product catalogue, against a
plain ``ILIKE '%…%'`` over the same names in the same run.

A benchmark database of its own holds ``make run``'s samples (ingest/samples.py, loaded once
through the real import code). Two rounds of 200 queries each, written by misspelling real
names (a swapped or dropped letter, a changed vowel, accents and case dropped, only the first
words), chosen with a fixed seed:

- dev: names of the public records of the samples;
- catalogue: the samples plus 100,000 generated products (brand, line, form and size drawn
  from word lists, each with a visible listing), made inside a transaction that is rolled
  back at the end, so the database keeps only the samples.

Timed per query, in-process: ``search.selectors.site_search`` (every group), and the
baseline, one ``ILIKE '%query%'`` statement per searched table (the unindexed substring
match the catalogue's own list filter uses), both in a transaction of their own. Also
counted: how often search puts the misspelled record first, and how often ILIKE finds it
at all. The closing line gives the catalogue round's p50 and p95 and the ratio of search's
p95 to the baseline's (below 1: search is the faster); ``dev_*`` the same for the dev round.
The target is p95 <= 50 ms.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import closing_line, fresh_database, percentile

DATABASE = "omnium_bench_search"
QUERIES = 200
PRODUCTS = 100_000
SEED = 2026
TARGET_P95_MS = 50

# The tables search reads, as (table, text, label) for the baseline.
BASELINE = [
    ("sports_competition", "name", "name"),
    ("sports_participant", "name", "name"),
    ("sports_participantalias", "name", "name"),
    ("sports_venue", "name", "name"),
    ("catalogue_product", "brand_name || ' ' || name", "name"),
    ("catalogue_brand", "name", "name"),
    ("discussions_article", "title", "title"),
]


def _words(text: str) -> list[str]:
    return text.split()


SYLLABLES = _words("mar lo ve ti cha nel ro sa be qua dor fi ga li mon te ser ka zu pe")
ACCENTED = ["Côte", "Hélène", "Maison Noël", "Åsa", "Lancôme", "Château", "Müller", "Peña"]
LINES = _words(
    """Aurora Boreal Celeste Dune Ember Fable Glacier Harbour Indigo Juniper Kestrel Lumen
    Meridian Nocturne Opal Prism Quartz Riviera Solstice Tempest Umbra Velvet Willow Zephyr
    Amber Blossom Cedar Drift Eclipse Fern Garnet Haven Iris Jade Karma Lotus Mirage Nectar
    Orchid Pearl Quill Rose Sable Topaz Unity Vesper Wild Xenia Yarrow Zenith Acacia Bramble
    Citrine Dahlia Elixir Flint Gale Heather Ivory Jasmine Kelp Lagoon Magnolia Nimbus Onyx
    Poppy Raven Saffron Thistle Umber Violet Wisteria Yuzu Zinnia Alpine Coral Dusk Echo"""
)
FORMS = [
    "Eau de Parfum",
    "Eau de Toilette",
    "Parfum Intense",
    "Cologne",
    "Single Malt 12 Year Old",
    "Blended Scotch Whisky",
    "London Dry Gin",
    "Dark Chocolate 70%",
    "Milk Chocolate",
    "Pralines Selection",
    "Vodka",
    "Aged Rum",
    "Body Lotion",
]
SIZES = ["30 ml", "50 ml", "100 ml", "200 ml", "0.7 l", "1 l", "100 g", "250 g", "4 x 100 g"]


def brand_names(rng: random.Random) -> list[str]:
    names = {
        " ".join(
            "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).title()
            for _ in range(rng.randint(1, 2))
        )
        for _ in range(200)
    }
    return sorted(names)[:92] + ACCENTED


def generate_catalogue(rng: random.Random) -> None:
    """100k products with one visible listing each, in SQL (random UUIDs: bench data only)."""
    from django.db import connection

    brands = brand_names(rng)
    steps: list[tuple[str, list]] = [
        # Rows inserted after CREATE INDEX wait in each GIN index's pending list; a real
        # catalogue has had them merged by autovacuum long ago. The smallest pending list
        # merges them as they come (cleaning the list afterwards needs the index's owner).
        ("SET LOCAL gin_pending_list_limit = 64", []),
        (
            "INSERT INTO catalogue_retailer (id, slug, name, operator, homepage, created_at, "
            "updated_at) VALUES (gen_random_uuid(), 'bench-search', 'Bench Search Duty Free', "
            "'', '', now(), now())",
            [],
        ),
        (
            """INSERT INTO catalogue_location (id, retailer_id, code, iata, name, city, country,
            currency, is_catalogue_only, visible, created_at, updated_at)
            SELECT gen_random_uuid(), r.id, 'bench-search', 'BSX', 'Bench Search', '', '',
            'EUR', false, true, now(), now() FROM catalogue_retailer r
            WHERE r.slug = 'bench-search'""",
            [],
        ),
        (
            """INSERT INTO catalogue_product (id, match_key, brand_name, brand_key, name, name_key,
            vertical, category, form, quantity_state, attributes, identity_rules_version,
            gtin_source, country_of_origin, is_exclusive, image_url, thumb_url, image_source,
            image_checked, size_unit, quantity_unit, created_at, updated_at)
            SELECT gen_random_uuid(), 'bench-search|' || g, b, lower(b), n, lower(n),
            'fragrance', 'Bench', 'single', 'none', '{}', 1, '', '', false, '', '', '', false,
            '', '', now(), now()
            FROM generate_series(1, %s) g,
            LATERAL (SELECT (%s::text[])[1 + g %% cardinality(%s::text[])] AS b) brand,
            LATERAL (SELECT (%s::text[])[1 + (g / 7) %% cardinality(%s::text[])] || ' '
                         || (%s::text[])[1 + (g / 11) %% cardinality(%s::text[])] || ' '
                         || (%s::text[])[1 + (g / 3) %% cardinality(%s::text[])] AS n) name""",
            [PRODUCTS, brands, brands, LINES, LINES, FORMS, FORMS, SIZES, SIZES],
        ),
        (
            """INSERT INTO catalogue_listing (id, product_id, location_id, source_sku, url,
            pin_reason, ignore_reason, created_at, updated_at)
            SELECT gen_random_uuid(), p.id, loc.id, p.match_key, '', '', '', now(), now()
            FROM catalogue_product p, catalogue_location loc
            WHERE loc.code = 'bench-search' AND p.match_key LIKE 'bench-search|%%'""",
            [],
        ),
        # As the application role, through the owner's omnium_analyze (omnium.db.analyze).
        ("SELECT omnium_analyze(%s)", [["catalogue_product", "catalogue_listing"]]),
    ]
    with connection.cursor() as cursor:
        for step, params in steps:
            started = time.perf_counter()
            cursor.execute(step, params or None)
            label = " ".join(step.split()[:3])
            print(f"  {label:<48} {time.perf_counter() - started:7.1f} s", flush=True)


def load_samples() -> None:
    from ingest.samples import SAMPLE_LOADERS
    from sports.models import Fixture

    if Fixture.objects.exists():
        print("  samples already loaded", flush=True)
        return
    for label, loader in SAMPLE_LOADERS:
        started = time.perf_counter()
        print(f"  {label}: {loader()} ({time.perf_counter() - started:.1f} s)", flush=True)


def misspell(name: str, rng: random.Random) -> str:
    """A name as a visitor might type it: folded, at most three words, one slip."""
    folded = "".join(
        ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch)
    ).lower()
    words = folded.split()[: rng.randint(2, 3)] or [folded]
    i = max(range(len(words)), key=lambda k: len(words[k]))
    word = words[i]
    if len(word) >= 5:
        j = rng.randrange(1, len(word) - 2)
        vowels = [k for k in range(1, len(word)) if word[k] in "aeiou"]
        slip = rng.choice(("swap", "drop", "vowel", "double"))
        if slip == "swap":
            word = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
        elif slip == "drop":
            word = word[:j] + word[j + 1 :]
        elif slip == "vowel" and vowels:
            k = rng.choice(vowels)
            word = word[:k] + rng.choice([v for v in "aeiou" if v != word[k]]) + word[k + 1 :]
        else:
            word = word[:j] + word[j] + word[j:]
    words[i] = word
    return " ".join(words)


def dev_targets(rng: random.Random) -> list[tuple[str, str]]:
    """(record id, name) of public records of every kind, drawn evenly."""
    from search.sources import SOURCES

    pools = []
    for source in SOURCES:
        label = "title" if source.key == "articles" else "name"
        rows = [(str(pk), name) for pk, name in source.public().values_list("pk", label)]
        if rows:
            pools.append(rows)
    return [rng.choice(rng.choice(pools)) for _ in range(QUERIES)]


def catalogue_targets(rng: random.Random) -> list[tuple[str, str]]:
    from catalogue.models import Product

    keys = [f"bench-search|{g}" for g in rng.sample(range(1, PRODUCTS + 1), QUERIES)]
    rows = Product.objects.filter(match_key__in=keys).values_list("pk", "brand_name", "name")
    return [(str(pk), f"{brand} {name}") for pk, brand, name in rows]


def ilike(query: str) -> set[str]:
    from django.db import connection, transaction

    pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    found: set[str] = set()
    with transaction.atomic(), connection.cursor() as cursor:
        for table, text, label in BASELINE:
            owner = "participant_id" if table == "sports_participantalias" else "id"
            cursor.execute(
                # The table names and expressions are this module's constants.
                f"SELECT {owner} FROM {table} WHERE {text} ILIKE %s ORDER BY {label} LIMIT 5",  # noqa: S608
                [pattern],
            )
            found.update(str(row[0]) for row in cursor.fetchall())
    return found


def run(label: str, targets: list[tuple[str, str]], rng: random.Random) -> dict[str, float]:
    from search.selectors import search_query_clean, site_search

    queries = [(pk, name, search_query_clean(misspell(name, rng))) for pk, name in targets]
    for _pk, _name, query in queries[:5]:  # warm the connection, the plans and the caches
        site_search(query)
        ilike(query)
    searched, baseline, first, anywhere = [], [], 0, 0
    for pk, name, query in queries:
        started = time.perf_counter()
        top = site_search(query).top
        searched.append((time.perf_counter() - started) * 1000)
        first += top is not None and (top.id == pk or top.name == name)
        started = time.perf_counter()
        anywhere += pk in ilike(query)
        baseline.append((time.perf_counter() - started) * 1000)
    figures = {
        "p50": percentile(searched, 0.5),
        "p95": percentile(searched, 0.95),
        "ilike_p50": percentile(baseline, 0.5),
        "ilike_p95": percentile(baseline, 0.95),
    }
    print(
        f"  {label}: search p50 {figures['p50']:.1f} ms, p95 {figures['p95']:.1f} ms, "
        f"mean {statistics.mean(searched):.1f} ms; found first {first}/{len(queries)}",
        flush=True,
    )
    print(
        f"  {label}: ILIKE  p50 {figures['ilike_p50']:.1f} ms, p95 {figures['ilike_p95']:.1f}"
        f" ms; found at all {anywhere}/{len(queries)}",
        flush=True,
    )
    for _pk, name, query in queries[:5]:
        print(f"    e.g. {query!r} for {name!r}")
    return figures


def main() -> None:
    # A new database each run: the generated catalogue is rolled back, and its dead rows
    # (which only the tables' owner could vacuum) would slow the next run's scans.
    fresh_database(DATABASE)
    from django.db import transaction

    print("bench-search: samples", flush=True)
    load_samples()
    rng = random.Random(SEED)
    dev = run("dev data", dev_targets(rng), rng)
    with transaction.atomic():
        print(f"bench-search: generating {PRODUCTS:,} products (rolled back at the end)")
        generate_catalogue(rng)
        big = run("100k catalogue", catalogue_targets(rng), rng)
        transaction.set_rollback(True)
    print(f"  target: p95 <= {TARGET_P95_MS} ms on the 100k catalogue")
    print(
        closing_line(
            "search",
            p50_ms=f"{big['p50']:.1f}",
            p95_ms=f"{big['p95']:.1f}",
            ratio=f"{big['p95'] / big['ilike_p95']:.2f}",
            dev_p50_ms=f"{dev['p50']:.1f}",
            dev_p95_ms=f"{dev['p95']:.1f}",
            dev_ratio=f"{dev['p95'] / dev['ilike_p95']:.2f}",
        )
    )


if __name__ == "__main__":
    main()
