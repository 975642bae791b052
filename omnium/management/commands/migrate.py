"""``migrate`` as the database's owner, ending with the application role's grants.

Django's own command, run connected as ``DATABASE_OWNER`` (the application's role may not
create or alter tables). Afterwards it grants the application role its rows on every table
and switches ``pgtrigger.ignore`` off again, which pgtrigger turns back on whenever it
installs a trigger (``omnium.dbroles.guard_statements``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import migrate

from omnium.db import as_owner, guard_apply


class Command(migrate.Command):
    help = "Apply migrations as the database's owner, then grant the application role its rows."

    def handle(self, *args: Any, **options: Any) -> None:
        with as_owner(options["database"]):
            super().handle(*args, **options)
        guard_apply(options["database"])
