"""A Cricsheet import killed with SIGKILL between its matches' commits and the statistics
refresh it asks for after each block: the committed matches are owed their statistics,
and the sweep (the beat task ``cricket.statistics_sweep``) pays that debt, so the careers
equal a recomputation from the files."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from django.core.management import CommandError, call_command

from cricket.stats.models import StatisticsRefresh
from cricket.stats.refresh import statistics_refresh_run, statistics_sweep_unrefreshed
from cricket.tests.factories import seed_dismissal_kinds
from ingest.tests.batch_factories import SAMPLES
from omnium.testing import REPO_ROOT, _database_url_for_test_db
from sports.models import Fixture

pytestmark = pytest.mark.django_db(transaction=True)


def _verify(folder) -> str:
    out = io.StringIO()
    with contextlib.suppress(CommandError):  # differences: the last line counts them
        call_command("verify_cricket_statistics", str(folder), verbosity=0, stdout=out)
    return out.getvalue().strip().splitlines()[-1]


def _killed_import(folder) -> int:
    """Start a real import of ``folder`` and kill it once some matches are committed; how
    many fixtures it left."""
    env = {
        **os.environ,
        "DATABASE_URL": _database_url_for_test_db(),
        "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
    }
    process = subprocess.Popen(
        [sys.executable, "manage.py", "import_cricsheet", str(folder), "--verbosity", "0"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    try:
        while Fixture.objects.count() < 3:
            assert process.poll() is None, "the import ended before it could be killed"
            assert time.monotonic() < deadline, "the import wrote nothing"
            time.sleep(0.02)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    return Fixture.objects.count()


def test_a_killed_import_leaves_statistics_the_sweep_makes_equal_to_the_files(tmp_path):
    seed_dismissal_kinds()
    folder = tmp_path / "matches"
    folder.mkdir()
    for path in sorted(SAMPLES.glob("*.json")):
        shutil.copy(path, folder / path.name)

    written = _killed_import(folder)
    assert 3 <= written < len(list(folder.glob("*.json")))
    assert not StatisticsRefresh.objects.exists()  # the block's refresh was never asked for
    assert not _verify(folder).endswith("differences=0")

    refresh = statistics_sweep_unrefreshed(grace=dt.timedelta(0))
    assert refresh is not None and len(refresh.fixture_ids) == written
    assert statistics_sweep_unrefreshed(grace=dt.timedelta(0)) is None  # owed once
    statistics_refresh_run(refresh_id=refresh.pk)

    verified = _verify(folder)
    assert verified.startswith(f"verify-stats: matches={written} ")
    assert verified.endswith(" differences=0")
    assert statistics_sweep_unrefreshed(grace=dt.timedelta(0)) is None
