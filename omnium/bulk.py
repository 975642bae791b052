"""Several inserts in one round trip to the database.

A write path that creates many small rows of different tables (an imported match: its
submission, fixture, log, sides, result lines, innings, wickets...) spends most of its time
waiting for one round trip per table, and much of the rest in Django's insert compiler,
which is general where this needs little. ``Inserts`` collects the rows, reads each field as
``save()`` would store it (``auto_now`` stamps, related rows, JSON through the field itself),
writes one ``INSERT ... VALUES`` per table and sends them all as one multi-statement query. The
connection binds parameters on the client (Django's default for psycopg 3), which is what
lets several statements travel together.

Rows must carry their primary key when anything refers to them: the statements return
nothing. Foreign keys are checked at commit (Django declares them deferrable), so the order
of the statements does not matter to them.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.models.sql import DeleteQuery

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

    def statements(self) -> list[tuple[str, list]]:
        statements = []
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
            row = f"({', '.join(['%s'] * len(fields))})"
            params = []
            for obj in objs:
                params.extend(read(obj) for read in readers)
            statements.append(
                (
                    # Names come from the models, values travel as parameters.
                    f"INSERT INTO {quote(opts.db_table)} "  # noqa: S608
                    f"({', '.join(quote(f.column) for f in fields)}) "
                    f"VALUES {', '.join([row] * len(objs))}",
                    params,
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
        """Write everything collected in one query, then forget it."""
        statements = self.statements()
        if statements:
            with self.connection.cursor() as cursor:
                cursor.execute(
                    ";\n".join(sql for sql, _ in statements),
                    [p for _, params in statements for p in params],
                )
        for objs in self._rows.values():
            for obj in objs:
                obj._state.adding = False
                obj._state.db = self.connection.alias
        self._rows.clear()
        self._raw.clear()
