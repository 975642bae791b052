"""The two database roles: the owner runs migrations, the application only reads and writes.

The application connects as a role that is not a superuser and owns nothing. It may select,
insert, update and delete rows, and nothing else: no ``TRUNCATE``, no ``ALTER TABLE ...
DISABLE TRIGGER`` (only a table's owner may), no ``SET session_replication_role`` (only a
superuser may). So the triggers that keep history append-only hold against the application
whatever it runs. The owner owns the database, the schema and every table; ``manage.py
migrate`` connects as the owner (``omnium/management/commands/migrate.py``) and ends by
running :func:`guard_statements`, which grants the application its rows on every table that
exists and, through default privileges, on every table the owner creates later.

A database URL without a user name connects as the default role of its kind
(``omnium_app`` for ``DATABASE_URL``, ``omnium_owner`` for ``DATABASE_OWNER_URL``), so an
application can never end up connected as the machine's superuser by omission.

Standard library and psycopg only: ``python -m omnium.services`` runs this before Django
can load (the settings need a database that answers).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from omnium.partitions import function_statements as partition_functions

APP_ROLE = "omnium_app"
OWNER_ROLE = "omnium_owner"
_ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def url_user(url: str) -> str:
    return unquote(urlsplit(url).username or "")


def url_with_user(url: str, user: str, password: str | None = None) -> str:
    """``url`` connecting as ``user`` (with ``password``, or none)."""
    parts = urlsplit(url)
    auth = quote(user, safe="")
    if password:
        auth += ":" + quote(password, safe="")
    host = parts.hostname or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{auth}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def role_urls(app_url: str, owner_url: str | None) -> tuple[str, str]:
    """The application's and the owner's URL, each with its role's name filled in.

    Without ``owner_url`` the owner connects to the application's database as
    ``omnium_owner`` (no password: set ``DATABASE_OWNER_URL`` where passwords are used).
    """
    if not url_user(app_url):
        app_url = url_with_user(app_url, APP_ROLE, urlsplit(app_url).password)
    if not owner_url:
        owner_url = url_with_user(app_url, OWNER_ROLE)
    elif not url_user(owner_url):
        owner_url = url_with_user(owner_url, OWNER_ROLE, urlsplit(owner_url).password)
    return app_url, owner_url


def admin_url(app_url: str, explicit: str | None) -> str:
    """Where roles and databases are created: ``DATABASE_ADMIN_URL``, or by default the
    server's maintenance database as the operating-system user (a local superuser)."""
    if explicit:
        return explicit
    parts = urlsplit(app_url)
    host = parts.hostname or "127.0.0.1"
    netloc = (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, "/postgres", "", ""))


def role_name(name: str) -> str:
    """``name`` as a quoted identifier, after checking it is a plain lowercase role name."""
    if not _ROLE_NAME.match(name):
        raise ValueError(f"database role {name!r}: use lowercase letters, digits and _ only")
    return f'"{name}"'


def connect_params(url: str, dbname: str | None = None) -> dict[str, Any]:
    parts = urlsplit(url)
    params: dict[str, Any] = {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 5432,
        "user": unquote(parts.username) if parts.username else None,
        "password": unquote(parts.password) if parts.password else None,
        "dbname": dbname or unquote(parts.path.lstrip("/")),
        "autocommit": True,
    }
    return {key: value for key, value in params.items() if value is not None}


def roles_statements(*, owner: str, app: str, existing: set[str]) -> list[tuple[str, list[str]]]:
    """``CREATE``/``ALTER ROLE`` statements giving both roles exactly their attributes.

    The owner may create databases (the test suite makes its own) and nothing more; the
    application may log in and nothing more. Neither is a superuser, neither may create
    roles, and the application is not a member of the owner.
    """
    attributes = {
        owner: "LOGIN CREATEDB NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS",
        app: "LOGIN NOCREATEDB NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT",
    }
    statements: list[tuple[str, list[str]]] = []
    for name, attrs in attributes.items():
        verb = "ALTER" if name in existing else "CREATE"
        statements.append((f"{verb} ROLE {role_name(name)} {attrs}", []))
    statements.append((f"REVOKE {role_name(owner)} FROM {role_name(app)}", []))
    return statements


def guard_statements(*, owner: str, app: str) -> list[str]:
    """Run inside the database by its owner (or a superuser) after every migration.

    - the application gets rows, never ``TRUNCATE``, ``TRIGGER`` or ``REFERENCES``, on every
      table now and, by default privileges, on every table the owner creates later;
    - ``pgtrigger.ignore`` is switched off for everyone: any session may set a custom
      setting, so a guard that a setting can lift is no guard. pgtrigger re-creates its
      ``_pgtrigger_should_ignore`` function whenever it installs a trigger, which is why
      this runs at the end of every ``migrate``, after the last trigger went in;
    - ``omnium_analyze(tables)`` lets the application refresh the planner's statistics of its
      own tables after a bulk load: PostgreSQL 15 lets only a table's owner ANALYZE it, and
      an ANALYZE by anyone else is skipped with a warning. The function runs as its owner,
      takes only tables of the ``public`` schema, and does nothing else;
    - ``omnium_partition_create`` lets the application (``manage.py partitions_ensure``, its
      beat task) add a month's or a year's partition to a partitioned log
      (``omnium.partitions``): creating a table is the owner's.
    """
    o, a = role_name(owner), role_name(app)
    return [
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA public TO {a}",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {a}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {a}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {a}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {o} IN SCHEMA public"
        f" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {a}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {o} IN SCHEMA public"
        f" GRANT USAGE, SELECT ON SEQUENCES TO {a}",
        _NEVER_IGNORE,
        _ANALYZE,
        "REVOKE ALL ON FUNCTION public.omnium_analyze(text[]) FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION public.omnium_analyze(text[]) TO {a}",
        *partition_functions(a),
    ]


_ANALYZE = """
CREATE OR REPLACE FUNCTION public.omnium_analyze(tables text[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY tables LOOP
        IF NOT EXISTS (
            SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = 'public' AND tablename = name
        ) THEN
            RAISE EXCEPTION 'omnium_analyze: % is not a table of this database', name;
        END IF;
        EXECUTE format('ANALYZE public.%I', name);
    END LOOP;
END;
$$
"""

_NEVER_IGNORE = """
CREATE OR REPLACE FUNCTION public._pgtrigger_should_ignore(trigger_name NAME) RETURNS BOOLEAN AS $$
BEGIN
    -- omnium: a guard is lifted only by a migration that drops it, never by a setting.
    RETURN FALSE;
END;
$$ LANGUAGE plpgsql
"""


def adopt_statements(*, owner: str, objects: list[tuple[str, str]]) -> list[str]:
    """Hand an existing database's schema objects to the owner (a database made before the
    roles existed belongs to whoever created it). ``objects`` are (kind, qualified name)."""
    o = role_name(owner)
    return ["ALTER SCHEMA public OWNER TO " + o] + [
        f"ALTER {kind} {name} OWNER TO {o}" for kind, name in objects
    ]


_FOREIGN_OBJECTS = """
SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                      WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END,
       format('%%I.%%I', n.nspname, c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S', 'v', 'm')
  AND pg_get_userbyid(c.relowner) <> %(owner)s
  AND NOT (c.relkind = 'S' AND EXISTS (
      SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
UNION ALL
SELECT 'FUNCTION', p.oid::regprocedure::text
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> %(owner)s
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
"""


def roles_ensure(*, admin: str, owner_url: str, app_url: str) -> None:
    """Create both roles, or reset their attributes, connected as ``admin``."""
    import psycopg

    owner, app = url_user(owner_url), url_user(app_url)
    if owner == app:
        raise ValueError(
            f"database role {owner!r} is both the owner and the application's: "
            "the application must not own the tables"
        )
    with psycopg.connect(**connect_params(admin, "postgres")) as conn:
        existing = {
            row[0]
            for row in conn.execute(
                "SELECT rolname FROM pg_roles WHERE rolname = ANY(%s)", [[owner, app]]
            )
        }
        for statement, params in roles_statements(owner=owner, app=app, existing=existing):
            conn.execute(statement.encode(), params)
        for url, name in ((owner_url, owner), (app_url, app)):
            password = urlsplit(url).password
            if password:
                conn.execute(
                    f"ALTER ROLE {role_name(name)} PASSWORD %s".encode(), [unquote(password)]
                )
    print(f"database roles: owner {owner!r}, application {app!r}")


def database_ensure(*, admin: str, name: str, owner: str, app: str, create: bool = True) -> bool:
    """Create database ``name`` owned by ``owner`` (unless ``create`` is false), or hand an
    existing one and everything in its public schema to ``owner``; then grant ``app`` its
    rows. Answers whether the database exists afterwards."""
    import psycopg

    o, a = role_name(owner), role_name(app)
    with psycopg.connect(**connect_params(admin, "postgres")) as conn:
        row = conn.execute(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        quoted = '"' + name.replace('"', '""') + '"'
        if row is None:
            if not create:
                return False
            conn.execute(f"CREATE DATABASE {quoted} OWNER {o}".encode())
            print(f"database {name!r}: created, owned by {owner!r}")
        elif row[0] != owner:
            conn.execute(f"ALTER DATABASE {quoted} OWNER TO {o}".encode())
            print(f"database {name!r}: now owned by {owner!r} (was {row[0]!r})")
        conn.execute(f"GRANT CONNECT, TEMPORARY ON DATABASE {quoted} TO {a}".encode())
    with psycopg.connect(**connect_params(admin, name)) as conn:
        objects = [(kind, obj) for kind, obj in conn.execute(_FOREIGN_OBJECTS, {"owner": owner})]
        for statement in adopt_statements(owner=owner, objects=objects):
            conn.execute(statement.encode())
        # As the owner, so what the guard creates belongs to the owner, who migrates later.
        conn.execute(f"SET ROLE {o}".encode())
        for statement in guard_statements(owner=owner, app=app):
            conn.execute(statement.encode())
    return True
