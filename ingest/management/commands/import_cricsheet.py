from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from cricket.loading import cricket_root
from ingest.cricsheet.importer import check_paths
from ingest.sports_tasks import cricsheet_import
from omnium import exitcodes


class Command(BaseCommand):
    help = (
        "Import Cricsheet JSON match files (files, directories, .zip, .tar.gz). Each file is "
        "validated whole, then written in one transaction; unchanged files write nothing. "
        "By default a rejected file is named and the others are still imported (--keep-going); "
        "--strict checks every file first and writes nothing if any is rejected. "
        f"{exitcodes.HELP} Data from cricsheet.org (ODC-By 1.0)."
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
            "--root",
            metavar="CODE",
            help="File the matches' competitions under this existing tree root (a Games, "
            "whose root has no sport, or a cricket root) instead of roots of their own.",
        )
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument(
            "--keep-going",
            action="store_true",
            help="The default: import every good file, name each rejected one, exit 3 if any "
            "was rejected (4 if all were).",
        )
        mode.add_argument(
            "--strict",
            action="store_true",
            help="Check every file against the contract before writing any; one rejected file "
            "and nothing is written (exit 4).",
        )

    def handle(self, *args, paths, strict, workers, keep_going, root, **options):
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or directory: {', '.join(missing)}")
        if workers < 1:
            raise CommandError(f"--workers must be at least 1, not {workers}")
        try:
            tree = cricket_root(root) if root else None
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        if strict:
            self._check_first(paths)
        bar = tqdm(unit="match", disable=options["verbosity"] == 0)

        written: set[str] = set()

        def rejected(result):
            if result.error:
                written.add(result.error)
                bar.write(result.error, file=self.stderr)

        # A job like the task's (the console lists it): the bar and the row from one callback.
        summary = cricsheet_import(
            paths, via="cli", workers=workers, bar=bar, on_result=rejected, root=tree
        )
        for rejection in summary.rejections:  # a path refused before any file was read
            if rejection not in written:
                self.stderr.write(rejection)
        self.stdout.write(summary.line())
        error = exitcodes.outcome_error(
            accepted=summary.new + summary.updated + summary.unchanged,
            rejected=summary.rejected,
        )
        if error:
            raise error

    def _check_first(self, paths) -> None:
        rejections = check_paths(paths)
        for rejection in rejections:
            self.stderr.write(rejection)
        if rejections:
            raise exitcodes.refused(
                f"--strict: {len(rejections)} file(s) rejected; nothing written"
            )
