"""Trigger builders shared by every app's append-only tables.

The application's database role has no ``TRUNCATE`` privilege (``omnium/dbroles.py``); the
statement-level guard here refuses ``TRUNCATE`` to the owner as well, so a stray maintenance
command cannot empty a history table either. Row triggers do not fire on ``TRUNCATE``, which
is why the ``Protect`` on update and delete is not enough on its own.
"""

from __future__ import annotations

import pgtrigger


def never_truncated(name: str) -> pgtrigger.Trigger:
    """Refuse ``TRUNCATE`` of the table, whoever runs it."""
    return pgtrigger.Trigger(
        name=name,
        when=pgtrigger.Before,
        operation=pgtrigger.Truncate,
        level=pgtrigger.Statement,
        func="""
        RAISE EXCEPTION '%: history is never truncated', TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
        """,
    )


def append_only(prefix: str) -> list[pgtrigger.Trigger]:
    """Rows are inserted, never updated, deleted or truncated."""
    return [
        pgtrigger.Protect(
            name=f"{prefix}_append_only", operation=pgtrigger.Update | pgtrigger.Delete
        ),
        never_truncated(f"{prefix}_no_truncate"),
    ]
