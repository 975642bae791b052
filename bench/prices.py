"""bench-prices: a product page's latest prices at 10M observations, against the naive query.

Fills a benchmark database of its own with ``--observations`` price observations (default
10M: 20,000 products x 5 listings x 100 observations each, 50 airports), unless it already
holds exactly that many, then times on the same database in the same run:

- latest: what the product page runs, ``Listing.objects.filter(product=p).visible()
  .latest_prices()`` (one backward probe of the (listing, observed_at) index per listing);
- naive: the textbook max-per-group, ``max(observed_at) ... GROUP BY listing_id`` joined back
  to the observations and filtered to the product's listings.

Prints both medians over random products and the ratio naive / latest.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import closing_line, median_ms, setup_django

LOCATIONS = 50
LISTINGS_PER_PRODUCT = 5
OBSERVATIONS_PER_LISTING = 100

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


def generate(observations: int) -> None:
    """Bulk-fill the catalogue tables in SQL (ids are random UUIDs: bench data only)."""
    from django.db import connection

    listings = observations // OBSERVATIONS_PER_LISTING
    products = max(1, listings // LISTINGS_PER_PRODUCT)
    steps: list[tuple[str, list[int]]] = [
        (
            "TRUNCATE catalogue_priceobservation, catalogue_listing, catalogue_product, "
            "catalogue_location, catalogue_retailer CASCADE",
            [],
        ),
        (
            "INSERT INTO catalogue_retailer (id, slug, name, operator, homepage, created_at, "
            "updated_at) VALUES (gen_random_uuid(), 'bench', 'Bench Duty Free', '', '', now(), "
            "now())",
            [],
        ),
        (
            """INSERT INTO catalogue_location (id, retailer_id, code, iata, name, city, country,
            currency, is_catalogue_only, visible, created_at, updated_at)
            SELECT gen_random_uuid(), r.id, 'bench-' || g, chr(65 + g %% 26) || chr(65 + g / 26)
            || 'X', 'Bench ' || g, '', '', 'EUR', false, true, now(), now()
            FROM catalogue_retailer r, generate_series(0, %s - 1) g""",
            [LOCATIONS],
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
        ("ANALYZE catalogue_location", []),
        ("ANALYZE catalogue_product", []),
        ("ANALYZE catalogue_listing", []),
        ("ANALYZE catalogue_priceobservation", []),
    ]
    with connection.cursor() as cursor:
        for step, params in steps:
            started = time.perf_counter()
            cursor.execute(step, params or None)
            label = " ".join(step.split()[:3])
            print(f"  {label:<40} {time.perf_counter() - started:7.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=200, help="timed product pages (latest)")
    parser.add_argument("--naive-runs", type=int, default=5, help="timed naive queries")
    args = parser.parse_args()

    setup_django("omnium_bench_prices")
    from django.db import connection

    from catalogue.models import Listing, PriceObservation, Product

    held = PriceObservation.objects.count()
    if held != args.observations:
        print(f"generating {args.observations:,} observations (database holds {held:,}) ...")
        generate(args.observations)
    else:
        print(f"reusing the {held:,} observations already generated")
    n = PriceObservation.objects.count()

    product_ids = list(Product.objects.values_list("id", flat=True))
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
    print(
        closing_line(
            "prices",
            observations=n,
            latest_ms=f"{latest_ms:.3f}",
            naive_ms=f"{naive_ms:.1f}",
            ratio=f"{naive_ms / latest_ms:.1f}",
        )
    )


if __name__ == "__main__":
    main()
