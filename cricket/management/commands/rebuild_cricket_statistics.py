"""Rebuild every cricket statistic line and snapshot (after a bulk load, or to recover)."""

import time
from typing import Any

from django.core.management.base import BaseCommand
from tqdm import tqdm

from accounts.models import JobKind
from accounts.services import job_execute, job_start
from cricket.stats.tasks import statistics_rebuild_everything


class Command(BaseCommand):
    help = (
        "Rebuild the batting, bowling, fielding, team-innings and appearance lines of every "
        "public cricket fixture from the live deliveries, set-based, then every participant's "
        "aggregate snapshots, then the partnership and milestone records."
    )

    def add_arguments(self, parser):
        parser.add_argument("--reason", default="manage.py rebuild_cricket_statistics")
        parser.add_argument("--actor", default="integration:cli")

    def handle(self, *args: Any, reason: str, actor: str, **options: Any) -> None:
        # A job like the console's (the console lists it), run here rather than queued.
        job = job_start(kind=JobKind.STATISTICS_REBUILD, actor=None, via="cli", enqueue=False)
        bar = tqdm(desc="rebuild", unit=" steps", disable=options["verbosity"] < 1)
        started = time.perf_counter()
        counts: dict = {}

        def work(progress):
            counts.update(
                statistics_rebuild_everything(reason=reason, actor=actor, progress=progress)
            )
            return counts

        job_execute(job.pk, work, bar=bar)
        self.stdout.write(
            f"{counts['lines']} line rows, {counts['snapshots']} snapshot rows, "
            f"{counts['records']} partnership and milestone rows "
            f"in {time.perf_counter() - started:.1f} s"
        )
