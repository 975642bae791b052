"""``manage.py partitions_ensure``: the partitions of the partitioned logs, ahead of time."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from omnium.partitions import ensure


class Command(BaseCommand):
    help = (
        "Create the month (price observations) and year (stat lines, deliveries) partitions "
        "from this month to --months-ahead months beyond, moving into each any rows the "
        "default partition caught for it. Running it twice changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--months-ahead", type=int, default=3, metavar="N")

    def handle(self, *args: Any, **options: Any) -> None:
        done = ensure(now=timezone.now(), months_ahead=options["months_ahead"])
        created = [name for name, made in done if made]
        for name in created:
            self.stdout.write(f"created {name}")
        self.stdout.write(f"partitions: {len(created)} created, {len(done) - len(created)} there")
