"""``manage.py collect SOURCE [--file PATH]``: collect one retailer feed now."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from accounts.models import JobKind
from accounts.services import job_execute, job_start
from catalogue.collection_records import Source
from ingest.collectors.builtin import BUILTIN_SOURCES
from ingest.collectors.feeds import FeedError
from ingest.collectors.services import (
    SourceBusy,
    SourceDisabled,
    source_collect,
    source_register_builtin,
)
from ingest.tasks import run_counts
from omnium import exitcodes


class Command(BaseCommand):
    help = (
        "Collect a retailer feed into the catalogue (a built-in source is set up on first use). "
        "The file is checked whole first: a file that breaks a rule is refused with nothing "
        "written but its failed run; a row that breaks one is kept as a rejected observation "
        f"and the rest collected. {exitcodes.HELP}"
    )

    def add_arguments(self, parser):
        parser.add_argument("source", help="source slug, e.g. " + ", ".join(BUILTIN_SOURCES))
        parser.add_argument("--file", dest="path", help="feed file (default: the source's own)")

    def handle(self, *args, source: str, path: str | None, **options):
        try:
            found = Source.objects.filter(slug=source).first() or source_register_builtin(
                slug=source
            )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        # The command line's run is a job too (the console lists it), run here, not queued.
        job = job_start(
            kind=JobKind.COLLECT,
            actor=None,
            via="cli",
            target=found.pk,
            target_label=found.slug,
            enqueue=False,
        )
        bar = tqdm(desc=f"collect {found.slug}", unit=" rows", disable=options["verbosity"] < 1)
        collected: list = []

        def work(progress):
            collected.append(
                source_collect(
                    source=found,
                    path=path,
                    actor=None,
                    triggered_by="manage.py collect",
                    suggest=True,
                    progress=progress,
                ).run
            )
            return {"source": found.slug, **run_counts(collected[0])}

        try:
            job_execute(job.pk, work, bar=bar)
        except SourceDisabled as exc:
            self.stdout.write(str(exc))
            return
        except SourceBusy as exc:
            raise CommandError(str(exc)) from exc
        except FeedError as exc:
            raise exitcodes.refused(str(exc)) from exc
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        run = collected[0]
        skips = ", ".join(f"{k} {v}" for k, v in sorted(run.skip_counts.items())) or "none"
        self.stdout.write(
            f"{found.slug}: run {run.pk} {run.status}: {run.rows_read} rows, "
            f"{run.products_seen} listings seen ({run.listings_created} new), "
            f"{run.products_created} new products, {run.prices_written} prices written, "
            f"{run.prices_already_known} already known, {run.rejected} rejected, "
            f"{run.prices_rejected} prices refused on kept listings ({skips})"
        )
        error = exitcodes.outcome_error(
            accepted=max(run.rows_read - run.rejected, 0), rejected=run.rejected, noun="row"
        )
        if error:
            raise error
