"""``manage.py medal_table CODE [--json]``: the medal table folded over any node of a Games
tree (the root, a discipline, an event), read through the cached stat table."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from sports.models import Competition, TableKind
from sports.services import stat_table

FIELDS = ("rank", "country", "gold", "silver", "bronze", "total")


class Command(BaseCommand):
    help = "Print the medal table of a Games node: rank, NOC, gold, silver, bronze, total."

    def add_arguments(self, parser):
        parser.add_argument("code", help="Competition code of any node of a Games tree")
        parser.add_argument("--json", action="store_true", help="Print the rows as JSON")

    def handle(self, *args, **options):
        code = options["code"]
        nodes = list(Competition.objects.filter(code=code).select_related("sport"))
        if not nodes:
            raise CommandError(f"No competition has the code {code!r}.")
        if len(nodes) > 1:
            # Codes are unique per sport, so one code can name nodes of several sports.
            sports = ", ".join(sorted(n.sport.code if n.sport else "(no sport)" for n in nodes))
            raise CommandError(f"The code {code!r} names {len(nodes)} nodes ({sports}).")
        node = nodes[0]
        root = node.get_root()
        if root.sport_id is not None:
            raise CommandError(
                f"{code!r} is in the tree of {root.code!r}, a {root.sport} competition; a "
                "medal table is folded over a multi-sport Games tree (a root with no sport)."
            )
        rows = [{k: row[k] for k in FIELDS} for row in stat_table(node=node, kind=TableKind.MEDALS)]
        if options["json"]:
            self.stdout.write(json.dumps(rows, indent=2))
            return
        self.stdout.write(f"Medal table: {node.name} ({code})")
        self.stdout.write(
            f"{'rank':>4}  {'NOC':<4} {'gold':>5} {'silver':>6} {'bronze':>6} {'total':>6}"
        )
        for row in rows:
            self.stdout.write(
                f"{row['rank']:>4}  {row['country']:<4} {row['gold']:>5} {row['silver']:>6} "
                f"{row['bronze']:>6} {row['total']:>6}"
            )
