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
    """The test database as the application role connects to it (what a worker must use)."""
    from django.conf import settings

    from omnium.dbroles import url_with_user

    db = settings.DATABASES["default"]
    url = f"postgres://{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    return url_with_user(url, settings.DATABASE_APP_ROLE, str(db["PASSWORD"] or "") or None)


class _DatabaseAsApplicationRole:
    """Registered in ``pytest_configure``, after pytest-django, so its ``django_db_setup``
    replaces pytest-django's (a plugin's fixture overrides those of plugins loaded earlier,
    and ``-p omnium.testing`` loads before pytest-django)."""

    @pytest.fixture(scope="session")
    def django_db_setup(
        self,
        request,
        django_test_environment,
        django_db_blocker,
        django_db_keepdb,
        django_db_createdb,
        django_db_modify_db_settings,
    ):
        """The test database made and migrated by the owner role; the tests run as the
        application role, as the site does (``omnium/dbroles.py``).

        Both roles are ensured first, and a test database left by an earlier run that belongs
        to another role is handed to the owner, so ``--reuse-db`` and ``--create-db`` both work.
        """
        from django.conf import settings
        from django.db import connection
        from django.test.utils import setup_databases, teardown_databases

        from omnium.db import as_owner
        from omnium.dbroles import admin_url, database_ensure, roles_ensure

        db = connection.settings_dict
        test_name = db["TEST"].get("NAME") or f"test_{db['NAME']}"
        admin = admin_url(settings.DATABASE_URL, os.environ.get("DATABASE_ADMIN_URL"))
        roles_ensure(
            admin=admin, owner_url=settings.DATABASE_OWNER_URL, app_url=settings.DATABASE_URL
        )
        database_ensure(
            admin=admin,
            name=test_name,
            owner=settings.DATABASE_OWNER["USER"],
            app=settings.DATABASE_APP_ROLE,
            create=False,
        )
        keepdb = django_db_keepdb and not django_db_createdb
        with django_db_blocker.unblock(), as_owner():
            db_cfg = setup_databases(
                verbosity=request.config.option.verbose,
                interactive=False,
                aliases={"default"},
                serialized_aliases=set(),
                keepdb=keepdb,
            )
        yield
        if not django_db_keepdb:
            with django_db_blocker.unblock(), as_owner():
                teardown_databases(db_cfg, verbosity=request.config.option.verbose)


def cache_clear_own() -> int:
    """Delete this run's cache entries (its ``KEY_PREFIX``) and nothing else.

    ``cache.clear()`` empties the whole Redis database, which other runs (a helper's tests,
    CI) share under prefixes of their own; returns how many keys went."""
    from django.conf import settings
    from django.core.cache import cache

    client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)
    return len(keys)


def pytest_configure(config):
    config.pluginmanager.register(_DatabaseAsApplicationRole(), "omnium-database-roles")


def celery_worker_start(
    queue: str | None = None,
    *,
    consumes: tuple[str, ...] = ("interactive", "bulk"),
    pool: str = "solo",
) -> subprocess.Popen:
    """Start a real ``celery worker`` process on a queue of its own (``process.queue``, the
    default queue; its bulk queue is ``<queue>-bulk``), pointed at the test database.
    ``consumes`` names which of the two it takes work from; ``pool`` is ``solo`` (the
    worker runs tasks itself) or ``prefork`` (one child runs them, as in production: see
    ``worker_children``). The caller stops it (a test that kills a worker mid-way starts
    one of its own with this; the rest share ``celery_worker_process``)."""
    queue = queue or f"test-{uuid.uuid4().hex[:12]}"
    names = {"interactive": queue, "bulk": f"{queue}-bulk"}
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
            ",".join(names[kind] for kind in consumes),
            "--hostname",
            f"{queue}-{'-'.join(consumes)}@%h",
            "--pool",
            pool,
            "--concurrency",
            "1",
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
    process.queue = queue  # type: ignore[attr-defined]
    return process


def worker_children(process: subprocess.Popen) -> list[int]:
    """The pids of a worker's pool children (a prefork worker's task runners)."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    try:
        return [int(pid) for pid in children.read_text().split()]
    except FileNotFoundError:
        return []


def celery_worker_stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A real ``celery worker`` process on a queue of its own, pointed at the test database.

    Tasks must be sent with ``queue=worker.queue`` (or routed there) to reach it. Tests that
    need the worker to see their rows use ``transactional_db`` so the rows are committed.
    """
    process = celery_worker_start()
    try:
        yield process
    finally:
        celery_worker_stop(process)


# --- Browser tests -------------------------------------------------------------------------
# Playwright drives Debian's Chromium (`make install` installs it); nothing is downloaded.
# A module of browser tests commits its rows once (``site_rows``), serves them from a live
# server thread (``site_server``) and puts them back as they were at the end.

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = REPO_ROOT / "var" / "test-screenshots"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make install` installs Debian's chromium")
    # Playwright's sync API runs an event loop in this thread; the ORM calls a test makes
    # around it are ordinary blocking calls.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def site_rows(django_db_setup, django_db_blocker):
    """Unblocks the database for a module of browser tests: rows a module fixture writes are
    committed (the live server's thread must see them). At the end the database is put back
    to what it held before (the seeded rows of the migrations), as a serialized rollback."""
    from django.core.management import call_command
    from django.db import connection

    with django_db_blocker.unblock():
        snapshot = connection.creation.serialize_db_to_string()
        try:
            yield
        finally:
            # No post_migrate: it would re-create content types that the snapshot restores.
            call_command("flush", interactive=False, verbosity=0, inhibit_post_migrate=True)
            connection.creation.deserialize_db_from_string(snapshot)


@pytest.fixture(scope="module")
def site_server(site_rows):
    """A live server thread serving the site (static files through the finders)."""
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.test.testcases import LiveServerThread

    thread = LiveServerThread("127.0.0.1", StaticFilesHandler, connections_override=None, port=0)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    thread.url = f"http://127.0.0.1:{thread.port}"
    yield thread
    thread.terminate()


def _page(browser, site_server, request, viewport):
    context = browser.new_context(viewport=viewport, base_url=site_server.url)
    page = context.new_page()
    yield page
    failed = getattr(request.node, "report_call", None)
    if failed is not None and failed.failed:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = request.node.nodeid.replace("/", "_").replace("::", "__")
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    context.close()


@pytest.fixture
def site_page(browser, site_server, request):
    """A browser page at desktop width on the live site; a failing test leaves a screenshot
    in var/test-screenshots/."""
    yield from _page(browser, site_server, request, DESKTOP)


@pytest.fixture
def site_page_phone(browser, site_server, request):
    """The same at a phone's 375 px."""
    yield from _page(browser, site_server, request, PHONE)


def error_names(response) -> set[str]:
    """The fields and parameters an API error body names (the one error shape of
    ``omnium.exceptions``: ``{code, message, errors: [{field | parameter, ...}]}``)."""
    body = response.json()
    return {e.get("field") or e.get("parameter") for e in body.get("errors", [])} - {None}
