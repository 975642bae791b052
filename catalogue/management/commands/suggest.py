"""``manage.py suggest``: queue the brand, line and product pairs the rules think are one."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from catalogue.services import candidates_suggest


class Command(BaseCommand):
    help = (
        "Derive merge candidates by rule (known rebrands, nested house and line names, pairs "
        "the rules could not settle) and queue them for a person. A decided pair is never "
        "proposed again; pairs whose side was merged or aliased away are closed. Safe to repeat."
    )

    def handle(self, *args, **options):
        bar = tqdm(desc="suggest", unit=" pairs", disable=options["verbosity"] < 1)
        try:
            report = candidates_suggest(progress=lambda n: bar.update(n - bar.n))
        finally:
            bar.close()
        self.stdout.write(report.line())
        # The sports spine's look-alike participants wait in the same queue.
        from sports.services.participant_candidates import participant_candidates_suggest

        self.stdout.write(
            f"suggest: {participant_candidates_suggest()} new participant candidate(s)"
        )
