"""Write a cricket dataset release (careers and team innings as CSV, with a manifest)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from accounts.models import JobKind
from accounts.services import job_execute, job_start
from cricket.stats.aggregates import SUPER_OVER_MODES, Scope
from cricket.stats.refresh import refreshes_pending, statistics_refresh_run
from cricket.stats.release import scope_label, write_release_files


class Command(BaseCommand):
    help = (
        "Write batting_careers.csv, bowling_careers.csv, team_innings.csv and manifest.json "
        "(row counts and SHA-256 of each file) into --out, keyed by Cricsheet registry id. "
        "Super-over innings are excluded unless --super-overs only. Refreshes still owed in "
        "the scope (queued or failed) are run first; with --no-refresh the command names "
        "them and exits non-zero instead, writing nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--out", required=True, type=Path)
        parser.add_argument("--format", dest="format_code", default=None, help="e.g. T20, ODI")
        parser.add_argument("--gender", default=None, choices=["male", "female"])
        parser.add_argument("--super-overs", default="exclude", choices=SUPER_OVER_MODES)
        parser.add_argument(
            "--no-refresh",
            action="store_true",
            help="Refuse (exit non-zero, naming them) when refreshes are owed in the scope.",
        )

    def handle(self, *args, out, format_code, gender, super_overs, no_refresh, **options):
        if out.exists() and not out.is_dir():
            raise CommandError(f"--out {out}: exists and is not a directory")
        scope = Scope(format_code=format_code, gender=gender, super_overs=super_overs)
        pending = refreshes_pending(scope=scope)
        if pending and no_refresh:
            for refresh in pending:
                self.stderr.write(f"pending refresh {refresh}")
            raise CommandError(
                f"{len(pending)} statistics refresh(es) owed in this scope; run them or drop "
                "--no-refresh: " + ", ".join(refresh.id for refresh in pending)
            )
        for refresh in pending:
            self.stdout.write(f"running pending refresh {refresh}")
            statistics_refresh_run(refresh_id=refresh.id)
        # A job like the API's release (the console lists it), written here into --out.
        job = job_start(
            kind=JobKind.DATASET_RELEASE,
            actor=None,
            via="cli",
            target_label=f"{scope_label(scope.as_dict())} into {out}",
            enqueue=False,
        )
        bar = tqdm(desc="release", unit=" files", disable=options["verbosity"] < 1)
        written: dict = {}

        def work(progress):
            written.update(write_release_files(scope, out, progress=progress))
            return {entry["name"]: entry["rows"] for entry in written["files"]}

        job_execute(job.pk, work, bar=bar)
        manifest = written
        for entry in manifest["files"]:
            self.stdout.write(f"{entry['name']}: {entry['rows']} rows, sha256 {entry['sha256']}")
        self.stdout.write(f"manifest: {out / 'manifest.json'}")
