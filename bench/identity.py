"""bench-identity: how many same-product pairs the identity rules find, and how many different
products they fold together, on hand-labelled pairs of the development feeds.

In a benchmark database of its own: the three development feeds (rs-maxi, eBay men's
perfume, Alko) are collected through the real collectors, then ``candidates_suggest``
queues what the rules propose, as after any collection. The gold file
(``bench/identity/gold.csv``) names pairs of rows by feed and row index (0-based, data rows
after the header) with ``same`` or ``different``, a category and one line of reason; it
holds no listing text. A pair is

- joined when both rows' listings belong to one live product;
- proposed when an open product-level merge candidate pairs their two products.

Recall is (joined + proposed) over the same-product pairs; a false merge is a different
pair joined, a false proposal a different pair proposed. Both are printed by category. The
development data is local-only; set ``CATALOGUE_DATA`` to its folder when it is not at
``../shared/data/catalogue`` beside the checkout. The last line is ``bench-identity: …``.
"""

from __future__ import annotations

import csv
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import REPO, closing_line, fresh_database

GOLD = REPO / "bench" / "identity" / "gold.csv"
FEEDS = {
    "rs-maxi": "rs_maxi_products_dev.csv",
    "ebay-perfume": "unverified_licence/ebay_perfume_listings_mens_dev.csv",
    "alko": "unverified_licence/alko_spirits_2025-11-30_dev.csv",
}


def data_dir() -> Path:
    given = os.environ.get("CATALOGUE_DATA")
    return Path(given) if given else REPO.parent / "shared" / "data" / "catalogue"


def read_gold(path: Path = GOLD) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    for n, row in enumerate(rows, start=2):
        if row["label"] not in ("same", "different") or row["left_file"] not in FEEDS:
            sys.exit(f"{path}: line {n}: unknown label or feed in {row!r}")
    return rows


def collect(folder: Path) -> dict[str, list[object]]:
    """Collect each feed; return, per feed, the product id of every data row (None for a
    row that made no listing)."""
    from catalogue.models import Listing, Product
    from ingest.collectors.adapters import adapter_for
    from ingest.collectors.services import source_collect, source_register_builtin

    products: dict[str, list[object]] = {}
    for slug, name in FEEDS.items():
        path = folder / name
        source = source_register_builtin(slug=slug)
        start = time.perf_counter()
        run = source_collect(source=source, path=path).run
        print(
            f"collect {slug}: {run.products_seen} listings seen, {run.status} "
            f"in {time.perf_counter() - start:.1f} s; skipped {dict(run.skip_counts or {})}"
        )
        skus = [row.source_sku for row in adapter_for(source.feed_format).rows(path, mapping={})]
        listing_product = dict(
            Listing.objects.filter(location=source.location).values_list("source_sku", "product")
        )
        forward = dict(
            Product.objects.filter(merged_into__isnull=False).values_list("pk", "merged_into")
        )

        products[slug] = [_live(listing_product.get(sku), forward) for sku in skus]
    return products


def _live(pk, forward: dict):
    """The live product a merged one forwards to."""
    seen = set()
    while pk in forward and pk not in seen:
        seen.add(pk)
        pk = forward[pk]
    return pk


def main() -> None:
    folder = data_dir()
    if not all((folder / name).is_file() for name in FEEDS.values()):
        sys.exit(f"bench-identity needs the local-only catalogue data at {folder} (CATALOGUE_DATA)")
    gold = read_gold()
    fresh_database("omnium_bench_identity")

    from catalogue.identity import RULES_VERSION
    from curation.models import MergeCandidate, MergeLevel
    from curation.services import candidates_suggest

    products = collect(folder)
    start = time.perf_counter()
    print(candidates_suggest().line(), f"({time.perf_counter() - start:.1f} s)")
    proposed_pairs = {
        frozenset((str(left), str(right)))
        for left, right in MergeCandidate.objects.filter(
            level=MergeLevel.PRODUCT, status=MergeCandidate.Status.OPEN
        ).values_list("left_id", "right_id")
    }

    outcome: Counter[tuple[str, str, str]] = Counter()
    missing = 0
    for row in gold:
        left = products[row["left_file"]][int(row["left_row"])]
        right = products[row["right_file"]][int(row["right_row"])]
        if left is None or right is None:
            missing += 1
            found = "missing"
        elif left == right:
            found = "joined"
        elif frozenset((str(left), str(right))) in proposed_pairs:
            found = "proposed"
        else:
            found = "apart"
        outcome[(row["label"], row["category"], found)] += 1

    same = sum(n for (label, _, _), n in outcome.items() if label == "same")
    joined = sum(n for (label, _, f), n in outcome.items() if label == "same" and f == "joined")
    proposed = sum(n for (label, _, f), n in outcome.items() if label == "same" and f == "proposed")
    different = len(gold) - same
    print(
        f"gold: {len(gold)} pairs, {same} same, {different} different; identity rules "
        f"v{RULES_VERSION}; {missing} pairs with a row that made no listing"
    )
    apart = same - joined - proposed
    print(f"same-product pairs: {joined} joined, {proposed} proposed, {apart} apart")
    categories = sorted({c for (label, c, _) in outcome if label == "different"})
    print(f"{'different, by category':24} {'pairs':>6} {'merged':>7} {'proposed':>9}")
    false_merges = false_proposals = 0
    for category in categories:
        n = sum(v for (label, c, _), v in outcome.items() if label == "different" and c == category)
        merged = outcome[("different", category, "joined")]
        offered = outcome[("different", category, "proposed")]
        false_merges += merged
        false_proposals += offered
        print(f"  {category:22} {n:6} {merged:7} {offered:9}")
    recall = (joined + proposed) / same if same else 0.0
    print(
        closing_line(
            "identity",
            recall=f"{recall:.3f}",
            false_merges=false_merges,
            proposed=proposed,
            joined=joined,
            same_pairs=same,
            different_pairs=different,
            false_proposals=false_proposals,
            rules=RULES_VERSION,
        )
    )


if __name__ == "__main__":
    main()
