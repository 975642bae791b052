import json

from django.core.management.base import BaseCommand, CommandError

from sports.models import Competition, TableKind
from sports.services import stat_table


class Command(BaseCommand):
    help = "Print the league table folded over the completed fixtures under a competition."

    def add_arguments(self, parser):
        parser.add_argument("code", help="Competition code (league, season or round)")
        parser.add_argument("--sport", help="Sport code, when the code exists in several sports")
        parser.add_argument("--json", action="store_true", help="JSON rows instead of a table")

    def handle(self, *args, code, sport, json: bool, **options):
        nodes = Competition.objects.filter(code=code, merged_into__isnull=True)
        if sport:
            nodes = nodes.filter(sport__code=sport)
        found = list(nodes[:2])
        if not found:
            raise CommandError(f"No competition has the code {code!r}.")
        if len(found) > 1:
            raise CommandError(f"{code!r} exists in several sports; name one with --sport.")
        rows = stat_table(node=found[0], kind=TableKind.STANDINGS)
        if json:
            keys = (
                "position",
                "team",
                "played",
                "won",
                "drawn",
                "lost",
                "goals_for",
                "goals_against",
                "goal_difference",
                "points",
            )
            self.stdout.write(_dumps([{k: r[k] for k in keys} for r in rows]))
            return
        self.stdout.write(
            f"{'#':>3} {'team':<28} {'P':>3} {'W':>3} {'D':>3} {'L':>3} "
            f"{'GF':>4} {'GA':>4} {'GD':>4} {'Pts':>4}"
        )
        for r in rows:
            self.stdout.write(
                f"{r['position']:>3} {r['team'][:28]:<28} {r['played']:>3} {r['won']:>3} "
                f"{r['drawn']:>3} {r['lost']:>3} {r['goals_for']:>4} {r['goals_against']:>4} "
                f"{r['goal_difference']:>4} {r['points']:>4}"
                + (f"  ({r['adjustment']:+d} adj.)" if "adjustment" in r else "")
            )


def _dumps(rows):
    return json.dumps(rows, indent=2, ensure_ascii=False)
