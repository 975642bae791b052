"""``manage.py import_games DIR --code CODE --name NAME``: a thin adapter over
``ingest.games.games_import``, run as a job (the Celery task calls the same function)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from ingest.games import GamesInputError
from ingest.sports_tasks import games_import_job
from omnium import exitcodes


class Command(BaseCommand):
    help = (
        "Import a multi-sport Games in the Paris 2024 layout (events, schedules, results/, "
        "medals, medallists, teams, nocs; .csv or .csv.gz; whichever exist). Idempotent. An "
        f"input that breaks a rule is refused whole. {exitcodes.HELP}"
    )

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--code", required=True, help="Code of the Games root, e.g. paris-2024")
        parser.add_argument("--name", required=True, help="Name of the Games root")

    def handle(self, *args, **options):
        bar = tqdm(desc="events", unit="event", disable=options["verbosity"] == 0)
        try:
            # A job like the task's (the console lists it); a refused input fails it too.
            summary = games_import_job(
                directory=options["directory"],
                code=options["code"],
                name=options["name"],
                via="cli",
                bar=bar,
            )
        except GamesInputError as exc:
            raise exitcodes.refused("\n".join(exc.messages)) from exc
        self.stdout.write(summary.line())
