"""Celery adapters for the sports importers: paths in, one importer call, a summary out.
Registered through ``CELERY_IMPORTS`` (this module is not the app's ``tasks.py``).

An import is a job of its own (``accounts.Job``): its task, like its command, records one
(``import_as_job``) and runs the importer with the job's ``Progress``, so the command's bar
and the console's job row come from the same callback. Imports are not queued through
``job_start``: whoever runs one names its files."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import shared_task

from accounts.models import JobKind
from accounts.services import job_execute, job_start
from ingest.cricsheet.importer import MatchResult, count_sources, import_paths
from ingest.games import games_import
from ingest.openfootball import import_files
from omnium.progress import Progress


def summary_counts(summary: Any) -> dict[str, Any]:
    """An import summary's counts and its line, as a job's result shows them."""
    counts = {
        f.name: getattr(summary, f.name)
        for f in dataclasses.fields(summary)
        if isinstance(getattr(summary, f.name), int | float)
    }
    return {**counts, "line": summary.line()}


def import_as_job(
    kind: str, *, via: str, label: str, work: Callable[[Progress], Any], bar: Any = None
) -> Any:
    """Record a ``kind`` job and run ``work(progress)`` as it (its progress on the row and
    on ``bar``); returns the work's summary. An error is kept on the job and raised."""
    job = job_start(kind=kind, actor=None, via=via, target_label=label[:200], enqueue=False)
    summaries: list = []

    def run(progress: Progress) -> dict[str, Any]:
        summaries.append(work(progress))
        return summary_counts(summaries[0])

    job_execute(job.pk, run, bar=bar)
    return summaries[0]


def cricsheet_import(
    paths: list[Path],
    *,
    via: str,
    workers: int = 1,
    bar: Any = None,
    on_result: Callable[[MatchResult], None] | None = None,
    root: Any = None,
) -> Any:
    """Import Cricsheet files as a job: one step per file (the total when it is cheap to
    know), ``on_result`` told of each file too (the command writes the rejections).
    ``root``: the existing tree root new competitions are filed under."""

    def work(progress: Progress) -> Any:
        done = 0
        progress(0, total=count_sources(paths), step="reading")

        def step(result: MatchResult) -> None:
            nonlocal done
            done += 1
            progress(done, step=Path(result.filename.rsplit(":", 1)[-1]).name)
            if on_result:
                on_result(result)

        return import_paths(paths, progress=step, workers=workers, root=root)

    label = ", ".join(str(p) for p in paths)
    return import_as_job(JobKind.CRICSHEET_IMPORT, via=via, label=label, work=work, bar=bar)


def games_import_job(*, directory: str, code: str, name: str, via: str, bar: Any = None) -> Any:
    """Import a Games directory as a job: one step per event."""
    return import_as_job(
        JobKind.GAMES_IMPORT,
        via=via,
        label=f"{code} from {directory}",
        work=lambda progress: games_import(
            directory=directory, code=code, name=name, progress=progress
        ),
        bar=bar,
    )


def league_import_job(
    paths: list[Path],
    *,
    code: str,
    name: str,
    via: str,
    config: dict | None = None,
    bar: Any = None,
) -> Any:
    """Import openfootball season files as a job: one step per match."""
    return import_as_job(
        JobKind.LEAGUE_IMPORT,
        via=via,
        label=f"{code}: {', '.join(p.name for p in paths)}",
        work=lambda progress: import_files(
            paths, code=code, name=name, config=config, progress=progress
        ),
        bar=bar,
    )


@shared_task(name="ingest.import_openfootball", acks_late=True)
def import_openfootball_task(
    paths: list[str], code: str, name: str, config: dict | None = None
) -> str:
    """Import openfootball season files (the same code as ``manage.py import_openfootball``),
    as a job; returns the import's summary line. Safe to retry: the import is idempotent."""
    return league_import_job(
        [Path(p) for p in paths], code=code, name=name, config=config, via="celery"
    ).line()


@shared_task(name="ingest.import_games", acks_late=True)
def import_games_task(directory: str, code: str, name: str) -> str:
    """Import a Games directory (the same code as ``manage.py import_games``), as a job;
    returns the import's summary line. Safe to retry: the import is idempotent and
    all-or-nothing."""
    return games_import_job(directory=directory, code=code, name=name, via="celery").line()


@shared_task(name="ingest.import_cricsheet", acks_late=True)
def import_cricsheet_task(paths: list[str]) -> str:
    """Import Cricsheet match files (the same code as ``manage.py import_cricsheet``), as a
    job; returns the summary line. Safe to retry: an unchanged file writes nothing and each
    match is all-or-nothing."""
    return cricsheet_import([Path(p) for p in paths], via="celery").line()
