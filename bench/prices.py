"""bench-prices: a product page's latest prices and price history at 10M observations,
each against the naive query.

Fills a benchmark database of its own with ``--observations`` price observations (default
10M), unless it already holds exactly that many (the observations are append-only and never
truncated, so a refill drops the benchmark database and migrates a new one):

- ``HISTORY_PRODUCTS`` products with five years of daily prices at 10 airports each (half
  in GBP, half in EUR, each with its recorded USD rate), appended day by day across all
  their shops as collection runs append them, with a daily EUR and GBP rate table;
- the rest as 100 observations for each of 5 listings per product at 50 airports.

Then times on the same database in the same run:

- latest: what the product page runs, ``Listing.objects.filter(product=p).visible()
  .latest_prices()`` (one backward probe of the (listing, observed_at) index per listing);
- naive: the textbook max-per-group, ``max(observed_at) ... GROUP BY listing_id`` joined back
  to the observations and filtered to the product's listings;
- history: what the product page's chart reads, ``product_price_history(p, currency="EUR")``:
  a history product's 18,260 observations as each shop's last price of each week (five
  years is past the daily limit), read from the stored weekly closes the observations'
  triggers keep (``catalogue.price_closes``), converted at each one's own day in the same
  statement (two queries); checked against the naive SQL over the raw observations;
- history day: the same product's last 90 days, ``since=`` 90 days before its last: 900 day
  points, read from the observations' (listing, observed_at) index (no day close is
  stored), in the same two queries; checked the same way;
- history naive: the same points in SQL, converted with the textbook correlated lookup of
  the latest rate on or before each observation's day;
- history page: one API page (200 rows) of ``PriceObservation.objects.of_product(p)
  .in_currency("EUR")`` in the API's (observed_at, id) order.

Prints the medians and the ratios naive / fast.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import closing_line, median_ms, setup_django
from omnium.db import as_owner

LOCATIONS = 50
LISTINGS_PER_PRODUCT = 5
OBSERVATIONS_PER_LISTING = 100
# Five years of daily prices at ten airports, for the history read.
HISTORY_PRODUCTS = 5
HISTORY_SHOPS = 10
HISTORY_FIRST_DAY = "2021-01-01"
HISTORY_DAYS = 1826
HISTORY_OBSERVATIONS = HISTORY_PRODUCTS * HISTORY_SHOPS * HISTORY_DAYS
# A chart of the last 90 days: day points, read from the observations.
HISTORY_DAY_SPAN = 90
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)

# The naive points by ``{unit}`` (week or day) from a moment on.
HISTORY_NAIVE_SQL = """
SELECT DISTINCT ON (o.listing_id, date_trunc('{unit}', o.observed_at AT TIME ZONE 'UTC'))
       o.listing_id, o.observed_at, o.price, o.currency,
       round(o.price_usd / eur.rate_to_usd, 2)
FROM catalogue_priceobservation o
JOIN catalogue_listing l ON l.id = o.listing_id
JOIN catalogue_location loc ON loc.id = l.location_id
CROSS JOIN LATERAL (
    SELECT rate_to_usd FROM catalogue_fxrate r
    WHERE r.currency = 'EUR' AND r.as_of <= (o.observed_at AT TIME ZONE 'UTC')::date
    ORDER BY r.as_of DESC, r.source LIMIT 1
) eur
WHERE l.product_id = %s AND l.ignored_at IS NULL AND loc.visible AND o.observed_at >= %s
ORDER BY o.listing_id, date_trunc('{unit}', o.observed_at AT TIME ZONE 'UTC'), o.observed_at DESC
"""

NAIVE_SQL = """
SELECT o.id, o.listing_id, o.price, o.currency, o.price_usd, o.observed_at
FROM catalogue_priceobservation o
JOIN (
    SELECT listing_id, max(observed_at) AS last_seen
    FROM catalogue_priceobservation
    GROUP BY listing_id
) latest ON latest.listing_id = o.listing_id AND latest.last_seen = o.observed_at
JOIN catalogue_listing l ON l.id = o.listing_id
JOIN catalogue_location loc ON loc.id = l.location_id
WHERE l.product_id = %s AND l.ignored_at IS NULL AND loc.visible
"""


def filled_count(observations: int) -> int:
    """How many observations ``generate(observations)`` writes: whole listings of
    ``OBSERVATIONS_PER_LISTING``, whole products of ``LISTINGS_PER_PRODUCT``, plus the history
    products' (10M asked is 9,999,800 written). A refill is decided on this, not on the
    figure asked for, or every run would drop and refill the database."""
    listings = max(0, observations - HISTORY_OBSERVATIONS) // OBSERVATIONS_PER_LISTING
    products = max(1, listings // LISTINGS_PER_PRODUCT)
    return products * LISTINGS_PER_PRODUCT * OBSERVATIONS_PER_LISTING + HISTORY_OBSERVATIONS


def generate(observations: int) -> None:
    """Bulk-fill the catalogue tables in SQL (ids are random UUIDs: bench data only)."""
    from django.db import connection

    listings = max(0, observations - HISTORY_OBSERVATIONS) // OBSERVATIONS_PER_LISTING
    products = max(1, listings // LISTINGS_PER_PRODUCT)
    steps: list[tuple[str, list[object]]] = [
        (
            "INSERT INTO catalogue_retailer (id, slug, name, operator, homepage, created_at, "
            "updated_at) VALUES (gen_random_uuid(), 'bench', 'Bench Duty Free', '', '', now(), "
            "now())",
            [],
        ),
        (
            """INSERT INTO catalogue_location (id, retailer_id, code, iata, name, city, country,
            currency, is_catalogue_only, visible, created_at, updated_at)
            SELECT gen_random_uuid(), r.id, 'bench-' || lpad(g::text, 2, '0'),
            chr(65 + g %% 26) || chr(65 + g / 26) || 'X', 'Bench ' || g, '', '',
            CASE WHEN g < %s AND g %% 2 = 1 THEN 'GBP' ELSE 'EUR' END, false, true, now(), now()
            FROM catalogue_retailer r, generate_series(0, %s - 1) g""",
            [HISTORY_SHOPS, LOCATIONS],
        ),
        (
            """INSERT INTO catalogue_product (id, match_key, brand_name, brand_key, name, name_key,
            vertical, category, form, quantity_state, quantity_value, quantity_unit, size_unit,
            attributes, identity_rules_version, gtin_source, country_of_origin, is_exclusive,
            image_url, thumb_url, image_source, image_checked, created_at, updated_at)
            SELECT gen_random_uuid(), 'bench|line ' || g || '||100ml', 'Bench', 'bench',
            'Bench product ' || g, 'bench product ' || g, 'fragrance', 'Fragrance', 'single',
            'stated', 100, 'ml', '', '{}', 1, '', '', false, '', '', '', false, now(), now()
            FROM generate_series(1, %s) g""",
            [products],
        ),
        (
            """INSERT INTO catalogue_listing (id, product_id, location_id, source_sku, url,
            pin_reason, ignore_reason, created_at, updated_at)
            SELECT gen_random_uuid(), p.id, loc.id, p.name_key || ' @' || k, '', '', '',
                   now(), now()
            FROM catalogue_product p
            CROSS JOIN generate_series(0, %s - 1) k
            JOIN LATERAL (
                SELECT id FROM catalogue_location
                ORDER BY code OFFSET (abs(hashtext(p.name_key)) + k * 7) %% %s LIMIT 1
            ) loc ON true""",
            [LISTINGS_PER_PRODUCT, LOCATIONS],
        ),
        (
            """INSERT INTO catalogue_priceobservation (listing_id, price, currency, price_usd,
            fx_rate, price_type, observed_at, source_kind)
            SELECT l.id, round((20 + random() * 200)::numeric, 2), 'EUR', NULL, NULL, 'regular',
                   timestamptz '2024-01-01'
                   + make_interval(hours => g * 24 + (random() * 20)::int), 'feed'
            FROM catalogue_listing l
            CROSS JOIN generate_series(1, %s) g
            ORDER BY l.id, g""",
            [OBSERVATIONS_PER_LISTING],
        ),
        (
            """INSERT INTO catalogue_product (id, match_key, brand_name, brand_key, name, name_key,
            vertical, category, form, quantity_state, quantity_value, quantity_unit, size_unit,
            attributes, identity_rules_version, gtin_source, country_of_origin, is_exclusive,
            image_url, thumb_url, image_source, image_checked, created_at, updated_at)
            SELECT gen_random_uuid(), 'bench|history ' || g || '||100ml', 'Bench', 'bench',
            'Bench history ' || g, 'bench history ' || g, 'fragrance', 'Fragrance', 'single',
            'stated', 100, 'ml', '', '{}', 1, '', '', false, '', '', '', false, now(), now()
            FROM generate_series(1, %s) g""",
            [HISTORY_PRODUCTS],
        ),
        (
            """INSERT INTO catalogue_listing (id, product_id, location_id, source_sku, url,
            pin_reason, ignore_reason, created_at, updated_at)
            SELECT gen_random_uuid(), p.id, loc.id, p.name_key || ' @' || loc.code, '', '', '',
                   now(), now()
            FROM catalogue_product p
            JOIN catalogue_location loc ON loc.code < 'bench-' || lpad(%s::text, 2, '0')
            WHERE p.name_key LIKE 'bench history %%'""",
            [HISTORY_SHOPS],
        ),
        (
            """INSERT INTO catalogue_fxrate (currency, rate_to_usd, as_of, source, created_at)
            SELECT c.currency, round((c.base + 0.05 * sin(d / 40.0))::numeric, 6),
                   date %s + d, 'bench', now()
            FROM (VALUES ('EUR', 1.12), ('GBP', 1.28)) c(currency, base)
            CROSS JOIN generate_series(-10, %s) d""",
            [HISTORY_FIRST_DAY, HISTORY_DAYS],
        ),
        (
            # Day by day across every history shop, as daily collection runs append them.
            """INSERT INTO catalogue_priceobservation (listing_id, price, currency, price_usd,
            fx_rate, price_type, observed_at, source_kind)
            SELECT l.id, x.price, loc.currency, round(x.price * r.rate_to_usd, 2), r.rate_to_usd,
                   'regular', timestamptz %s + make_interval(days => d, hours => 6), 'feed'
            FROM catalogue_listing l
            JOIN catalogue_location loc ON loc.id = l.location_id
            JOIN catalogue_product p ON p.id = l.product_id AND p.name_key LIKE 'bench history %%'
            CROSS JOIN generate_series(0, %s - 1) d
            JOIN catalogue_fxrate r ON r.currency = loc.currency AND r.as_of = date %s + d
            CROSS JOIN LATERAL (SELECT round((60 + 20 * random())::numeric, 2) AS price) x
            ORDER BY d, l.id""",
            [HISTORY_FIRST_DAY, HISTORY_DAYS, HISTORY_FIRST_DAY],
        ),
    ]
    with connection.cursor() as cursor:
        for step, params in steps:
            started = time.perf_counter()
            cursor.execute(step, params or None)
            label = " ".join(step.split()[:3])
            print(f"  {label:<40} {time.perf_counter() - started:7.1f} s", flush=True)
    # Only the tables' owner may vacuum and analyze them (omnium/dbroles.py). The vacuum
    # sets the visibility map an append-only table keeps, as autovacuum would.
    with as_owner(), connection.cursor() as cursor:
        for table in ("location", "product", "listing", "fxrate", "priceobservation", "priceclose"):
            started = time.perf_counter()
            cursor.execute(f"VACUUM (ANALYZE) catalogue_{table}")
            print(f"  {'VACUUM ANALYZE ' + table:<40} {time.perf_counter() - started:7.1f} s")


def drop_database() -> None:
    """Drop the benchmark database (never the development one): observations are never
    truncated, so a refill starts from a new database."""
    import psycopg
    from django.db import connection

    from omnium.dbroles import admin_url, connect_params

    name = connection.settings_dict["NAME"]
    if not name.startswith("omnium_bench"):
        raise SystemExit(f"bench-prices: refusing to drop {name!r}, not a benchmark database")
    connection.close()
    url = os.environ["DATABASE_URL"]
    with psycopg.connect(
        **connect_params(admin_url(url, os.environ.get("DATABASE_ADMIN_URL")), "postgres")
    ) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)'.encode())
    print(f"dropped the benchmark database {name!r}")


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=200, help="timed product pages (latest)")
    parser.add_argument("--naive-runs", type=int, default=5, help="timed naive queries")
    parser.add_argument("--history-runs", type=int, default=30, help="timed history reads")
    args = parser.parse_args()

    setup_django("omnium_bench_prices")
    from django.db import connection

    from catalogue.models import Listing, PriceObservation, Product, Retailer
    from catalogue.selectors import product_price_history

    held = PriceObservation.objects.count()
    if held != filled_count(args.observations):
        if held or Retailer.objects.exists():  # a fill, whole or broken off
            drop_database()
            setup_django("omnium_bench_prices")
        print(f"generating {args.observations:,} observations (database held {held:,}) ...")
        generate(args.observations)
    else:
        print(f"reusing the {held:,} observations already generated")
    n = PriceObservation.objects.count()

    product_ids = list(
        Product.objects.exclude(name_key__startswith="bench history").values_list("id", flat=True)
    )
    rng = random.Random(20260105)
    sample = [rng.choice(product_ids) for _ in range(max(args.runs, args.naive_runs) + 10)]
    latest_iter = iter(sample)
    naive_iter = iter(sample)

    def latest():
        return list(Listing.objects.filter(product_id=next(latest_iter)).visible().latest_prices())

    def naive():
        with connection.cursor() as cursor:
            cursor.execute(NAIVE_SQL, [next(naive_iter)])
            return cursor.fetchall()

    probe = sample[0]
    fast = {
        (row.pk, row.latest.observed_at)
        for row in Listing.objects.filter(product_id=probe).visible().latest_prices()
    }
    with connection.cursor() as cursor:
        cursor.execute(NAIVE_SQL, [probe])
        slow = {(row[1], row[5]) for row in cursor.fetchall()}
    assert fast == slow, "the two queries disagree on the latest observations"

    latest_ms = median_ms(latest, runs=args.runs, warmup=5)
    naive_ms = median_ms(naive, runs=args.naive_runs, warmup=1)
    print(f"product page latest prices: median {latest_ms:.3f} ms over {args.runs} products")
    print(f"naive max-per-group:        median {naive_ms:.1f} ms over {args.naive_runs} products")

    histories = list(Product.objects.filter(name_key__startswith="bench history"))
    day_since = date.fromisoformat(HISTORY_FIRST_DAY) + timedelta(
        days=HISTORY_DAYS - HISTORY_DAY_SPAN
    )
    cycle = iter(histories * (args.history_runs + 10))

    def history():
        return product_price_history(next(cycle), currency="EUR")

    def history_naive():
        with connection.cursor() as cursor:
            cursor.execute(HISTORY_NAIVE_SQL.format(unit="week"), [next(cycle).pk, EPOCH])
            return cursor.fetchall()

    def history_day():
        return product_price_history(next(cycle), currency="EUR", since=day_since)

    def history_page():
        return list(
            PriceObservation.objects.of_product(next(cycle).pk)
            .select_related("listing__location__retailer")
            .in_currency("EUR")
            .filter(observed_at__gte=datetime(2023, 6, 1, tzinfo=UTC))
            .order_by("observed_at", "id")[:200]
        )

    probe = history()
    points = sum(len(h.points) for h in probe.shops)
    shops = len(probe.shops)
    day_probe = history_day()
    day_points = sum(len(h.points) for h in day_probe.shops)
    assert not day_probe.weekly and day_points == HISTORY_SHOPS * HISTORY_DAY_SPAN
    for unit, since in (("week", None), ("day", day_since)):
        start = datetime.combine(since, datetime.min.time(), tzinfo=UTC) if since else EPOCH
        with connection.cursor() as cursor:
            cursor.execute(HISTORY_NAIVE_SQL.format(unit=unit), [histories[-1].pk, start])
            slow_rows = cursor.fetchall()
        fast_rows = [
            (h.listing.pk, p.observed_at, p.display_price)
            for h in product_price_history(histories[-1], currency="EUR", since=since).shops
            for p in h.points
        ]
        assert sorted(fast_rows) == sorted((r[0], r[1], r[4]) for r in slow_rows), (
            f"the history read and the naive SQL disagree ({unit} points)"
        )
    history_ms = median_ms(history, runs=args.history_runs, warmup=3)
    # This process's own CPU for the read (the client's share; the machine may be busy).
    cpu = []
    for _ in range(args.history_runs):
        started = time.process_time()
        history()
        cpu.append((time.process_time() - started) * 1000)
    history_cpu_ms = sorted(cpu)[len(cpu) // 2]
    history_day_ms = median_ms(history_day, runs=args.history_runs, warmup=3)
    history_naive_ms = median_ms(history_naive, runs=args.naive_runs, warmup=1)
    page_ms = median_ms(history_page, runs=args.history_runs, warmup=3)
    print(
        f"price history ({points:,} points at {shops} shops, EUR): median {history_ms:.1f} ms "
        f"over {args.history_runs} reads ({history_cpu_ms:.1f} ms of it this process's CPU)"
    )
    print(
        f"price history of {HISTORY_DAY_SPAN} days ({day_points:,} day points, EUR): "
        f"median {history_day_ms:.1f} ms"
    )
    print(f"naive per-point rate lookup in SQL:   median {history_naive_ms:.1f} ms")
    print(f"one API page of 200 observations:     median {page_ms:.2f} ms")
    print(
        closing_line(
            "prices",
            observations=n,
            latest_ms=f"{latest_ms:.3f}",
            naive_ms=f"{naive_ms:.1f}",
            ratio=f"{naive_ms / latest_ms:.1f}",
            history_points=points,
            history_ms=f"{history_ms:.1f}",
            history_cpu_ms=f"{history_cpu_ms:.1f}",
            history_day_ms=f"{history_day_ms:.1f}",
            history_naive_ms=f"{history_naive_ms:.1f}",
            history_ratio=f"{history_naive_ms / history_ms:.1f}",
            history_page_ms=f"{page_ms:.2f}",
            load=load_average(),
        )
    )


if __name__ == "__main__":
    main()
