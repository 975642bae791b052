"""Link international sides to their countries, record season squads for matches
imported before the import did both, and re-file fixtures an older import put under a
node another path shared (idempotent: ``make run`` calls it on every start)."""

from typing import Any

from django.core.management.base import BaseCommand
from tqdm import tqdm

from cricket.refile import cricket_fixtures_refile
from cricket.services import cricket_identity_backfill


class Command(BaseCommand):
    help = (
        "Link every international cricket side to the Commons country its board plays for "
        "(cricket/data/boards.csv) and record every squad as members of its team for the "
        "match's season, for matches imported before the import did so; then re-file every "
        "fixture under the competition node its own file facts name. Safe to repeat."
    )

    def add_arguments(self, parser):
        parser.add_argument("--actor", default="integration:cli")

    def handle(self, *args: Any, actor: str, **options: Any) -> None:
        self.stdout.write(cricket_identity_backfill(actor=actor).line())
        bar = tqdm(desc="re-file", unit=" fixtures", disable=options["verbosity"] < 1)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        refiled = cricket_fixtures_refile(actor=actor, progress=progress)
        bar.close()
        self.stdout.write(refiled.line())
