"""Connecting as the database's owner for the few things only the owner may do.

The application's connection (``DATABASES["default"]``) belongs to a role that owns nothing
(``omnium/dbroles.py``). Migrations, and the test suite's creation of its database, run as
the owner named by ``DATABASE_OWNER``: the connection is closed, reopened with the owner's
credentials for the block, and closed again so the next query reconnects as the application.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

from omnium.dbroles import guard_statements


@contextmanager
def as_owner(alias: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """Run the block on ``alias`` connected as the owner role. Not inside a transaction."""
    connection = connections[alias]
    if connection.in_atomic_block:
        raise RuntimeError("as_owner: cannot switch roles inside a transaction")
    settings_dict = connection.settings_dict
    before = settings_dict["USER"], settings_dict["PASSWORD"]
    connection.close()
    settings_dict["USER"] = settings.DATABASE_OWNER["USER"]
    settings_dict["PASSWORD"] = settings.DATABASE_OWNER["PASSWORD"]
    try:
        yield
    finally:
        connection.close()
        settings_dict["USER"], settings_dict["PASSWORD"] = before


def guard_apply(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Grant the application role its rows and switch ``pgtrigger.ignore`` off (as the owner)."""
    with as_owner(alias), connections[alias].cursor() as cursor:
        for statement in guard_statements(
            owner=str(settings.DATABASE_OWNER["USER"]), app=settings.DATABASE_APP_ROLE
        ):
            cursor.execute(statement)


def analyze(*tables: str, alias: str = DEFAULT_DB_ALIAS) -> None:
    """Refresh the planner's statistics of ``tables`` after a bulk load, as the application
    role (through the owner's ``omnium_analyze``; a plain ANALYZE by a role that does not own
    the table is skipped by PostgreSQL with only a warning)."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT omnium_analyze(%s)", [list(tables)])
