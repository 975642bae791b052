"""The test suite's ``flush``: empties every table between transactional tests.

Installed by ``omnium.settings_test`` only. The application role may not ``TRUNCATE`` at all,
and every append-only table refuses ``TRUNCATE`` for its owner too (a statement-level guard).
A transactional test still needs a clean database after it, so here, and nowhere else, the
owner lifts the truncate guards for the one transaction that empties the tables and sets
them again before it commits.

A transactional test writes a handful of the schema's tables; truncating all of them (each
with its indexes and partitions: new files for every one) is what made every such test's
teardown take seconds. So the tables that hold a row are found in one statement and their
rows deleted, the rest being empty already. As under ``TRUNCATE``, no row trigger fires
(their triggers, the append-only guards among them, are disabled for the transaction), and
the foreign keys, all deferrable, are checked once every referrer is empty.
A flush that must also restart the sequences (Django's default, which the transactional
tests turn off) still truncates every table, as Django's does.
"""

from __future__ import annotations

from contextlib import suppress
from importlib import import_module
from typing import Any

from django.apps import apps
from django.core.management.commands import flush
from django.core.management.sql import emit_post_migrate_signal
from django.db import connections, transaction

from omnium.db import as_owner

_TRUNCATE_GUARDS = """
SELECT format('%I', c.relname), format('%I', t.tgname)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND NOT t.tgisinternal AND t.tgtype & 32 = 32
"""

# The enabled triggers of the given tables and of their partitions (a partition has its own).
_TRIGGERS_OF = """
SELECT c.relname, t.tgname
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND NOT t.tgisinternal AND t.tgenabled = 'O'
AND (c.relname = ANY(%(tables)s) OR EXISTS (
    SELECT 1 FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
    WHERE i.inhrelid = c.oid AND p.relname = ANY(%(tables)s)))
ORDER BY c.relname, t.tgname
"""

# Site search's own tables, kept by triggers on the model tables (which TRUNCATE does not
# fire), are not models: emptied here too.
_SEARCH_TABLES = ("search_name", "search_word")


def _existing(cursor, names: list[str]) -> list[str]:
    cursor.execute("SELECT t FROM unnest(%s::text[]) t WHERE to_regclass(t) IS NOT NULL", [names])
    return [name for (name,) in cursor.fetchall()]


def _occupied(cursor, quote, tables: list[str]) -> set[str]:
    """The tables holding at least one row, in one statement."""
    if not tables:
        return set()
    cursor.execute(
        " UNION ALL ".join(
            # the schema's own table names, quoted
            f"SELECT %s WHERE EXISTS (SELECT 1 FROM {quote(table)})"  # noqa: S608
            for table in tables
        ),
        tables,
    )
    return {name for (name,) in cursor.fetchall()}


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        if options["interactive"] or options.get("reset_sequences", True):
            self._flush_everything(**options)
            return
        alias = options["database"]
        connection = connections[alias]
        quote = connection.ops.quote_name
        with as_owner(alias), transaction.atomic(using=alias), connection.cursor() as cursor:
            models = connection.introspection.django_table_names(
                only_existing=True, include_views=False
            )
            tables = sorted({*models, *_existing(cursor, list(_SEARCH_TABLES))})
            occupied = sorted(_occupied(cursor, quote, tables))
            if occupied:
                cursor.execute(_TRIGGERS_OF, {"tables": occupied})
                triggers = [(quote(table), quote(name)) for table, name in cursor.fetchall()]
                for table, trigger in triggers:
                    cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
                for table in occupied:
                    cursor.execute(f"DELETE FROM {quote(table)}")  # noqa: S608 - quoted
                # The key checks now, every referrer being empty: a table with checks
                # pending cannot have its triggers altered.
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                for table, trigger in triggers:
                    cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
        if not options.get("inhibit_post_migrate", False):
            # As Django's flush does: each app's management module connects its handlers.
            for app_config in apps.get_app_configs():
                with suppress(ImportError):
                    import_module(".management", app_config.name)
            emit_post_migrate_signal(options["verbosity"], options["interactive"], alias)

    def _flush_everything(self, **options: Any) -> None:
        alias = options["database"]
        connection = connections[alias]
        with as_owner(alias), transaction.atomic(using=alias):
            with connection.cursor() as cursor:
                cursor.execute(_TRUNCATE_GUARDS)
                guards = cursor.fetchall()
                for table, trigger in guards:
                    cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
            super().handle(**options)
            with connection.cursor() as cursor:
                existing = _existing(cursor, list(_SEARCH_TABLES))
                if existing:
                    cursor.execute(f"TRUNCATE {', '.join(existing)}")
            with connection.cursor() as cursor:
                for table, trigger in guards:
                    cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
