"""Where Cricsheet files come from: files, directories, zip and tar.gz archives; the command,
the Celery task and the committed ``make run`` sample all reach the same importer."""

import io
import json
import tarfile
import zipfile

import pytest
from django.core.management import call_command

from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import iter_sources
from ingest.samples import SAMPLE_LOADERS, SAMPLES
from ingest.sports_tasks import import_cricsheet_task
from sports.models import EntityType, ExternalIdMap, Fixture


@pytest.fixture(autouse=True)
def _dismissal_kinds(request):
    if "db" in request.fixturenames or request.node.get_closest_marker("django_db"):
        request.getfixturevalue("db")
        seed_dismissal_kinds()


RAW = json.dumps(cricsheet_match()).encode()


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "dir" / "nested").mkdir(parents=True)
    (tmp_path / "dir" / "nested" / "900001.json").write_bytes(RAW)
    (tmp_path / "dir" / "README.txt").write_text("not a match")
    with zipfile.ZipFile(tmp_path / "m.zip", "w") as archive:
        archive.writestr("900002.json", RAW)
        archive.writestr("README.txt", "not a match")
    with tarfile.open(tmp_path / "m.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("900003.json")
        info.size = len(RAW)
        archive.addfile(info, io.BytesIO(RAW))
    return tmp_path


def test_files_directories_and_archives_yield_only_their_json_members(corpus):
    names = [
        name for name, _ in iter_sources([corpus / "dir", corpus / "m.zip", corpus / "m.tar.gz"])
    ]
    assert [n.rsplit("/", 1)[-1].rsplit(":", 1)[-1] for n in names] == [
        "900001.json",
        "900002.json",
        "900003.json",
    ]


@pytest.mark.django_db
def test_the_command_imports_every_source_and_prints_the_summary(corpus, capsys):
    call_command(
        "import_cricsheet", str(corpus / "dir"), str(corpus / "m.zip"), str(corpus / "m.tar.gz"),
        verbosity=0,
    )  # fmt: skip
    assert "3 new, 0 unchanged, 0 updated, 0 rejected; 39 deliveries" in capsys.readouterr().out
    ids = ExternalIdMap.objects.filter(source_code="cricsheet", entity_type=EntityType.FIXTURE)
    assert sorted(ids.values_list("external_id", flat=True)) == ["900001", "900002", "900003"]


@pytest.mark.django_db
def test_the_celery_task_runs_the_same_import(corpus):
    line = import_cricsheet_task.run([str(corpus / "m.zip")])
    assert line.startswith("matches: 1 new")
    assert Fixture.objects.filter(sport__code="cricket").count() == 1


@pytest.mark.django_db
def test_the_make_run_sample_loads_and_a_second_load_changes_nothing():
    loader = dict((label.split(":")[0], fn) for label, fn in SAMPLE_LOADERS)["Cricket"]
    count = len(list((SAMPLES / "cricket").glob("*.json")))
    assert count >= 30
    assert loader().startswith(f"matches: {count} new, 0 unchanged, 0 updated, 0 rejected")
    assert loader().startswith(f"matches: 0 new, {count} unchanged")
