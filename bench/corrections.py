"""bench-corrections: one delivery correction against the floor of the rows it must write.

In a benchmark database of its own, with the thirty sample matches imported:

1. ``delivery_correct`` on live deliveries (runs off the bat changed): validation, locks,
   snapshots, the new revision with its wickets copied, the history row, the audit and
   fixture log;
2. the floor: the same three row writes on other deliveries in plain SQL (supersede, insert
   the next revision, link it) plus a history row with empty snapshots;
3. a correction that turns the first ball of an over into a wide, so every later ball of the
   over gets a relabelled revision.

Prints the medians and ends with the ``bench-corrections:`` line (ratio = correction/floor).
Data: Cricsheet (https://cricsheet.org), ODC-By 1.0.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import REPO, closing_line, setup_django

SAMPLES = REPO / "ingest" / "samples" / "cricket"
RUNS = 40
ACTOR = "bench:corrections"

FLOOR_SQL = """
WITH old AS (
  UPDATE cricket_delivery SET is_current = false, superseded_at = now()
   WHERE id = %(id)s AND is_current RETURNING *
), new AS (
  INSERT INTO cricket_delivery (innings_id, over_number, position, sequence, ball_label,
    actual_delivery, batter_id, bowler_id, non_striker_id, runs_batter, runs_extras,
    runs_total, non_boundary, extra_wides, extra_noballs, extra_byes, extra_legbyes,
    extra_penalty, revision, is_current, supersedes_id, source_event_id, submission_id,
    submission_event_ordinal, created_at)
  SELECT innings_id, over_number, position, sequence, ball_label, actual_delivery, batter_id,
    bowler_id, non_striker_id, (runs_batter + 1) %% 7, runs_extras,
    (runs_batter + 1) %% 7 + runs_extras, non_boundary, extra_wides, extra_noballs,
    extra_byes, extra_legbyes, extra_penalty, revision + 1, true, id, source_event_id,
    submission_id, submission_event_ordinal, now()
  FROM old RETURNING id, supersedes_id
)
SELECT id, supersedes_id FROM new
"""


def main() -> None:
    setup_django("omnium_bench_corrections")
    from django.db import connection, transaction

    from cricket.corrections import delivery_correct
    from cricket.models import Delivery, DeliveryCorrectionHistory
    from ingest.cricsheet.importer import import_paths

    summary = import_paths([SAMPLES])
    print(f"samples: {summary.line()}")

    plain = list(
        Delivery.objects.current()
        .filter(wickets__isnull=True, extra_wides__isnull=True, extra_noballs__isnull=True)
        .order_by("?")
        .values_list("pk", "runs_batter")[: 2 * RUNS]
    )
    corrected, floor = plain[:RUNS], plain[RUNS:]

    def time_each(items, work) -> float:
        samples = []
        for item in items:
            start = time.perf_counter()
            work(item)
            samples.append((time.perf_counter() - start) * 1000)
        return statistics.median(samples)

    def correct(item):
        pk, runs = item
        delivery_correct(
            delivery=pk, changes={"runs_batter": (runs + 1) % 7}, reason="bench", actor=ACTOR
        )

    def raw(item):
        pk, _ = item
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(FLOOR_SQL, {"id": pk})
            new_id, old_id = cursor.fetchone()
            cursor.execute(
                "UPDATE cricket_delivery SET superseded_by_id = %s WHERE id = %s", [new_id, old_id]
            )
            cursor.execute(
                "INSERT INTO cricket_deliverycorrectionhistory (previous_delivery_id, "
                "resulting_delivery_id, source_event_id, fixture_id, requested_by_label, "
                "requested_at, reason, previous_snapshot, resulting_snapshot, "
                "original_submission_id, review_decision, review_reason) "
                "SELECT d.id, %s, d.source_event_id, i.fixture_id, %s, now(), 'bench', '{}', "
                "'{}', d.submission_id, '', '' FROM cricket_delivery d "
                "JOIN cricket_innings i ON i.id = d.innings_id WHERE d.id = %s",
                [new_id, ACTOR, old_id],
            )

    # Interleaved halves, so neither side gets a warmer cache.
    correct_ms = statistics.median([time_each(corrected[i::4], correct) for i in range(4)])
    floor_ms = statistics.median([time_each(floor[i::4], raw) for i in range(4)])

    firsts = list(
        Delivery.objects.current()
        .filter(position=0, extra_wides__isnull=True, extra_noballs__isnull=True)
        .order_by("?")
        .values_list("pk", flat=True)[:RUNS]
    )
    relabelled = []

    def make_wide(pk):
        result = delivery_correct(
            delivery=pk,
            changes={"extra_wides": 1, "runs_batter": 0},
            reason="bench: a wide",
            actor=ACTOR,
        )
        relabelled.append(len(result.relabelled))

    relabel_ms = time_each(firsts, make_wide)
    ratio = correct_ms / floor_ms
    print(f"correction (runs changed): median {correct_ms:.2f} ms over {RUNS}")
    print(f"floor (the same row writes in plain SQL): median {floor_ms:.2f} ms")
    print(
        f"correction making a first ball a wide: median {relabel_ms:.2f} ms, "
        f"{statistics.mean(relabelled):.1f} later balls relabelled on average"
    )
    print(f"history rows now: {DeliveryCorrectionHistory.objects.count()}")
    print(
        closing_line(
            "corrections",
            correct_ms=f"{correct_ms:.2f}",
            floor_ms=f"{floor_ms:.2f}",
            ratio=f"{ratio:.1f}",
            relabel_ms=f"{relabel_ms:.2f}",
        )
    )


if __name__ == "__main__":
    main()
