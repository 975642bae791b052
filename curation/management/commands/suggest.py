"""``manage.py suggest``: queue the pairs every registered rule thinks are one."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from curation.services import candidates_suggest


class Command(BaseCommand):
    help = (
        "Derive merge candidates by rule at every level (known rebrands, nested house and "
        "line names, product pairs the rules could not settle, look-alike sports "
        "participants) and queue them for a person. A decided pair is never proposed again; "
        "pairs whose side was merged or aliased away are closed. Safe to repeat."
    )

    def handle(self, *args, **options):
        bar = tqdm(desc="suggest", unit=" pairs", disable=options["verbosity"] < 1)
        try:
            report = candidates_suggest(progress=lambda n: bar.update(n - bar.n))
        finally:
            bar.close()
        self.stdout.write(report.line())
