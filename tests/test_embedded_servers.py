"""``make run`` on a machine where no PostgreSQL or Redis answers: ``omnium.services``
starts the embedded servers (``omnium.embedded``) from a clean directory, writes their URLs,
creates the roles and the database, and the site's ``/healthz`` answers 200 on them. The
system servers' ports are "blocked" by pointing the URLs at ports nothing listens on."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from omnium.testing import REPO_ROOT

HEALTHZ = """
import django
django.setup()
from django.test import Client
response = Client().get("/healthz")
print(response.status_code, response.content.decode())
"""


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _env_file(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


@pytest.fixture
def var_dir():
    # Not under pytest's tmp_path (mode 700): PostgreSQL runs as its own user when root.
    path = Path(tempfile.mkdtemp(prefix="omnium-embedded-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    subprocess.run(
        [sys.executable, "-m", "omnium.embedded", "stop"],
        cwd=REPO_ROOT, env={**os.environ, "OMNIUM_VAR_DIR": str(path)}, check=False,
    )  # fmt: skip
    subprocess.run(["rm", "-rf", str(path)], check=False)


def test_with_no_server_answering_the_embedded_ones_start_and_healthz_is_200(var_dir):
    blocked = {
        **os.environ,
        "OMNIUM_EMBEDDED": "auto",
        "OMNIUM_VAR_DIR": str(var_dir),
        "DATABASE_URL": f"postgres://127.0.0.1:{_closed_port()}/omnium",
        "REDIS_URL": f"redis://127.0.0.1:{_closed_port()}/0",
    }
    started = subprocess.run(
        [sys.executable, "-m", "omnium.services", "--create-database"],
        cwd=REPO_ROOT, env=blocked, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert started.returncode == 0, started.stdout + started.stderr
    assert "using the embedded server" in started.stdout
    urls = _env_file(var_dir / "embedded.env")
    assert urls["DATABASE_URL"] != blocked["DATABASE_URL"]
    assert urls["REDIS_URL"] != blocked["REDIS_URL"]

    site = {**os.environ, **urls, "DEBUG": "true", "DJANGO_SETTINGS_MODULE": "omnium.settings"}
    site.pop("DATABASE_ADMIN_URL", None)
    health = subprocess.run(
        [sys.executable, "-c", HEALTHZ],
        cwd=REPO_ROOT, env=site, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert health.returncode == 0, health.stderr[-2000:]
    assert health.stdout.startswith("200 "), health.stdout
    assert '"database": "ok"' in health.stdout and '"redis": "ok"' in health.stdout

    # A second run finds them running and keeps their ports.
    again = subprocess.run(
        [sys.executable, "-m", "omnium.services"],
        cwd=REPO_ROOT, env=blocked, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    assert _env_file(var_dir / "embedded.env") == urls


def test_when_the_system_servers_answer_the_embedded_ones_are_not_used(var_dir):
    (var_dir / "embedded.env").write_text("DATABASE_URL=postgres://127.0.0.1:1/omnium\n")
    done = subprocess.run(
        [sys.executable, "-m", "omnium.services"],
        cwd=REPO_ROOT,
        env={**os.environ, "OMNIUM_EMBEDDED": "auto", "OMNIUM_VAR_DIR": str(var_dir)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "embedded" not in done.stdout
    assert not (var_dir / "embedded.env").exists()
