"""A database that was migrated before the renovation of the layout, then migrated forward
with today's code, has exactly the schema of one built from nothing.

The renovation moved apps and models between packages and apps while keeping every table,
column, constraint, index and trigger: its migrations change state only. The test builds the
schema of the last commit before it in a scratch database (with that commit's own code),
applies today's migrations, and compares ``pg_dump --schema-only`` with the test database,
which pytest-django built from today's migrations.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tarfile

import psycopg
import pytest
from django.db import connection

from omnium.dbroles import APP_ROLE, OWNER_ROLE, admin_url, url_with_user
from omnium.testing import REPO_ROOT, _database_url_for_test_db

# The last commit of main before the layout renovation.
BEFORE_RENOVATION = "b4a5ec0c4de0f8bd257b3b7a955578a3ef143e54"


def _git(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, check=False, timeout=120, **kwargs
    )


def _base_commit() -> str | None:
    found = _git("cat-file", "-e", f"{BEFORE_RENOVATION}^{{commit}}")
    return BEFORE_RENOVATION if found.returncode == 0 else None


def _schema(url: str) -> str:
    dump = subprocess.run(
        ["pg_dump", "--schema-only", "--no-owner", "--no-privileges", url],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    # pg_dump's header names the server and dump versions; the restrict key is random.
    text = "\n".join(
        line
        for line in dump.splitlines()
        # Blank lines carry no schema (pg_dump spaces some sections by the role it runs as).
        if line.strip() and not line.startswith("--") and not re.match(r"\\(un)?restrict ", line)
    )
    # Which year or month partitions a log has depends on its rows and on the day, not on
    # the migrations (the partition tests' round trips leave the months and years of their
    # rows in a reused test database): every statement naming one of those partitions or
    # one of their indexes is left out of the comparison.
    dated = _dated_partitions(url)
    return "\n".join(
        statement
        for statement in re.split(r";\n", text)
        if not dated.intersection(re.findall(r"public\.(\w+)", statement))
    )


def _dated_partitions(url: str) -> set[str]:
    """The year and month partitions of the partitioned logs, and their indexes."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            r"""
            SELECT c.relname, i.relname
            FROM pg_inherits h
            JOIN pg_class c ON c.oid = h.inhrelid AND c.relkind = 'r'
            LEFT JOIN pg_index x ON x.indrelid = c.oid
            LEFT JOIN pg_class i ON i.oid = x.indexrelid
            WHERE c.relname ~ '_p[0-9]{4}(_[0-9]{2})?$'
            """
        ).fetchall()
    return {name for row in rows for name in row if name}


def _migrate(tree, url: str, **extra: str) -> None:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "true", **extra}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=tree,
        env=env,
        check=True,
        timeout=900,
    )


@pytest.fixture
def scratch_database():
    """A database owned by the schema owner, as `make services` makes one; both trees
    migrate it as the owner (the old tree knew one role; the new one migrates as the owner)."""
    test_url = _database_url_for_test_db()
    server, _, test_name = test_url.rpartition("/")
    name = f"{test_name}_from_before"
    admin = admin_url(test_url, os.environ.get("DATABASE_ADMIN_URL"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}" OWNER {OWNER_ROLE}')
    yield url_with_user(f"{server}/{name}", OWNER_ROLE)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.django_db
def test_migrating_forward_from_before_the_renovation_equals_a_fresh_schema(
    tmp_path, scratch_database
):
    base = _base_commit()
    if base is None:
        pytest.skip("this clone lacks the history before the renovation (a shallow clone)")
    archive = _git("archive", "--format=tar", base)
    assert archive.returncode == 0, archive.stderr
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path, filter="data")

    # The old tree knew one role: it migrates as the owner. Today's migrate runs as the
    # owner too and grants the application's role its rows.
    _migrate(tmp_path, scratch_database)
    _migrate(
        REPO_ROOT,
        url_with_user(scratch_database, APP_ROLE),
        DATABASE_OWNER_URL=scratch_database,
    )

    assert connection.vendor == "postgresql"
    test_db = url_with_user(_database_url_for_test_db(), OWNER_ROLE)
    migrated, fresh = _schema(scratch_database), _schema(test_db)
    if migrated != fresh:
        import difflib  # only to explain a failure

        diff = difflib.unified_diff(fresh.splitlines(), migrated.splitlines(), lineterm="", n=1)
        raise AssertionError("\n".join(list(diff)[:80]))
