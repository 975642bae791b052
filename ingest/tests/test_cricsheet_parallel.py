"""The import in several processes (``import_cricsheet --workers``): real files whose
matches share new people, teams and competition nodes, so the processes meet each other's
rows. Committed data (the workers are other connections), checked against the JSON."""

import itertools
import json
import tarfile
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.db.models import Count, Sum

from cricket.models import Delivery, Innings
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import Importer, match_id_of
from omnium.testing import SHARED_DATA
from sports.models import Competition, EntityType, ExternalIdMap, Fixture, ParticipantAlias

pytestmark = pytest.mark.django_db(transaction=True)

TARBALL = SHARED_DATA / "cricsheet" / "dev_matches.tar.gz"
# The corpus opens with Tests and ODIs of the 2000s: consecutive files share teams, new
# players and new seasons, which is where two processes collide.
FIRST_FILES = 60


@pytest.fixture(scope="module")
def sources():
    if not TARBALL.is_file():
        pytest.skip(f"Cricsheet dev corpus not present at {TARBALL}")
    with tarfile.open(TARBALL, "r|gz") as archive:
        members = (m for m in archive if m.isfile() and m.name.endswith(".json"))
        chosen = itertools.islice(members, FIRST_FILES)
        return [(m.name, archive.extractfile(m).read()) for m in chosen]


@pytest.fixture
def imported(sources):
    seed_dismissal_kinds()
    importer = Importer(refresh=False)
    summary = importer.run_sources(iter(sources), workers=2)
    return summary


def _documents(sources):
    return {match_id_of(name): json.loads(raw) for name, raw in sources}


def test_every_file_is_imported_once_by_one_of_the_processes(sources, imported):
    assert (imported.new, imported.rejected, imported.unchanged) == (len(sources), 0, 0)
    assert Fixture.objects.filter(sport__code="cricket").count() == len(sources)


def test_innings_deliveries_and_runs_equal_the_files(sources, imported):
    links = dict(
        ExternalIdMap.objects.filter(
            source_code="cricsheet", entity_type=EntityType.FIXTURE
        ).values_list("external_id", "internal_id")
    )
    for match_id, document in _documents(sources).items():
        rows = (
            Innings.objects.filter(fixture_id=links[match_id])
            .annotate(n=Count("deliveries"), runs=Sum("deliveries__runs_total"))
            .order_by("ordinal")
        )
        expected = [
            (
                sum(len(o["deliveries"]) for o in inning.get("overs", [])),
                sum(d["runs"]["total"] for o in inning.get("overs", []) for d in o["deliveries"]),
            )
            for inning in document["innings"]
        ]
        assert [(r.n, r.runs or 0) for r in rows] == expected, match_id


def test_each_registry_id_is_one_participant(sources, imported):
    ids = {
        registry_id
        for document in _documents(sources).values()
        for registry_id in document["info"]["registry"]["people"].values()
    }
    links = ExternalIdMap.objects.filter(
        source_code="cricsheet", entity_type=EntityType.PARTICIPANT, external_id__in=ids
    )
    assert links.count() == len(ids)
    assert links.values("internal_id").distinct().count() == len(ids)


def test_alias_ranges_span_every_match_that_used_the_name(sources, imported):
    expected: dict[tuple[str, str], list[datetime]] = {}
    for document in _documents(sources).values():
        info = document["info"]
        day = datetime.fromisoformat(info["dates"][0]).replace(tzinfo=UTC)
        for name, registry_id in info["registry"]["people"].items():
            expected.setdefault((registry_id, name), []).append(day)
    person = dict(
        ExternalIdMap.objects.filter(
            source_code="cricsheet", entity_type=EntityType.PARTICIPANT
        ).values_list("internal_id", "external_id")
    )
    stored = {
        (person[a.participant_id], a.name): (a.first_seen, a.last_seen)
        for a in ParticipantAlias.objects.filter(participant_id__in=person, source_code="cricsheet")
    }
    for key, days in expected.items():
        assert stored[key] == (min(days), max(days)), key


def test_the_competition_tree_stays_nested_with_one_node_per_code(imported):
    nodes = list(Competition.objects.filter(sport__code="cricket"))
    assert len({n.code for n in nodes}) == len(nodes)
    by_id = {n.pk: n for n in nodes}
    for node in nodes:
        assert node.lft < node.rght
        if node.parent_id:
            parent = by_id[node.parent_id]
            assert parent.tree_id == node.tree_id
            assert parent.lft < node.lft and node.rght < parent.rght
            assert node.level == parent.level + 1
    for tree_id in {n.tree_id for n in nodes}:
        bounds = sorted(v for n in nodes if n.tree_id == tree_id for v in (n.lft, n.rght))
        assert bounds == list(range(1, len(bounds) + 1))  # no gap, no overlap


def test_a_second_parallel_run_writes_nothing(sources, imported):
    before = (Delivery.objects.count(), Fixture.objects.count())
    again = Importer(refresh=False).run_sources(iter(sources), workers=2)
    assert (again.new, again.unchanged) == (0, len(sources))
    assert (Delivery.objects.count(), Fixture.objects.count()) == before


def test_the_command_takes_a_number_of_workers(sources, tmp_path, capsys):
    seed_dismissal_kinds()
    for name, raw in sources[:6]:
        (tmp_path / name.rsplit("/", 1)[-1]).write_bytes(raw)
    call_command("import_cricsheet", str(tmp_path), "--workers", "2", verbosity=0)
    assert "6 new" in capsys.readouterr().out
