"""Partnerships of real Cricsheet matches against a recomputation straight from the files
(not through the database): the repository's samples, and the edge cases of the shared
archive (retired hurt, absent hurt, retired not out) when it is present."""

import json
import tarfile

import pytest

from cricket.stats.partnerships import records_rebuild
from cricket.stats.records_models import CricketPartnership
from ingest.cricsheet.importer import import_bytes, iter_sources
from omnium.testing import REPO_ROOT, SHARED_DATA
from sports.models import EntityType, ExternalIdMap

pytestmark = pytest.mark.django_db

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"
ARCHIVE = SHARED_DATA / "cricsheet" / "dev_matches.tar.gz"
EXTRA = {"64050.json", "64053.json", "935819.json"}
NOT_DISMISSALS = {"retired hurt", "retired not out"}


def _sources():
    extra = []
    if ARCHIVE.is_file():
        with tarfile.open(ARCHIVE, "r|gz") as archive:
            for member in archive:
                if member.name in EXTRA:
                    extra.append((member.name, archive.extractfile(member).read()))
                    if len(extra) == len(EXTRA):
                        break
    return list(iter_sources([SAMPLES])) + extra


def _stands_in_file(doc):
    """(innings, wicket, registry ids of the pair, runs, balls, unbroken), file order."""
    registry = doc["info"]["registry"]["people"]
    out = []
    for number, inning in enumerate(doc["innings"], start=1):
        fallen, stand, previous, broke = 0, None, None, True
        stands = []
        for over in inning.get("overs", []):
            for d in over["deliveries"]:
                pair = frozenset({d["batter"], d["non_striker"]})
                if pair != previous or broke:
                    stand = {"pair": pair, "wicket": fallen + 1, "runs": 0, "balls": 0}
                    stands.append(stand)
                stand["runs"] += d["runs"]["total"]
                stand["balls"] += 0 if (d.get("extras") or {}).get("wides", 0) > 0 else 1
                wickets = d.get("wickets") or []
                out_now = any(
                    w["player_out"] in pair and w["kind"] not in NOT_DISMISSALS for w in wickets
                )
                retired = any(
                    w["player_out"] in pair and w["kind"] in NOT_DISMISSALS for w in wickets
                )
                fallen += sum(1 for w in wickets if w["kind"] not in NOT_DISMISSALS)
                stand["unbroken"] = not out_now
                previous, broke = pair, out_now or retired
        for s in stands:
            if len(s["pair"]) == 2:
                ids = frozenset(registry[name] for name in s["pair"])
                out.append((number, s["wicket"], ids, s["runs"], s["balls"], s["unbroken"]))
    return out


def test_every_stand_of_real_matches_equals_a_recomputation_from_the_files():
    sources = _sources()
    fixtures = {}
    for filename, raw in sources:
        result = import_bytes(raw, filename=filename)
        assert result.outcome == "new", result.error
        fixtures[filename] = result.fixture_id
    records_rebuild(fixture_ids=fixtures.values())
    registry = {
        str(internal): external
        for internal, external in ExternalIdMap.objects.filter(
            source_code="cricsheet", entity_type=EntityType.PARTICIPANT
        ).values_list("internal_id", "external_id")
    }
    compared = 0
    for filename, raw in sources:
        expected = _stands_in_file(json.loads(raw))
        stored = [
            (
                p.innings_ordinal,
                p.wicket,
                frozenset({registry[str(p.batter_one_id)], registry[str(p.batter_two_id)]}),
                p.runs,
                p.balls,
                p.unbroken,
            )
            for p in CricketPartnership.objects.filter(fixture_id=fixtures[filename]).order_by(
                "innings_ordinal", "ordinal"
            )
        ]
        assert stored == expected, filename
        compared += len(expected)
    assert compared > 100
