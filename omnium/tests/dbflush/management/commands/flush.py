"""The test suite's ``flush``: empties every table between transactional tests.

Installed by ``omnium.settings_test`` only. The application role may not ``TRUNCATE`` at all,
and every append-only table refuses ``TRUNCATE`` for its owner too (a statement-level guard).
A transactional test still needs a clean database after it, so here, and nowhere else, the
owner lifts the truncate guards for the one transaction that empties the tables and sets
them again before it commits.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.db import connections, transaction

from omnium.db import as_owner

_TRUNCATE_GUARDS = """
SELECT format('%I', c.relname), format('%I', t.tgname)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND NOT t.tgisinternal AND t.tgtype & 32 = 32
"""


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
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
                # Site search's own tables, kept by triggers on the tables just emptied
                # (which TRUNCATE does not fire), are not models: emptied here too.
                cursor.execute("SELECT to_regclass('search_name') IS NOT NULL")
                if cursor.fetchone()[0]:
                    cursor.execute("TRUNCATE search_name, search_word")
            with connection.cursor() as cursor:
                for table, trigger in guards:
                    cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
