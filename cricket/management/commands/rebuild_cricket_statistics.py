"""Rebuild every cricket statistic line and snapshot (after a bulk load, or to recover)."""

import time
from typing import Any

from django.core.management.base import BaseCommand

from cricket.stats.partnerships import records_rebuild_all
from cricket.stats.refresh import statistics_rebuild_all


class Command(BaseCommand):
    help = (
        "Rebuild the batting, bowling, fielding, team-innings and appearance lines of every "
        "public cricket fixture from the live deliveries, set-based, then every participant's "
        "aggregate snapshots."
    )

    def add_arguments(self, parser):
        parser.add_argument("--reason", default="manage.py rebuild_cricket_statistics")
        parser.add_argument("--actor", default="integration:cli")

    def handle(self, *args: Any, reason: str, actor: str, **options: Any) -> None:
        started = time.perf_counter()
        lines, snapshots = statistics_rebuild_all(reason=reason, actor=actor)
        self.stdout.write(
            f"{lines} line rows, {snapshots} snapshot rows in {time.perf_counter() - started:.1f} s"
        )
        started = time.perf_counter()
        records = records_rebuild_all()
        self.stdout.write(
            f"{records} partnership and milestone rows in {time.perf_counter() - started:.1f} s"
        )
