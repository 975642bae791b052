"""bench-batches: a reviewed batch against the corpus import of the same kind of files.

Into an empty benchmark database of its own (dropped and recreated each run), the first
``2 * --limit`` files of the dev corpus are split alternately: the even ones are imported
by the corpus importer (the baseline), the odd ones go through a staged batch: submit
(bytes kept), validate (contract, people evidence), approve, publish (one transaction
per match with its checkpoint). Both halves are timed in the same run and compared per
delivery; the closing ``bench-batches:`` line gives the ratio batch/corpus. Data: Cricsheet
(https://cricsheet.org), ODC-By 1.0.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import closing_line, setup_django
from bench.ingest import CORPUS, drop_database

DATABASE = "omnium_bench_batches"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100, help="files per half (default 100)")
    args = parser.parse_args(argv)
    if not CORPUS.exists():
        sys.exit(f"bench-batches: the dev corpus is not at {CORPUS}")
    drop_database(DATABASE)
    setup_django(DATABASE)
    from django.contrib.auth import get_user_model

    from cricket.models import Delivery
    from ingest.batches import services
    from ingest.cricsheet.importer import Importer, iter_sources

    files = list(itertools.islice(iter_sources([CORPUS]), 2 * args.limit))
    files = [(name.rsplit("/", 1)[-1], raw) for name, raw in files]
    baseline, staged = files[0::2], files[1::2]
    users = get_user_model().objects
    submitter = users.create(username="bench-submitter", role="submitter")
    reviewer = users.create(username="bench-reviewer", role="reviewer", is_staff=True)
    from accounts.access import competition_grant_set

    for user in (submitter, reviewer):  # the corpus spans many trees: every competition
        competition_grant_set(user=user, competition=None, role=user.role, actor=None)

    start = time.perf_counter()
    summary = Importer().run_sources(baseline)
    corpus_s = time.perf_counter() - start
    corpus_deliveries = Delivery.objects.count()

    timings = {}
    start = time.perf_counter()
    batch, _ = services.batch_submit(submitter=submitter, files=staged, idempotency_key="bench")
    timings["submit"] = time.perf_counter() - start
    start = time.perf_counter()
    batch = services.batch_validate(batch=batch)
    timings["validate"] = time.perf_counter() - start
    tasks = batch.onboarding_tasks.filter(decision="outstanding")
    for task in tasks:  # namesakes in the corpus: accept them as new people
        services.onboarding_task_resolve(
            task_reference=task.task_reference, reviewer=reviewer, create=True
        )
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="bench")
    start = time.perf_counter()
    batch = services.batch_publish(batch=batch, worker="bench")
    timings["publish"] = time.perf_counter() - start
    batch_deliveries = Delivery.objects.count() - corpus_deliveries
    batch_s = sum(timings.values())

    corpus_rate = corpus_deliveries / corpus_s
    batch_rate = batch_deliveries / batch_s
    print(
        f"corpus import: {summary.new} matches, {corpus_deliveries} deliveries in "
        f"{corpus_s:.1f} s ({corpus_rate:,.0f}/s)"
    )
    print(
        f"batch: {batch.items.count()} matches, {batch_deliveries} deliveries; submit "
        f"{timings['submit']:.1f} s, validate {timings['validate']:.1f} s, publish "
        f"{timings['publish']:.1f} s ({batch_rate:,.0f}/s); {len(tasks)} onboarding task(s); "
        f"state {batch.state}"
    )
    print(
        closing_line(
            "batches",
            matches=batch.items.count(),
            corpus_per_s=round(corpus_rate),
            batch_per_s=round(batch_rate),
            validate_s=round(timings["validate"], 2),
            publish_s=round(timings["publish"], 2),
            ratio_batch_over_corpus=round(corpus_rate / batch_rate, 2),
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
