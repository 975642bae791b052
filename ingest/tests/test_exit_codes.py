"""Import and submit commands end with an exit status that says what happened: 0 all
accepted or unchanged, 3 some rejected and the rest written, 4 rejected with nothing
written (``omnium.exitcodes``); the real ``manage.py`` exits with it."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from cricket.tests.factories import seed_dismissal_kinds
from ingest.tests.batch_factories import SAMPLES, SMALL
from omnium import exitcodes
from omnium.testing import REPO_ROOT
from sports.models import Fixture

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _folder(tmp_path, *, good: int, bad: int):
    folder = tmp_path / "matches"
    folder.mkdir()
    for match_id in SMALL[:good]:
        shutil.copy(SAMPLES / f"{match_id}.json", folder / f"{match_id}.json")
    for n in range(bad):
        document = json.loads((SAMPLES / f"{SMALL[0]}.json").read_text())
        document["info"]["teams"] = ["Only one"]
        (folder / f"99000{n}.json").write_text(json.dumps(document))
    return folder


def _import(*args) -> int:
    try:
        call_command(
            "import_cricsheet",
            *map(str, args),
            verbosity=0,
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    except CommandError as exc:
        return exc.returncode
    return exitcodes.OK


def test_an_import_of_good_files_exits_0_and_again_unchanged_exits_0(tmp_path):
    folder = _folder(tmp_path, good=2, bad=0)
    assert _import(folder) == exitcodes.OK
    assert _import(folder) == exitcodes.OK


def test_an_import_with_a_rejected_file_writes_the_rest_and_exits_3(tmp_path):
    assert _import(_folder(tmp_path, good=2, bad=1)) == exitcodes.PARTIAL
    assert Fixture.objects.count() == 2


def test_an_import_whose_every_file_is_rejected_exits_4(tmp_path):
    assert _import(_folder(tmp_path, good=0, bad=2)) == exitcodes.REJECTED
    assert not Fixture.objects.exists()


def test_a_strict_import_with_one_bad_file_writes_nothing_and_exits_4(tmp_path):
    assert _import(_folder(tmp_path, good=2, bad=1), "--strict") == exitcodes.REJECTED
    assert not Fixture.objects.exists()


def test_a_strict_import_of_good_files_imports_them(tmp_path):
    assert _import(_folder(tmp_path, good=2, bad=0), "--strict") == exitcodes.OK
    assert Fixture.objects.count() == 2


def test_a_path_of_an_unsupported_type_is_refused_naming_the_reason(tmp_path):
    path = tmp_path / "matches.csv"
    path.write_text("id\n1\n")
    err = io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("import_cricsheet", str(path), verbosity=0, stdout=io.StringIO(), stderr=err)
    assert raised.value.returncode == exitcodes.REJECTED
    assert "matches.csv" in err.getvalue()
    assert "is not a .json file, a directory or an archive" in err.getvalue()


def test_a_submitted_batch_with_an_invalid_file_exits_4(submitter, tmp_path, batch_grants):
    folder = _folder(tmp_path, good=1, bad=1)
    with pytest.raises(CommandError, match="1 invalid file") as raised:
        call_command(
            "submit_batch",
            str(folder),
            "--as",
            submitter.username,
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    assert raised.value.returncode == exitcodes.REJECTED


def test_a_refused_games_input_exits_4(tmp_path):
    with pytest.raises(CommandError) as raised:
        call_command("import_games", str(tmp_path), code="x", name="X", verbosity=0)
    assert raised.value.returncode == exitcodes.REJECTED


def test_a_missing_path_exits_1(tmp_path):
    assert _import(tmp_path / "nowhere") == exitcodes.FAILED


def test_the_help_states_the_exit_statuses_and_the_two_modes():
    done = subprocess.run(
        [sys.executable, "manage.py", "import_cricsheet", "--help"],
        cwd=REPO_ROOT,
        env={**os.environ, "DEBUG": "true"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    text = " ".join(done.stdout.split())
    assert "--keep-going" in text and "--strict" in text
    assert "3 some input rejected, the rest written" in text
