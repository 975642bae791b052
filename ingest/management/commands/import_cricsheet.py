from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ingest.sports_tasks import cricsheet_import


class Command(BaseCommand):
    help = (
        "Import Cricsheet JSON match files (files, directories, .zip, .tar.gz). Each file is "
        "validated whole, then written in one transaction; unchanged files write nothing. "
        "Data from cricsheet.org (ODC-By 1.0)."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="Import in this many processes (a large corpus: one per core). Each match "
            "is still one transaction; the files of one match id stay in order.",
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="Exit non-zero when any file is rejected (the others are still imported).",
        )

    def handle(self, *args, paths, strict, workers, **options):
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or directory: {', '.join(missing)}")
        if workers < 1:
            raise CommandError(f"--workers must be at least 1, not {workers}")
        bar = tqdm(unit="match", disable=options["verbosity"] == 0)

        def rejected(result):
            if result.error:
                bar.write(result.error, file=self.stderr)

        # A job like the task's (the console lists it): the bar and the row from one callback.
        summary = cricsheet_import(paths, via="cli", workers=workers, bar=bar, on_result=rejected)
        self.stdout.write(summary.line())
        if strict and summary.rejected:
            raise CommandError(f"{summary.rejected} file(s) rejected")
