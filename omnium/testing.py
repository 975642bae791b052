"""pytest plugin (loaded with ``-p omnium.testing``): personas for each role, a real worker."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

# Loaded as a plugin before Django is configured: models are imported inside fixtures.

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def _persona(username: str, role: str, *, staff: bool, **extra):
    from accounts.tests.factories import StaffFactory, UserFactory

    factory = StaffFactory if staff else UserFactory
    return factory(username=username, role=role, **extra)


@pytest.fixture
def viewer(db):
    return _persona("viewer", "viewer", staff=False)


@pytest.fixture
def submitter(db):
    return _persona("submitter", "submitter", staff=False)


@pytest.fixture
def reviewer(db):
    return _persona("reviewer", "reviewer", staff=True)


@pytest.fixture
def editor(db):
    return _persona("editor", "editor", staff=True)


@pytest.fixture
def admin_user(db):
    return _persona("administrator", "admin", staff=True, is_superuser=True)


@pytest.fixture
def outsider(db):
    """Signed in, but holds no role beyond viewing and no grants."""
    return _persona("outsider", "viewer", staff=False)


@pytest.fixture
def anon_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def editor_client(editor):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(editor)
    return client


def _database_url_for_test_db() -> str:
    from django.conf import settings

    db = settings.DATABASES["default"]
    auth = f"{db['USER']}@" if db["USER"] else ""
    return f"postgres://{auth}{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A real ``celery worker`` process on a queue of its own, pointed at the test database.

    Tasks must be sent with ``queue=worker.queue`` (or routed there) to reach it. Tests that
    need the worker to see their rows use ``transactional_db`` so the rows are committed.
    """
    queue = f"test-{uuid.uuid4().hex[:12]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
        "DATABASE_URL": _database_url_for_test_db(),
        "CELERY_TASK_DEFAULT_QUEUE": queue,
    }
    process = subprocess.Popen(  # noqa: S603
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "omnium",
            "worker",
            "--queues",
            queue,
            "--hostname",
            f"{queue}@%h",
            "--pool",
            "solo",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel",
            "WARNING",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    process.queue = queue
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
