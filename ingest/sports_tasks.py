"""Celery adapters for the sports importers: ids and paths in, one importer call, a summary
out. Registered through ``CELERY_IMPORTS`` (this module is not the app's ``tasks.py``)."""

from celery import shared_task

from ingest.cricsheet.importer import import_paths
from ingest.games import games_import
from ingest.openfootball import import_files


@shared_task(name="ingest.import_openfootball", acks_late=True)
def import_openfootball_task(
    paths: list[str], code: str, name: str, config: dict | None = None
) -> str:
    """Import openfootball season files (the same code as ``manage.py import_openfootball``);
    returns the import's summary line. Safe to retry: the import is idempotent."""
    from pathlib import Path

    return import_files([Path(p) for p in paths], code=code, name=name, config=config).line()


@shared_task(name="ingest.import_games", acks_late=True)
def import_games_task(directory: str, code: str, name: str) -> str:
    """Import a Games directory (the same code as ``manage.py import_games``); returns the
    import's summary line. Safe to retry: the import is idempotent and all-or-nothing."""

    return games_import(directory=directory, code=code, name=name).line()


@shared_task(name="ingest.import_cricsheet", acks_late=True)
def import_cricsheet_task(paths: list[str]) -> str:
    """Import Cricsheet match files (the same code as ``manage.py import_cricsheet``);
    returns the summary line. Safe to retry: an unchanged file writes nothing and each
    match is all-or-nothing."""

    return import_paths(paths).line()
