"""bench-tree: "every fixture under this node" by nested-set range vs a recursive CTE.

Builds a Games-sized tree (2,709 nodes, 8,917 fixtures, the size of a real Asian Games) in a
benchmark database, then times both queries on the same database in the same run, fetching
every fixture id under the root. Prints the medians and the ratio (CTE / MPTT).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import closing_line, fresh_database, median_ms

NODES = 2709
FIXTURES = 8917
SPORTS = 40


def build(progress) -> str:
    """Create the tree depth-first through the service (each insert lands at the far right,
    so django-mptt only widens the ancestors) and bulk-insert the fixtures."""
    from django.db import connection, transaction

    from sports.models import Archetype, Competition, Fixture, Sport
    from sports.services import competition_create

    per_sport = (NODES - 1 - SPORTS) // SPORTS  # events + phases below each sport node
    extra = (NODES - 1 - SPORTS) % SPORTS
    leaves: list[Competition] = []
    with transaction.atomic():
        root = competition_create(
            code="bench-games", name="Bench Games", type="games", actor="bench"
        )
        made = 1
        for s in range(SPORTS):
            sport = Sport.objects.create(
                code=f"sport{s}", name=f"Sport {s}", archetype=Archetype.RANKED_FIELD
            )
            node = competition_create(
                code=f"s{s}",
                name=f"Sport {s}",
                type="sport",
                parent=root,
                sport=sport,
                actor="bench",
            )
            made += 1
            budget = per_sport + (1 if s < extra else 0)
            while budget > 0:
                event = competition_create(
                    code=f"s{s}-e{budget}", name="Event", type="event", parent=node, actor="bench"
                )
                budget -= 1
                made += 1
                phases = min(budget, 4)
                for p in range(phases):
                    leaves.append(
                        competition_create(
                            code=f"s{s}-e{budget}-p{p}",
                            name="Phase",
                            type="phase",
                            parent=event,
                            actor="bench",
                        )
                    )
                    made += 1
                budget -= phases
            progress.update(1)
        assert made == NODES, made
        fixtures = []
        for i in range(FIXTURES):
            leaf = leaves[i % len(leaves)]
            fixtures.append(
                Fixture(
                    sport_id=leaf.sport_id,
                    competition=leaf,
                    code=f"u{i}",
                    archetype=Archetype.RANKED_FIELD,
                )
            )
        Fixture.objects.bulk_create(fixtures, batch_size=2000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE sports_competition; ANALYZE sports_fixture;")
    return str(root.pk)


MPTT_SQL = """
SELECT f.id FROM sports_fixture f
JOIN sports_competition c ON c.id = f.competition_id
WHERE c.tree_id = %s AND c.lft >= %s AND c.rght <= %s
"""
CTE_SQL = """
WITH RECURSIVE subtree AS (
  SELECT id FROM sports_competition WHERE id = %s
  UNION ALL
  SELECT c.id FROM sports_competition c JOIN subtree s ON c.parent_id = s.id
)
SELECT f.id FROM sports_fixture f JOIN subtree s ON f.competition_id = s.id
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    fresh_database("omnium_bench_tree")
    from django.db import connection
    from tqdm import tqdm

    from sports.models import Competition, Fixture

    with tqdm(total=SPORTS, desc="building the tree", unit="sport") as progress:
        root_id = build(progress)
    root = Competition.objects.get(pk=root_id)
    expected = Fixture.objects.count()
    nodes = Competition.objects.filter(tree_id=root.tree_id).count()
    print(f"tree: {nodes} nodes, {expected} fixtures")

    def by_mptt():
        with connection.cursor() as cursor:
            cursor.execute(MPTT_SQL, [root.tree_id, root.lft, root.rght])
            rows = cursor.fetchall()
        assert len(rows) == expected
        return rows

    def by_cte():
        with connection.cursor() as cursor:
            cursor.execute(CTE_SQL, [root.pk])
            rows = cursor.fetchall()
        assert len(rows) == expected
        return rows

    assert sorted(by_mptt()) == sorted(by_cte())
    mptt = median_ms(by_mptt, runs=args.runs)
    cte = median_ms(by_cte, runs=args.runs)

    def server_ms(sql, params) -> float:
        """PostgreSQL's own execution time: the query without shipping rows to Python."""
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + sql, params)
            return cursor.fetchone()[0][0]["Execution Time"]

    server_mptt = statistics.median(
        server_ms(MPTT_SQL, [root.tree_id, root.lft, root.rght]) for _ in range(11)
    )
    server_cte = statistics.median(server_ms(CTE_SQL, [root.pk]) for _ in range(11))
    print(f"every fixture under the root ({expected} rows, median of {args.runs}):")
    print(f"  nested-set range (MPTT)  {mptt:8.2f} ms")
    print(f"  recursive CTE            {cte:8.2f} ms")
    print(f"  ratio CTE / MPTT         {cte / mptt:8.2f}x")
    print("inside PostgreSQL (EXPLAIN ANALYZE, median of 11; the rest is shipping the rows):")
    print(f"  nested-set range (MPTT)  {server_mptt:8.2f} ms")
    print(f"  recursive CTE            {server_cte:8.2f} ms")
    print(f"  ratio CTE / MPTT         {server_cte / server_mptt:8.2f}x")
    print(
        closing_line("tree", mptt_ms=f"{mptt:.2f}", cte_ms=f"{cte:.2f}", ratio=f"{cte / mptt:.2f}")
    )


if __name__ == "__main__":
    main()
