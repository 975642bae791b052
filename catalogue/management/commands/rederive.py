"""``manage.py rederive [--rules-version N]``: re-resolve products under the current rules."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from catalogue.identity import RULES_VERSION
from catalogue.services import products_rederive, products_rederive_and_fold


class Command(BaseCommand):
    help = (
        "Recompute the standard layer (keys, lines, variations, quantities) of products "
        f"under identity rules v{RULES_VERSION}, then fold the products that now share a "
        "key. Safe to repeat; human decisions are kept."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--rules-version",
            type=int,
            default=None,
            help="only rows last resolved under this rules version (default: every row)",
        )
        parser.add_argument(
            "--actor",
            default="",
            help="username of the person the folds are recorded under (needed unless --no-fold)",
        )
        parser.add_argument(
            "--no-fold",
            action="store_true",
            help="re-key only; leave products that now share a key apart",
        )

    def handle(self, *args, rules_version: int | None, no_fold: bool, actor: str, **options):
        if no_fold:
            self.stdout.write(products_rederive(rules_version=rules_version).line())
            return
        person = get_user_model().objects.filter(username=actor).first() if actor else None
        if person is None:
            raise CommandError(
                f"rederive: --actor {actor!r} names no account; a fold is a merge recorded "
                "under a person (or give --no-fold to re-key only)"
            )
        report = products_rederive_and_fold(rules_version=rules_version, actor=person)
        self.stdout.write(report.line())
