from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.access import competition_by_code
from ingest.batches import services
from ingest.batches.limits import batch_files_collect
from ingest.cricsheet.importer import iter_sources
from ingest.cricsheet.validate import CricsheetRejected
from omnium import exitcodes


class Command(BaseCommand):
    help = (
        "Stage Cricsheet match files (files, directories, .zip, .tar.gz) as one batch in "
        "USERNAME's name, validate it, and print its id. Nothing is public until a reviewer "
        "approves it (manage.py review_batch). Without --competition the batch is for the "
        "competition holding all its matches; either way USERNAME's grants must cover it. "
        "Running the same command again over the same files returns the same batch. A batch "
        f"with an invalid file is staged but never published (exit 4). {exitcodes.HELP}"
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument("--as", dest="username", required=True)
        parser.add_argument("--competition", help="code of the target competition")
        parser.add_argument(
            "--key", help="idempotency key (default: derived from the files and their order)"
        )

    def handle(self, *args, paths, username, competition, key, **options):
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or directory: {', '.join(missing)}")
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No account {username!r}")
        target = None
        if competition:
            try:
                target = competition_by_code(competition)
            except ValidationError as exc:
                raise CommandError(f"--competition {_message(exc)}") from None
        try:
            # Refused as soon as the files pass a batch limit: an archive is never held whole.
            files = batch_files_collect(
                (name.rsplit("/", 1)[-1], raw) for name, raw in iter_sources(paths)
            )
        except CricsheetRejected as exc:
            raise exitcodes.refused(str(exc)) from None
        except ValidationError as exc:
            raise exitcodes.refused(_message(exc)) from None
        try:
            batch, created = services.batch_submit(
                submitter=user,
                files=files,
                idempotency_key=key or f"cli:{services.package_sha256(files)}",
                competition=target,
            )
        except (PermissionDenied, ValidationError) as exc:
            raise CommandError(_message(exc)) from None
        batch = services.batch_validate(batch=batch, actor=user)
        self.stderr.write(
            f"{'staged' if created else 'already staged'}: {len(files)} file(s), "
            f"{batch.get_state_display().lower()}"
        )
        for item in batch.items.filter(outcome="invalid"):
            for problem in item.problems:
                self.stderr.write(f"  {item.filename}: {problem['path']}: {problem['message']}")
        for task in batch.onboarding_tasks.filter(decision="outstanding"):
            self.stderr.write(f"  onboarding task {task.task_reference}: {task.name}")
        self.stdout.write(str(batch.pk))
        invalid = batch.items.filter(outcome="invalid").count()
        if invalid:
            raise exitcodes.refused(
                f"batch {batch.pk}: {invalid} invalid file(s); it will not be published"
            )


def _message(exc) -> str:
    return "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
