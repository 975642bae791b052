"""Link international sides to their countries and record season squads for matches
imported before the import did both (idempotent: ``make run`` calls it on every start)."""

from typing import Any

from django.core.management.base import BaseCommand

from cricket.services import cricket_identity_backfill


class Command(BaseCommand):
    help = (
        "Link every international cricket side to the Commons country its board plays for "
        "(cricket/data/boards.csv) and record every squad as members of its team for the "
        "match's season, for matches imported before the import did so. Safe to repeat."
    )

    def add_arguments(self, parser):
        parser.add_argument("--actor", default="integration:cli")

    def handle(self, *args: Any, actor: str, **options: Any) -> None:
        self.stdout.write(cricket_identity_backfill(actor=actor).line())
