"""A parallel import's workers end with their parent: ``import_cricsheet --workers 2`` is
killed with SIGKILL mid-way (it can run no cleanup), and within seconds no worker process
is left, no database session of the import remains and every committed match is whole.

The files are the committed samples, copied under new match ids so the run lasts long
enough to be killed mid-way."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Count

from cricket.models import Delivery
from cricket.tests.factories import seed_dismissal_kinds
from ingest.samples import SAMPLES
from omnium.testing import REPO_ROOT, _database_url_for_test_db
from sports.models import EntityType, ExternalIdMap

pytestmark = pytest.mark.django_db(transaction=True)

COPIES = 12  # of the 30 sample matches: a run of about a minute on two processes
KILL_AFTER = 10  # committed matches


def _wait(what, predicate, timeout: float):
    deadline = time.monotonic() + timeout
    while not (found := predicate()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)
    return found


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc: psutil is not a dependency)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


def _sessions() -> set[int]:
    """Server pids of the other sessions on this test database."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        return {row[0] for row in cursor.fetchall()}


@pytest.fixture
def folder(tmp_path):
    seed_dismissal_kinds()
    files = sorted((SAMPLES / "cricket").glob("*.json"))
    for copy in range(1, COPIES + 1):
        for path in files:
            shutil.copyfile(path, tmp_path / f"{copy}0{path.name}")
    return tmp_path


def _start(folder, **output) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "import_cricsheet", "--workers", "2", str(folder)],
        cwd=REPO_ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
            "DATABASE_URL": _database_url_for_test_db(),
        },
        stdout=output.get("stdout", subprocess.DEVNULL),
        stderr=output.get("stderr", subprocess.DEVNULL),
    )


def _links():
    return ExternalIdMap.objects.filter(source_code="cricsheet", entity_type=EntityType.FIXTURE)


def test_killing_the_parent_of_a_parallel_import_ends_its_workers_and_their_sessions(folder):
    before = _sessions()
    parent = _start(folder)
    workers: set[int] = set()
    try:
        links = _links()
        _wait("the first matches", lambda: links.count() >= KILL_AFTER, timeout=120)
        workers = _children(parent.pid)
        # A session per worker. The parent closes its connection before it forks and opens
        # one again only when it next reads or writes (a job record, a rejected file), so
        # whether it holds one at this moment is timing: its session, if any, is in the
        # set and must end too, but is not counted on.
        sessions = _sessions() - before
        assert len(workers) >= 2 and len(sessions) >= 2, (workers, sessions)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)

        _wait("the workers to end", lambda: not any(_alive(p) for p in workers), timeout=10)
        _wait("their sessions to end", lambda: not (_sessions() & sessions), timeout=10)
        imported = links.count()
        time.sleep(1)
        assert links.count() == imported, "something still writes"
        assert imported < COPIES * 30, "the import ended before it was killed"
    finally:
        for pid in {parent.pid, *workers}:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)

    # Every committed match is whole: its deliveries are all the file's.
    counts = dict(
        Delivery.objects.values_list("innings__fixture_id")
        .annotate(n=Count("id"))
        .values_list("innings__fixture_id", "n")
    )
    for match_id, fixture_id in links.values_list("external_id", "internal_id"):
        document = json.loads((folder / f"{match_id}.json").read_bytes())
        expected = sum(
            len(over["deliveries"])
            for inning in document["innings"]
            for over in inning.get("overs", [])
        )
        assert counts.get(fixture_id, 0) == expected, match_id


def test_workers_stopped_on_their_own_fail_the_import_rather_than_leave_it_waiting(folder):
    parent = _start(folder, stderr=subprocess.PIPE)
    workers: set[int] = set()
    try:
        _wait("the first matches", lambda: _links().count() >= KILL_AFTER, timeout=120)
        workers = _children(parent.pid)
        for pid in workers:
            os.kill(pid, signal.SIGTERM)
        _, stderr = parent.communicate(timeout=30)
    finally:
        for pid in {parent.pid, *workers}:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert parent.returncode != 0
    assert b"import worker failed" in stderr
    assert b"stopped by signal 15" in stderr
