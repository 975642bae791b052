"""Several inserts in one round trip to the database.

A write path that creates many small rows of different tables (an imported match: its
submission, fixture, log, sides, result lines, innings, wickets...) spends most of its time
waiting for one round trip per table, and much of the rest in Django's insert compiler,
which is general where this needs little. ``Inserts`` collects the rows, reads each field
as ``save()`` would store it (``auto_now`` stamps, related rows, JSON through the field
itself), writes one ``INSERT ... VALUES`` per table and sends them all as one
multi-statement query. The connection binds parameters on the client (Django's default for
psycopg 3), which is what lets several statements travel together.

Rows must carry their primary key when anything refers to them: the statements return
nothing. Foreign keys are checked at commit (Django declares them deferrable), so the order
of the statements does not matter to them.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.models.sql import DeleteQuery
from psycopg.types.json import Json, Jsonb

# Column types whose Python values psycopg takes as they are.
_PLAIN = (
    models.IntegerField,
    models.BooleanField,
    models.UUIDField,
    models.DateTimeField,
    models.DateField,
)


class Inserts:
    def __init__(self, using: str = DEFAULT_DB_ALIAS) -> None:
        # The connection itself, not the ``django.db.connection`` proxy: compiling goes
        # through it hundreds of times per batch.
        self.connection = connections[using]
        self._rows: dict[type[models.Model], list[models.Model]] = {}
        self._raw: list[tuple[str, list]] = []

    def add(self, *objs: models.Model) -> None:
        for obj in objs:
            self._rows.setdefault(type(obj), []).append(obj)

    def extend(self, objs: Iterable[models.Model]) -> None:
        self.add(*objs)

    def add_sql(self, sql: str, params: list) -> None:
        """A statement of the caller's own (an upsert, a delete) sent with the inserts."""
        self._raw.append((sql, params))

    def add_delete(self, queryset: models.QuerySet) -> None:
        """A ``queryset.delete()`` with no cascade to follow (a cache table), sent along."""
        query = queryset.query.clone()
        query.__class__ = DeleteQuery
        self._raw.append(query.get_compiler(connection=self.connection).as_sql())

    def statements(self) -> list[tuple[str, list[Any] | None]]:
        statements: list[tuple[str, list[Any] | None]] = []
        quote = self.connection.ops.quote_name
        for model, objs in self._rows.items():
            opts = model._meta
            with_pk = objs[0].pk is not None
            if any((obj.pk is not None) != with_pk for obj in objs):
                raise ValueError(f"{opts.label}: rows with and without ids in one insert")
            fields = [
                f for f in opts.concrete_fields if not f.generated and (with_pk or f is not opts.pk)
            ]
            readers = [self._reader(f) for f in fields]
            rows = ", ".join(
                f"({', '.join([_literal(read(obj)) for read in readers])})" for obj in objs
            )
            statements.append(
                (
                    # Names come from the models; values are literals quoted by _literal.
                    f"INSERT INTO {quote(opts.db_table)} "  # noqa: S608
                    f"({_columns(fields, quote)}) VALUES {rows}",
                    None,
                )
            )
        statements.extend(self._raw)
        return statements

    def _reader(self, field: models.Field):
        """How to read one field of a row as a database value: the plain column types
        directly (what ``get_db_prep_save`` would hand psycopg unchanged), anything else
        through the field itself. ``auto_now`` stamps and unsaved related rows are handled
        as ``save()`` would."""
        attname, connection = field.attname, self.connection
        if isinstance(field, models.DateField) and (field.auto_now or field.auto_now_add):
            return lambda obj: field.pre_save(obj, add=True)
        if field.is_relation:

            def related(obj):
                value = getattr(obj, attname)
                if value is None and field.is_cached(obj):
                    target = field.get_cached_value(obj)
                    if target is not None:
                        if target.pk is None:
                            raise ValueError(
                                f"{obj._meta.label}.{field.name} points at an unsaved row"
                            )
                        value = target.pk
                        setattr(obj, attname, value)
                return value

            return related
        if isinstance(field, models.CharField | models.TextField):
            # Choices members are str subclasses: store their value, whatever the driver
            # would make of an enum.
            return lambda obj: (
                value
                if type(value := getattr(obj, attname)) is str or value is None
                else str(value)
            )
        if isinstance(field, _PLAIN):
            return lambda obj: getattr(obj, attname)
        return lambda obj: field.get_db_prep_save(getattr(obj, attname), connection)

    def send(self) -> None:
        """Write everything collected in one query, then forget it.

        The rows' values are written into the query as literals (``_literal``) rather
        than sent as thousands of parameters: binding on the client, the driver would scan
        the whole text for placeholders and adapt each value through its generic path,
        which cost more than the database's work on an imported match. A caller's own
        statements are bound by the driver (``mogrify``), as before."""
        statements = self.statements()
        if statements:
            with self.connection.cursor() as cursor:
                mogrify = cursor.cursor.mogrify
                cursor.execute(
                    ";\n".join(
                        sql if params is None else mogrify(sql, params)
                        for sql, params in statements
                    )
                )
        for objs in self._rows.values():
            for obj in objs:
                obj._state.adding = False
                obj._state.db = self.connection.alias
        self._rows.clear()
        self._raw.clear()


def _text(value: str) -> str:
    if "\x00" in value:
        raise ValueError("a text value cannot hold a NUL character")
    # standard_conforming_strings is on (PostgreSQL's default since 9.1, checked by the
    # test suite): inside '...' only the quote itself is special.
    return "'" + value.replace("'", "''") + "'"


def _json(value: Json | Jsonb) -> str:
    dumps = value.dumps or _default_dumps
    text = dumps(value.obj)
    return _text(text if isinstance(text, str) else bytes(text).decode())


def _default_dumps(obj) -> str:
    import json

    return json.dumps(obj)


_LITERALS: dict[type[Any], Callable[[Any], str]] = {
    type(None): lambda v: "NULL",
    bool: lambda v: "true" if v else "false",
    int: str,
    str: _text,
    uuid.UUID: lambda v: f"'{v}'::uuid",
    # Django hands aware datetimes in UTC; the offset travels in the literal.
    datetime.datetime: lambda v: f"'{v.isoformat()}'::timestamptz",
    datetime.date: lambda v: f"'{v.isoformat()}'::date",
    Decimal: lambda v: f"'{v}'::numeric",
    float: lambda v: f"'{v!r}'::float8",
    bytes: lambda v: f"'\\x{v.hex()}'::bytea",
    memoryview: lambda v: f"'\\x{bytes(v).hex()}'::bytea",
    Jsonb: lambda v: f"{_json(v)}::jsonb",
    Json: lambda v: f"{_json(v)}::json",
}


# Checked in this order for subclasses (a bool is an int; a datetime is a date).
_SUBCLASSED: tuple[type[Any], ...] = (bool, int, str, float, datetime.datetime, datetime.date)


def _columns(fields: Iterable[models.Field[Any, Any]], quote: Callable[[str], str]) -> str:
    # Concrete fields are exactly those with a column, so the filter drops none; it tells
    # the type checker what Django guarantees.
    return ", ".join(quote(f.column) for f in fields if f.column is not None)


def _literal(value: object) -> str:
    """A value as an SQL literal, for the types a model field hands over on save. Anything
    else is refused rather than guessed."""
    render = _LITERALS.get(type(value))
    if render is not None:
        return render(value)
    for kind in _SUBCLASSED:
        if isinstance(value, kind):
            return _LITERALS[kind](kind(value) if kind in (bool, int, str, float) else value)
    raise TypeError(f"Inserts cannot write a {type(value).__name__} value")
