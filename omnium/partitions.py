"""The partitioned logs: the busiest append-mostly tables, split by PostgreSQL's declarative
partitioning (``docs/scaling.md``, "Partitioned logs").

A table becomes partitioned in a migration, by :func:`partition_sql` (its ``reverse_sql`` is
:func:`unpartition_sql`): the rows move to a new partitioned parent of the same columns,
checks, unique rules, indexes, grants and triggers. What PostgreSQL cannot keep on a
partitioned table moves to a trigger:

- a primary key must contain the partition key, so ``id`` alone is unique by the trigger
  ``partitioned_<table>_id_unique`` (the key is ``(id, partition key)``), or, with
  ``id_trigger=False``, by the table's own statement check (deliveries: a row trigger costs
  their ``COPY`` import several times over);
- a foreign key may reference only a unique rule that contains the partition key, so a
  reference to ``id`` is checked by a deferred constraint trigger on the referencing table
  (``partitioned_ref_<table>_<column>``, SQLSTATE 23503 like the foreign key it replaces)
  and, on the referenced table, by a trigger refusing the delete of a referenced row
  (none with ``kept=False``: for a table whose own triggers refuse every delete);
- each of these row checks probes the table by ``id`` (or the referencing column) with
  ``enable_seqscan`` off (:data:`PROBE_SETTING`, a setting of the function): its plan is
  cached for the statement, and planned on an empty partition that statistics call empty
  (a new month's, once analyzed) it would scan that partition's heap, which the statement
  itself is filling, so a bulk insert grew quadratic (40,000 observations into an analyzed
  empty table: 33.3 s, against 0.96 s with the setting; about 2 microseconds a row
  otherwise);
- a statement-level trigger (``TRUNCATE``) is not inherited by partitions, so each partition
  gets its own copy (named ``partitioned_...``: ``pgtrigger`` manages only its ``pgtrigger_``
  triggers, and would prune a copy it does not know).

Future partitions are created by ``omnium_partition_create`` (a ``SECURITY DEFINER``
function of the owner, like ``omnium_analyze``: the application role may not create tables),
called by ``manage.py partitions_ensure`` and its Celery beat task.

Standard library only at import (``omnium.dbroles`` installs the functions after every
``migrate``).
"""

# ruff: noqa: S608 - SQL built from constant names that _check validates, never from input

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

Kind = Literal["month", "year", "hash"]

# The row checks' setting (see above): every ``partitioned_*`` check function carries it.
PROBE_SETTING = "enable_seqscan = off"


def probe_setting_sql(app: str) -> str:
    """For a database whose checks were made before they carried the setting: gives it to
    every check function of ``app``'s partitioned tables (``partitioned_<app>_...``, and the
    reference and kept checks named after ``app``'s referencing tables). A check made later
    gets it from its CREATE FUNCTION; running this again changes nothing. A migration going
    back leaves the setting (``RunSQL.noop``): it changes no rule, only the plan."""
    _check(app)
    return f"""
DO $$
DECLARE f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
             JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = 'public' AND p.proname ~ '^partitioned_(ref_|kept_)?{app}_'
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET {PROBE_SETTING}', f);
    END LOOP;
END;
$$;
"""


@dataclass(frozen=True)
class Scheme:
    """How one table is partitioned."""

    table: str
    key: str
    kind: Kind
    # Range partitions on a timestamptz key are bounded at midnight UTC.
    timestamp: bool = False
    # Hash partitions: how many (fixed; a hash table needs no future partitions).
    modulus: int = 0


# Every partitioned table and its scheme, read by ``partitions_ensure``. A migration spells
# its own arguments out (a migration never reads today's code's choices).
SCHEMES: tuple[Scheme, ...] = (
    Scheme("catalogue_priceobservation", "observed_at", "month", timestamp=True),
    Scheme("sports_statline", "occurred_on", "year"),
    Scheme("sports_timelineitem", "stream_id", "hash", modulus=8),
    Scheme("cricket_delivery", "occurred_on", "year"),
)

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")


def _check(*names: str) -> None:
    for name in names:
        if not _IDENT.match(name):
            raise ValueError(f"partitions: {name!r} is not a plain table or column name")


def partition_name(table: str, kind: Kind, start: date) -> str:
    return f"{table}_p{start:%Y}" if kind == "year" else f"{table}_p{start:%Y_%m}"


def bound(start: date, *, timestamp: bool) -> str:
    return f"{start.isoformat()} 00:00:00+00" if timestamp else start.isoformat()


def _next(start: date, kind: Kind) -> date:
    if kind == "year":
        return date(start.year + 1, 1, 1)
    return date(start.year + (start.month == 12), start.month % 12 + 1, 1)


def ranges(kind: Kind, *, now: datetime, months_ahead: int) -> list[tuple[date, date]]:
    """The partitions to have from ``now``'s month (or year) to ``months_ahead`` beyond."""
    if months_ahead < 0:
        raise ValueError("partitions: --months-ahead must be 0 or more")
    total = now.year * 12 + now.month - 1 + months_ahead
    last = date(total // 12, total % 12 + 1, 1)
    start = date(now.year, 1 if kind == "year" else now.month, 1)
    out = []
    while start <= last:
        out.append((start, _next(start, kind)))
        start = _next(start, kind)
    return out


# The owner's function that adds one range partition to a partitioned table of ``public``,
# named ``<parent>_p<suffix>``. Rows the default partition caught for the new range move into
# it (the default's triggers are lifted for that one delete, inside the same transaction,
# by the owner). Returns whether it created the partition (false: it was there already).
CREATE_FUNCTION = r"""
CREATE OR REPLACE FUNCTION public.omnium_partition_create(
    parent text, suffix text, lower_bound text, upper_bound text
) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    parent_oid oid;
    child text := parent || '_p' || suffix;
    key text;
    fallback text;
    caught bigint := 0;
    predicate text;
BEGIN
    SELECT c.oid INTO parent_oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relname = parent AND c.relkind = 'p';
    IF parent_oid IS NULL THEN
        RAISE EXCEPTION 'omnium_partition_create: % is not a partitioned table', parent;
    END IF;
    IF suffix !~ '^[0-9]{4}(_[0-9]{2})?$' THEN
        RAISE EXCEPTION 'omnium_partition_create: suffix % is not YYYY or YYYY_MM', suffix;
    END IF;
    IF to_regclass('public.' || quote_ident(child)) IS NOT NULL THEN
        RETURN false;
    END IF;
    SELECT a.attname INTO key FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = parent_oid;
    SELECT c.relname INTO fallback FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = parent_oid AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT';
    predicate := format('%I >= %L AND %I < %L', key, lower_bound, key, upper_bound);
    IF fallback IS NOT NULL THEN
        EXECUTE format('SELECT count(*) FROM public.%I WHERE %s', fallback, predicate)
        INTO caught;
    END IF;
    IF caught = 0 THEN
        EXECUTE format('CREATE TABLE public.%I PARTITION OF public.%I FOR VALUES FROM (%L) TO (%L)',
                       child, parent, lower_bound, upper_bound);
    ELSE
        EXECUTE format('CREATE TABLE public.%I (LIKE public.%I INCLUDING DEFAULTS'
                       ' INCLUDING CONSTRAINTS)', child, parent);
        EXECUTE format('INSERT INTO public.%I SELECT * FROM public.%I WHERE %s',
                       child, fallback, predicate);
        -- The default's triggers are lifted only with no trigger event of this
        -- transaction pending on it: the deferred checks run now, and are deferred again.
        SET CONSTRAINTS ALL IMMEDIATE;
        SET CONSTRAINTS ALL DEFERRED;
        EXECUTE format('ALTER TABLE public.%I DISABLE TRIGGER USER', fallback);
        EXECUTE format('DELETE FROM public.%I WHERE %s', fallback, predicate);
        EXECUTE format('ALTER TABLE public.%I ENABLE TRIGGER USER', fallback);
        EXECUTE format('ALTER TABLE public.%I ATTACH PARTITION public.%I'
                       ' FOR VALUES FROM (%L) TO (%L)', parent, child, lower_bound, upper_bound);
    END IF;
    PERFORM public.omnium_partition_guard(parent, child);
    RETURN true;
END;
$$
"""

# Copies the parent's statement-level triggers (the TRUNCATE guards) onto one partition:
# PostgreSQL clones row triggers to partitions, never statement triggers.
GUARD_FUNCTION = r"""
CREATE OR REPLACE FUNCTION public.omnium_partition_guard(parent text, child text)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
    trig record;
    copy text;
BEGIN
    FOR trig IN
        SELECT t.tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
        WHERE t.tgrelid = ('public.' || quote_ident(parent))::regclass
          AND NOT t.tgisinternal AND t.tgparentid = 0 AND t.tgtype & 1 = 0
          AND t.tgname LIKE 'pgtrigger\_%'
    LOOP
        copy := 'partitioned_' || substr(trig.tgname, 11);
        IF NOT EXISTS (
            SELECT 1 FROM pg_trigger WHERE tgname = copy
              AND tgrelid = ('public.' || quote_ident(child))::regclass
        ) THEN
            EXECUTE replace(
                replace(trig.def, 'CREATE TRIGGER ' || trig.tgname || ' ',
                        'CREATE TRIGGER ' || copy || ' '),
                ' ON public.' || parent || ' ', ' ON public.' || child || ' ');
        END IF;
    END LOOP;
END;
$$
"""


def function_statements(app: str) -> list[str]:
    """The owner's functions (for ``omnium.dbroles.guard_statements``); ``app`` quoted."""
    return [
        GUARD_FUNCTION,
        CREATE_FUNCTION,
        "REVOKE ALL ON FUNCTION public.omnium_partition_create(text, text, text, text) FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION public.omnium_partition_create(text, text, text, text)"
        f" TO {app}",
    ]


@dataclass(frozen=True)
class Reference:
    """A foreign key into a partitioned table's ``id``, kept by triggers.

    ``kept=False``: no trigger on the partitioned table refuses the delete of a referenced
    row, for a table whose own triggers already refuse every delete and every change of
    ``id`` (deliveries); a refusal then reads as that table's, not as a reference's."""

    table: str
    column: str
    kept: bool = True


def _name(text: str) -> str:
    """``text`` as an identifier of at most 63 bytes (a hash keeps long ones apart)."""
    if len(text) <= 63:
        return text
    return f"{text[:54]}_{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _ref_names(table: str, ref: Reference) -> tuple[str, str]:
    trigger = _name(f"partitioned_ref_{ref.table}_{ref.column}")
    guard = _name(f"partitioned_kept_{ref.table}_{ref.column}")
    return trigger, guard


def _reference_sql(table: str, ref: Reference) -> str:
    trigger, guard = _ref_names(table, ref)
    return f"""
CREATE FUNCTION public.{trigger}() RETURNS trigger LANGUAGE plpgsql
    SET {PROBE_SETTING} AS $f$
BEGIN
    IF NEW.{ref.column} IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM public.{table} WHERE id = NEW.{ref.column}) THEN
        RAISE EXCEPTION '%.{ref.column}: id % is not present in table %',
            TG_TABLE_NAME, NEW.{ref.column}, '{table}'
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END;
$f$;
CREATE CONSTRAINT TRIGGER {trigger} AFTER INSERT OR UPDATE OF {ref.column}
    ON public.{ref.table} DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION public.{trigger}();
""" + (_guard_sql(table, ref, guard) if ref.kept else "")


def _guard_sql(table: str, ref: Reference, guard: str) -> str:
    return f"""
CREATE FUNCTION public.{guard}() RETURNS trigger LANGUAGE plpgsql
    SET {PROBE_SETTING} AS $f$
BEGIN
    IF (TG_OP = 'DELETE' OR NEW.id IS DISTINCT FROM OLD.id)
       AND EXISTS (SELECT 1 FROM public.{ref.table} WHERE {ref.column} = OLD.id) THEN
        RAISE EXCEPTION '%: id % is still referenced by %.{ref.column}',
            TG_TABLE_NAME, OLD.id, '{ref.table}'
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN OLD;
END;
$f$;
CREATE TRIGGER {guard} BEFORE DELETE OR UPDATE OF id ON public.{table}
    FOR EACH ROW EXECUTE FUNCTION public.{guard}();
"""


def _unreference_sql(table: str, ref: Reference) -> str:
    trigger, guard = _ref_names(table, ref)
    return f"""
DROP TRIGGER {trigger} ON public.{ref.table};
DROP FUNCTION public.{trigger}();
""" + (
        f"""DROP TRIGGER {guard} ON public.{table};
DROP FUNCTION public.{guard}();
"""
        if ref.kept
        else ""
    )


# What a table's rebuild keeps, read from the catalogue before the old table goes: unique,
# exclusion and foreign-key constraints (checks and NOT NULL travel with LIKE), indexes no
# constraint owns, triggers (with pgtrigger's hash comment), and grants.
_CAPTURE = r"""
    SELECT coalesce(array_agg(format('ALTER TABLE public.%I ADD CONSTRAINT %I %s',
                                     t, conname, pg_get_constraintdef(oid)) ORDER BY conname),
                    '{}')
    INTO keep_constraints FROM pg_constraint
    WHERE conrelid = old_oid AND contype IN ('u', 'f', 'x');
    SELECT coalesce(array_agg(pg_get_indexdef(i.indexrelid) ORDER BY i.indexrelid), '{}')
    INTO keep_indexes FROM pg_index i
    WHERE i.indrelid = old_oid AND NOT EXISTS (
        SELECT 1 FROM pg_constraint c
        WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u', 'x'));
    SELECT coalesce(array_agg(pg_get_triggerdef(oid) || coalesce(format(
                        '; COMMENT ON TRIGGER %I ON public.%I IS %L',
                        tgname, t, obj_description(oid, 'pg_trigger')), '')
                    ORDER BY tgname), '{}')
    INTO keep_triggers FROM pg_trigger
    WHERE tgrelid = old_oid AND NOT tgisinternal AND tgparentid = 0
      AND tgname NOT LIKE 'partitioned\_%';
    SELECT coalesce(array_agg(format('GRANT %s ON public.%I TO %I', a.privilege_type, t,
                                     pg_get_userbyid(a.grantee))), '{}')
    INTO keep_grants FROM pg_class c, aclexplode(c.relacl) a
    WHERE c.oid = old_oid AND a.grantee <> c.relowner AND a.grantee <> 0;
"""

_RESTORE = """
    EXECUTE format('ALTER TABLE public.%I RENAME TO %I', tmp, t);
    EXECUTE format('ALTER TABLE public.%I RENAME CONSTRAINT %I TO %I', t, tmp || '_pkey',
                   t || '_pkey');
    EXECUTE format('ALTER SEQUENCE %s RENAME TO %I', pg_get_serial_sequence(t, 'id'),
                   t || '_id_seq');
    FOREACH statement IN ARRAY keep_constraints || keep_indexes || keep_triggers || keep_grants
    LOOP
        EXECUTE statement;
    END LOOP;
"""


def _rebuild(table: str, *, create: str, body: str) -> str:
    """A DO block that rebuilds ``table`` as ``create`` (the new table's DDL, named ``tmp``),
    with ``body`` between its creation and the copy of the rows."""
    return f"""
DO $rebuild$
DECLARE
    t text := '{table}';
    tmp text := '{table}__rebuilt';
    old_oid oid := 'public.{table}'::regclass;
    keep_constraints text[];
    keep_indexes text[];
    keep_triggers text[];
    keep_grants text[];
    statement text;
    start date;
    stop date;
    last bigint;
    called boolean;
BEGIN
    {_CAPTURE}
    {create}
    {body}
    EXECUTE format('INSERT INTO public.%I SELECT * FROM public.%I', tmp, t);
    EXECUTE format('SELECT last_value, is_called FROM %s', pg_get_serial_sequence(t, 'id'))
    INTO last, called;
    PERFORM setval(pg_get_serial_sequence(tmp, 'id'), last, called);
    EXECUTE format('DROP TABLE public.%I', t);
    {_RESTORE}
END;
$rebuild$;
"""


def _like(table: str) -> str:
    return (
        f"CREATE TABLE public.{table}__rebuilt (LIKE public.{table} INCLUDING DEFAULTS"
        " INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING GENERATED INCLUDING STORAGE"
        " INCLUDING COMMENTS)"
    )


def partition_sql(
    table: str,
    key: str,
    kind: Kind,
    *,
    timestamp: bool = False,
    modulus: int = 0,
    months_ahead: int = 3,
    references: tuple[Reference, ...] = (),
    id_trigger: bool = True,
) -> str:
    """A migration's SQL making ``table`` partitioned by ``key``, rows and rules kept.

    Range kinds get one partition per month (or year) from the oldest row's to
    ``months_ahead`` past today (or the newest row), and a default partition for the rest.
    ``id_trigger=False``: no row trigger keeps ``id`` unique, for a table that checks it
    itself (deliveries do, once per statement: a row trigger costs a COPY several times
    over, ``docs/scaling.md``).
    """
    _check(table, key, *(name for ref in references for name in (ref.table, ref.column)))
    if kind == "hash":
        if modulus < 1:
            raise ValueError("partitions: a hash scheme needs a modulus")
        method = "HASH"
        parts = f"""
    FOR i IN 0..{modulus - 1} LOOP
        EXECUTE format('CREATE TABLE public.%I PARTITION OF public.%I'
                       ' FOR VALUES WITH (MODULUS {modulus}, REMAINDER %s)',
                       t || '_h' || i, tmp, i);
    END LOOP;"""
    else:
        method = "RANGE"
        step = "1 year" if kind == "year" else "1 month"
        name = "YYYY" if kind == "year" else "YYYY_MM"
        suffix = " 00:00:00+00" if timestamp else ""
        low = f"min({key}) AT TIME ZONE 'UTC'" if timestamp else f"min({key})::timestamp"
        high = f"max({key}) AT TIME ZONE 'UTC'" if timestamp else f"max({key})::timestamp"
        parts = f"""
    SELECT date_trunc('{kind}', {low})::date,
           date_trunc('{kind}', greatest({high}, now() AT TIME ZONE 'UTC'))::date
    INTO start, stop FROM public.{table};
    start := least(coalesce(start, date_trunc('{kind}', now() AT TIME ZONE 'UTC')::date),
                   date_trunc('{kind}', now() AT TIME ZONE 'UTC')::date);
    stop := (date_trunc('{kind}', stop + interval '{months_ahead} months'))::date;
    WHILE start <= stop LOOP
        EXECUTE format('CREATE TABLE public.%I PARTITION OF public.%I'
                       ' FOR VALUES FROM (%L) TO (%L)',
                       t || '_p' || to_char(start, '{name}'), tmp,
                       start::text || '{suffix}',
                       (start + interval '{step}')::date::text || '{suffix}');
        start := (start + interval '{step}')::date;
    END LOOP;
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.%I DEFAULT',
                   t || '_default', tmp);"""
    create = f"""
    EXECUTE '{_like(table)} PARTITION BY {method} ({key})';
    EXECUTE 'ALTER TABLE public.{table}__rebuilt ADD CONSTRAINT {table}__rebuilt_pkey
             PRIMARY KEY (id, {key})';"""
    unique = f"""
CREATE FUNCTION public.partitioned_{table}_id_unique() RETURNS trigger LANGUAGE plpgsql
    SET {PROBE_SETTING} AS $f$
BEGIN
    IF (TG_OP = 'INSERT' OR NEW.id IS DISTINCT FROM OLD.id)
       AND EXISTS (SELECT 1 FROM public.{table} WHERE id = NEW.id) THEN
        RAISE EXCEPTION 'duplicate key value violates the unique rule of "{table}".id: %',
            NEW.id USING ERRCODE = 'unique_violation';
    END IF;
    RETURN NEW;
END;
$f$;
CREATE TRIGGER partitioned_{table}_id_unique BEFORE INSERT OR UPDATE OF id
    ON public.{table} FOR EACH ROW EXECUTE FUNCTION public.partitioned_{table}_id_unique();
"""
    guards = (
        (unique if id_trigger else "")
        + f"""
SELECT public.omnium_partition_guard('{table}', c.relname)
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'public.{table}'::regclass;
"""
    )
    return (
        GUARD_FUNCTION
        + ";\n"
        + _rebuild(table, create=create, body=parts)
        + guards
        + "".join(_reference_sql(table, ref) for ref in references)
    )


def unpartition_sql(
    table: str, *, references: tuple[Reference, ...] = (), id_trigger: bool = True
) -> str:
    """The reverse of :func:`partition_sql`: one plain table again, rows kept."""
    _check(table, *(name for ref in references for name in (ref.table, ref.column)))
    create = f"""
    EXECUTE '{_like(table)}';
    EXECUTE 'ALTER TABLE public.{table}__rebuilt ADD CONSTRAINT {table}__rebuilt_pkey
             PRIMARY KEY (id)';"""
    return (
        "".join(_unreference_sql(table, ref) for ref in references)
        + _rebuild(table, create=create, body="")
        + (f"DROP FUNCTION public.partitioned_{table}_id_unique();\n" if id_trigger else "")
    )


def _earliest(cursor, scheme: Scheme) -> date | None:
    """The first day of ``scheme``'s earliest range partition (read from the names)."""
    cursor.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " WHERE i.inhparent = %s::regclass",
        [f"public.{scheme.table}"],
    )
    starts = []
    for (name,) in cursor.fetchall():
        found = re.fullmatch(rf"{scheme.table}_p(\d{{4}})(?:_(\d{{2}}))?", name)
        if found:
            starts.append(date(int(found[1]), int(found[2] or 1), 1))
    return min(starts, default=None)


def _before(cursor, scheme: Scheme, first: date) -> list[tuple[date, date]]:
    """The ranges from the oldest row the default partition caught below ``first`` (an
    import of older fixtures than any partition) up to ``first``: a read of the default
    partition only, since every partition starts at or after ``first``."""
    _check(scheme.table, scheme.key)
    cursor.execute(
        f"SELECT min({scheme.key}) FROM public.{scheme.table} WHERE {scheme.key} < %s",
        [bound(first, timestamp=scheme.timestamp)],
    )
    oldest = cursor.fetchone()[0]
    if oldest is None:
        return []
    if isinstance(oldest, datetime):
        oldest = oldest.astimezone(UTC).date()
    start = date(oldest.year, 1 if scheme.kind == "year" else oldest.month, 1)
    out = []
    while start < first:
        out.append((start, _next(start, scheme.kind)))
        start = _next(start, scheme.kind)
    return out


def ensure(*, now: datetime, months_ahead: int) -> list[tuple[str, bool]]:
    """Create the partitions every range-partitioned table lacks, from ``now``'s month (or
    year) to ``months_ahead`` beyond, and the earlier ones for rows the default partition
    caught below the earliest partition. Returns (partition, created) for each one wanted."""
    from django.db import connection

    done: list[tuple[str, bool]] = []
    with connection.cursor() as cursor:
        for scheme in SCHEMES:
            if scheme.kind == "hash":
                continue
            wanted = ranges(scheme.kind, now=now, months_ahead=months_ahead)
            first = _earliest(cursor, scheme)
            if first is not None:
                wanted = _before(cursor, scheme, first) + wanted
            for start, stop in wanted:
                suffix = f"{start:%Y}" if scheme.kind == "year" else f"{start:%Y_%m}"
                cursor.execute(
                    "SELECT omnium_partition_create(%s, %s, %s, %s)",
                    [
                        scheme.table,
                        suffix,
                        bound(start, timestamp=scheme.timestamp),
                        bound(stop, timestamp=scheme.timestamp),
                    ],
                )
                done.append(
                    (partition_name(scheme.table, scheme.kind, start), cursor.fetchone()[0])
                )
    return done
