"""Every import publishes its sports' shipped definitions before it writes, and every
fixture it makes pins its sport's current version; the shipped definitions accept what the
real files produce."""

from __future__ import annotations

import json
import tarfile
import uuid
from collections import defaultdict
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from cricket.cricsheet_match import fixture_format, fixture_meta
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from ingest.games import games_import
from ingest.games.reading import IRM_STATUS, SPORT_PARENTS
from ingest.samples import SAMPLES
from ingest.tests.test_games_paris import SNAPSHOT, _rows, _write
from ingest.tests.test_openfootball_import import run as run_openfootball
from ingest.tests.test_openfootball_import import season_file
from omnium.testing import SHARED_DATA
from sports.models import Fixture, FixtureCompetitor, Sport, SportDefinitionVersion
from sports.services import fixture_create, shipped_definitions
from sports.services.fixtures import definition_for, fixture_documents_check
from sports.tests.factories import CompetitionFactory

TARBALL = SHARED_DATA / "cricsheet" / "dev_matches.tar.gz"
IMPORTED = 30  # the archive's first files, imported whole
CHECKED = 2500  # the archive's first files, their meta and format checked without a database
SAMPLED = 250  # of those, the first ones the suite checks (make verify-data checks the rest)

pytestmark = pytest.mark.django_db


def _archive_files(count: int, *, start: int = 0):
    """The match files of the dev archive from the ``start``-th to before the ``count``-th,
    in archive order, as bytes."""
    if not TARBALL.is_file():
        pytest.skip(f"Cricsheet dev corpus not present at {TARBALL}")
    with tarfile.open(TARBALL, "r|gz") as archive:
        for taken, member in enumerate(archive):
            if taken == count:
                return
            if taken >= start:
                yield member.name, archive.extractfile(member).read()


@pytest.fixture(scope="module")
def dev_sample(tmp_path_factory):
    target = tmp_path_factory.mktemp("cricsheet-definitions")
    for name, raw in _archive_files(IMPORTED):
        (target / name).write_bytes(raw)
    return target


@pytest.fixture(scope="module")
def cricket_imported(dev_sample, django_db_setup, django_db_blocker):
    """The sample imported once for the module, rolled back at its end."""
    with django_db_blocker.unblock(), transaction.atomic():
        seed_dismissal_kinds()
        summary = Importer().run([dev_sample])
        yield summary
        transaction.set_rollback(True)


def _unpinned(sport_code: str) -> list[str]:
    current = definition_for(Sport.objects.get(code=sport_code))
    return list(
        Fixture.objects.filter(sport__code=sport_code)
        .exclude(definition_version=current)
        .values_list("code", flat=True)
    )


def test_a_cricsheet_import_of_real_files_pins_crickets_definition_on_every_fixture(
    cricket_imported,
):
    assert (cricket_imported.rejections, cricket_imported.new) == ([], IMPORTED)
    assert _unpinned("cricket") == []
    assert Sport.objects.get(code="cricket").definitions.get().plugin == "cricket"


def test_a_second_cricsheet_run_publishes_no_new_definition(cricket_imported, dev_sample):
    summary = Importer().run([dev_sample])
    assert summary.unchanged == IMPORTED
    assert SportDefinitionVersion.objects.filter(sport__code="cricket").count() == 1


@pytest.mark.parametrize(
    ("start", "count"),
    [(0, SAMPLED), pytest.param(SAMPLED, CHECKED, marks=pytest.mark.whole_data)],
    ids=["sample", "rest"],
)
def test_crickets_definition_accepts_the_meta_and_format_of_the_dev_files(start, count):
    shipped = shipped_definitions()["cricket"]
    definition = SportDefinitionVersion(
        meta_schema=shipped.meta_schema, format_schema=shipped.format_schema
    )
    refused, checked = {}, 0
    for name, raw in _archive_files(count, start=start):
        checked += 1
        document = json.loads(raw)
        people = defaultdict(lambda: SimpleNamespace(pk=uuid.uuid4()))
        info = document["info"]
        try:
            fixture_documents_check(
                definition,
                format=fixture_format(info),
                meta=fixture_meta(info, document["meta"], people),
            )
        except ValidationError as error:
            refused[name] = error.messages
    assert (checked, refused) == (count - start, {})


def test_a_bad_cricket_meta_is_refused_naming_the_field(cricket_imported):
    node = CompetitionFactory(sport=Sport.objects.get(code="cricket"))
    with pytest.raises(ValidationError) as refused:
        fixture_create(competition=node, code="x", actor="t", meta={"toss": {"decision": "bowl"}})
    assert "meta/toss/decision: 'bowl' is not one of ['bat', 'field']" in str(refused.value)


def test_a_bad_cricket_format_is_refused_naming_the_field(cricket_imported):
    node = CompetitionFactory(sport=Sport.objects.get(code="cricket"))
    with pytest.raises(ValidationError) as refused:
        fixture_create(competition=node, code="x", actor="t", format={"match_type": "T10"})
    assert "format/match_type: 'T10' is not one of" in str(refused.value)


def test_a_league_import_pins_footballs_definition(tmp_path):
    run_openfootball(season_file(tmp_path))
    assert Fixture.objects.filter(sport__code="football").count() == 5
    assert _unpinned("football") == []


def test_the_games_sample_import_pins_each_sports_definition():
    games_import(directory=SAMPLES / "games", code="sample", name="Sample Games")
    sports = set(
        Fixture.objects.filter(code__startswith="sample.").values_list("sport__code", flat=True)
    )
    assert sports == {"athletics", "judo", "swimming"}
    for code in sports:
        assert _unpinned(code) == [], code


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(False, id="status-units"),
        pytest.param(True, id="and-first-units", marks=pytest.mark.whole_data),
    ],
)
def paris_codes(request, tmp_path_factory):
    """Of each real results file, the first unit showing each status code (every IRM word
    of the Games appears, each in every sport that uses it), with their events and medals.
    make verify-data also takes each file's first unit: every sport's results, codes or not."""
    first_units = request.param
    if not SNAPSHOT.is_dir():
        pytest.skip(f"local-only Paris 2024 data not present at {SNAPSHOT}")
    directory = tmp_path_factory.mktemp("paris-codes")
    (directory / "results").mkdir()
    events = set()
    for path in sorted((SNAPSHOT / "results").glob("*.csv.gz")):
        units = defaultdict(list)
        for row in _rows(path):
            units[row["stage_code"]].append(row)
        keep, seen = [], set()
        for index, rows in enumerate(units.values()):
            codes = {r["result_IRM"] for r in rows if r.get("result_IRM")} - seen
            if codes or (index == 0 and first_units):
                keep.extend(rows)
                seen |= codes
        if keep:  # a sport that shows no status code has no file here
            _write(directory / "results" / path.name, keep)
        events |= {(r["discipline_name"], r["event_name"]) for r in keep}
    medals = [
        r for r in _rows(SNAPSHOT / "medals.csv.gz") if (r["discipline"], r["event"]) in events
    ]
    _write(directory / "medals.csv.gz", medals)
    listed = [r for r in _rows(SNAPSHOT / "events.csv.gz") if (r["sport"], r["event"]) in events]
    _write(directory / "events.csv.gz", listed)
    for name in ("teams.csv.gz", "schedules.csv.gz", "medallists.csv.gz"):
        (directory / name).symlink_to(SNAPSHOT / name)
    return directory


def test_real_games_results_with_every_status_code_are_accepted_and_pinned(paris_codes):
    games_import(directory=paris_codes, code="paris-codes", name="Paris 2024")
    codes = set(
        FixtureCompetitor.objects.exclude(status_code="").values_list("status_code", flat=True)
    )
    assert {"BFD", "DQ", "NM", "Fall", "W/O"} <= codes
    unpinned = {
        code: _unpinned(code)
        for code in set(
            Fixture.objects.filter(code__startswith="paris-codes.").values_list(
                "sport__code", flat=True
            )
        )
    }
    assert {code: fixtures for code, fixtures in unpinned.items() if fixtures} == {}


def test_the_shipped_games_sports_sit_under_the_parents_the_games_import_gives_them():
    shipped = {
        code: sport.parent
        for code, sport in shipped_definitions().items()
        if sport.plugin == "ranked_field"
    }
    expected = {
        child: (parent, name)
        for parent, (name, children) in SPORT_PARENTS.items()
        for child in children
        if child in shipped
    }
    assert {code: parent for code, parent in shipped.items() if parent} == expected


def test_the_games_status_codes_cover_every_irm_word_the_games_import_maps():
    codes = shipped_definitions()["athletics"].status_codes
    assert {word: codes.get(word) for word in IRM_STATUS} == dict(IRM_STATUS)
