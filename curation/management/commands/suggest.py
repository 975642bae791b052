"""``manage.py suggest``: queue the pairs every registered rule thinks are one."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from accounts.models import JobKind
from accounts.services import job_execute, job_start
from curation.services import candidates_suggest
from curation.tasks import suggest_outcome


class Command(BaseCommand):
    help = (
        "Derive merge candidates by rule at every level (known rebrands, nested house and "
        "line names, product pairs the rules could not settle, look-alike sports "
        "participants) and queue them for a person. A decided pair is never proposed again; "
        "pairs whose side was merged or aliased away are closed. Safe to repeat."
    )

    def handle(self, *args, **options):
        # A job like the console's and the worker's, run here (the console lists it).
        job = job_start(kind=JobKind.SUGGEST, actor=None, via="cli", enqueue=False)
        bar = tqdm(desc="suggest", unit=" pairs", disable=options["verbosity"] < 1)
        reports = []

        def work(progress):
            reports.append(candidates_suggest(progress=progress))
            return suggest_outcome(reports[0])

        job_execute(job.pk, work, bar=bar)
        self.stdout.write(reports[0].line())
