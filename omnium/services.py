"""Bring up what omnium needs before Django starts: PostgreSQL, Redis and the database.

Run as ``python -m omnium.services`` (``make run`` and ``make test`` do). With
``--create-database`` it also creates the two database roles (``omnium/dbroles.py``) and the
database, owned by the owner role. Only the standard library and psycopg are used, because
Django settings cannot load without a database URL that answers. A service that is down on
this machine and installed here is started with the commands in the design notes; anything
else stops with a sentence saying what to start.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlsplit

from omnium import embedded
from omnium.dbroles import admin_url, database_ensure, role_urls, roles_ensure, url_user

DEFAULT_DATABASE_URL = "postgres://omnium_app@127.0.0.1:5432/omnium"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


def _reachable(host: str, port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _wait_for(host: str, port: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _reachable(host, port):
            return True
        time.sleep(0.25)
    return False


def _start_postgres() -> bool:
    if not shutil.which("pg_ctlcluster") or not Path("/etc/postgresql").is_dir():
        return False
    for version in sorted(os.listdir("/etc/postgresql")):
        subprocess.run(  # noqa: S603
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"],  # noqa: S607
            check=False,
        )
    return True


def _start_redis() -> bool:
    if not shutil.which("redis-server"):
        return False
    Path("/var/lib/redis").mkdir(parents=True, exist_ok=True)
    Path("/var/log/redis").mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [  # noqa: S607
            "redis-server",
            "--daemonize",
            "yes",
            "--bind",
            "127.0.0.1",
            "-::1",
            "--port",
            "6379",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            "/var/lib/redis",
            "--logfile",
            "/var/log/redis/ci.log",
        ],
        check=False,
    )
    return True


def ensure_service(
    name: str, url: str, default_port: int, starter: Callable[[], bool], *, fallback: bool = False
) -> bool:
    """Whether ``name`` answers at ``url`` (started here when installed and down). With
    ``fallback`` a server that cannot be reached is reported and False returned (the
    caller starts the embedded one); otherwise the process stops saying what to start."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or default_port
    if _reachable(host, port):
        print(f"{name}: up at {host}:{port}")
        return True
    if host in LOCAL_HOSTS and starter():
        print(f"{name}: was down at {host}:{port}; started it")
        if _wait_for(host, port):
            return True
    if fallback:
        print(f"{name}: nothing answers at {host}:{port}; using the embedded server")
        return False
    sys.exit(
        f"{name} is not reachable at {host}:{port}. Start it (for a local install: "
        + (
            "pg_ctlcluster --skip-systemctl-redirect <version> main start"
            if name == "PostgreSQL"
            else "redis-server --daemonize yes --port 6379"
        )
        + ") or point the URL variable at a running server."
    )


def ensure_database(app_url: str, owner_url: str | None = None) -> None:
    """Both roles, and the database ``app_url`` names owned by the owner role, created if
    missing; the application role granted its rows (``omnium/dbroles.py``)."""
    app_url, owner_url = role_urls(app_url, owner_url)
    admin = admin_url(app_url, os.environ.get("DATABASE_ADMIN_URL"))
    roles_ensure(admin=admin, owner_url=owner_url, app_url=app_url)
    database_ensure(
        admin=admin,
        name=unquote(urlsplit(app_url).path.lstrip("/")),
        owner=url_user(owner_url),
        app=url_user(app_url),
    )


def main(argv: list[str]) -> None:
    """Make sure PostgreSQL and Redis answer. With ``OMNIUM_EMBEDDED=auto`` (the Makefile
    sets it when no URL was given) a server that does not answer and cannot be started is
    replaced by the embedded one (``omnium.embedded``), whose URLs then go to
    ``var/embedded.env``; when both system servers answer, that file is removed."""
    fallback = os.environ.get("OMNIUM_EMBEDDED") == "auto"
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    postgres = ensure_service("PostgreSQL", database_url, 5432, _start_postgres, fallback=fallback)
    redis = ensure_service("Redis", redis_url, 6379, _start_redis, fallback=fallback)
    if fallback:
        if postgres and redis:
            embedded.forget()
        else:
            try:
                values = embedded.start(postgres=not postgres, redis=not redis)
            except embedded.EmbeddedUnavailable as exc:
                sys.exit(f"The embedded servers could not start: {exc}")
            database_url = values.get("DATABASE_URL", database_url)
            if "DATABASE_ADMIN_URL" in values:
                os.environ["DATABASE_ADMIN_URL"] = values["DATABASE_ADMIN_URL"]
            for key in ("DATABASE_URL", "REDIS_URL"):
                if key in values:
                    print(f"embedded: {key}={values[key]}")
    if "--create-database" in argv:
        ensure_database(database_url, os.environ.get("DATABASE_OWNER_URL"))


if __name__ == "__main__":
    main(sys.argv[1:])
