"""``manage.py rederive [--rules-version N]``: re-resolve products under the current rules."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from catalogue.identity import RULES_VERSION
from catalogue.services import products_rederive


class Command(BaseCommand):
    help = (
        "Recompute the standard layer (keys, lines, variations, quantities) of products "
        f"under identity rules v{RULES_VERSION}. Safe to repeat; human decisions are kept."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--rules-version",
            type=int,
            default=None,
            help="only rows last resolved under this rules version (default: every row)",
        )

    def handle(self, *args, rules_version: int | None, **options):
        report = products_rederive(rules_version=rules_version)
        self.stdout.write(report.line())
