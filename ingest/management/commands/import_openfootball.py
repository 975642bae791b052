from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ingest.openfootball import FeedError
from ingest.sports_tasks import league_import_job
from omnium import exitcodes
from sports.services.tables import TIEBREAKS


class Command(BaseCommand):
    help = (
        "Import openfootball football.json season files into league > season > round > "
        "fixtures. Idempotent; fields an editor pinned are never overwritten. A file that "
        f"breaks a rule is refused with the others, nothing written. {exitcodes.HELP}"
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--code", required=True, help="League competition code")
        parser.add_argument("--name", required=True, help="League name")
        parser.add_argument(
            "--tiebreaks",
            help="Comma-separated tie-break order set on a NEW league node, e.g. "
            "points,head_to_head_points,head_to_head_goal_difference,goal_difference,goals_for",
        )
        parser.add_argument("--points", help="win,draw,loss points on a NEW league (3,1,0)")

    def handle(self, *args, files, code, name, tiebreaks, points, **options):
        config = {}
        if tiebreaks:
            order = [t.strip() for t in tiebreaks.split(",")]
            unknown = set(order) - TIEBREAKS
            if unknown:
                raise CommandError(
                    f"--tiebreaks: unknown {', '.join(sorted(unknown))}; "
                    f"known: {', '.join(sorted(TIEBREAKS))}"
                )
            config["tiebreaks"] = order
        if points:
            try:
                win, draw, loss = (int(p) for p in points.split(","))
            except ValueError:
                raise CommandError("--points: three whole numbers, e.g. 3,1,0") from None
            config["points"] = {"win": win, "draw": draw, "loss": loss}
        try:
            bar = tqdm(unit="match", disable=options["verbosity"] == 0)
            # A job like the task's (the console lists it): the bar and the row from one callback.
            summary = league_import_job(
                files, code=code, name=name, config=config or None, via="cli", bar=bar
            )
        except FeedError as exc:
            raise exitcodes.refused(str(exc)) from None
        except OSError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(summary.line())
