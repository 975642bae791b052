from django.core.management.base import BaseCommand, CommandError

from sports.services import trees_check


class Command(BaseCommand):
    help = (
        "Verify every competition tree: each node's stored nested-set columns must equal a "
        "rebuild from the parent links. Exits 1 and lists the nodes that differ."
    )

    def handle(self, *args, **options):
        problems = trees_check()
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError(f"{len(problems)} competition node(s) differ from a rebuild.")
        self.stdout.write(self.style.SUCCESS("competition trees: sound"))
