"""Real Cricsheet files revised the way Cricsheet revises them, imported over the originals:
every difference is applied, a second run writes nothing, and the statistics equal those of
a fresh import of the revised files."""

import copy
import difflib
import json
import shutil

import pytest

from cricket.models import Delivery
from cricket.services import SOURCE
from cricket.stats.engine import lines_rebuild
from cricket.stats.models import (
    CricketBattingLine,
    CricketBowlingLine,
    CricketFieldingLine,
    CricketTeamInningsLine,
    StatisticsRefresh,
)
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from omnium.testing import REPO_ROOT
from sports.models import (
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureAmendment,
    Submission,
    TimelineItem,
)

pytestmark = pytest.mark.django_db

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"


def _add_ball(doc):
    # A wide the scorers missed, before the third ball of over 1.
    over = doc["innings"][0]["overs"][1]["deliveries"]
    wide = copy.deepcopy(over[2])
    wide.pop("wickets", None)
    wide["runs"] = {"batter": 0, "extras": 1, "total": 1}
    wide["extras"] = {"wides": 1}
    over.insert(2, wide)


def _remove_ball(doc):
    # A ball recorded twice.
    doc["innings"][1]["overs"][3]["deliveries"].pop(1)


def _penalty_runs(doc):
    doc["innings"][0]["penalty_runs"] = {"post": 8}


def _margin(doc):
    doc["info"]["outcome"]["by"] = {"runs": 50}


def _dismissal(doc):
    ball = doc["innings"][0]["overs"][4]["deliveries"][2]
    ball["wickets"] = [{"player_out": "JJ Roy", "kind": "caught and bowled"}]


def _rename(doc):
    """A player renamed everywhere, the registry id kept (as Cricsheet renames people)."""
    registry = doc["info"]["registry"]["people"]
    old = doc["innings"][0]["overs"][0]["deliveries"][0]["batter"]
    new = f"{old} (renamed)"
    registry[new] = registry.pop(old)
    text = json.dumps(doc).replace(json.dumps(old), json.dumps(new))
    doc.clear()
    doc.update(json.loads(text))


REVISIONS = {
    "1226909": _add_ball,
    "1075507": _remove_ball,
    "947101": _penalty_runs,
    "947121": _margin,
    "1252666": _dismissal,
    "551066": _rename,
}


def _by_id(doc):
    """The document with every person as their registry id: a rename is no difference."""
    registry = doc["info"]["registry"]["people"]
    text = json.dumps(doc, sort_keys=True)
    for name, rid in sorted(registry.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(json.dumps(name), json.dumps(rid))
    return json.loads(text)


def _differences(original, revised):
    """What a revised file changes, counted from the two files alone: balls changed, added
    or removed (over by over), and the innings and match facts that differ."""
    a, b = _by_id(original), _by_id(revised)
    balls, facts = 0, set()
    for inning_a, inning_b in zip(a["innings"], b["innings"], strict=True):
        overs_a = {o["over"]: o["deliveries"] for o in inning_a["overs"]}
        overs_b = {o["over"]: o["deliveries"] for o in inning_b["overs"]}
        for number in overs_a.keys() | overs_b.keys():
            left = [json.dumps(x, sort_keys=True) for x in overs_a.get(number, [])]
            right = [json.dumps(x, sort_keys=True) for x in overs_b.get(number, [])]
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, left, right).get_opcodes():
                if tag != "equal":
                    balls += max(i2 - i1, j2 - j1)
        if inning_a.get("penalty_runs") != inning_b.get("penalty_runs"):
            facts.add("penalty runs")
    if a["info"].get("outcome") != b["info"].get("outcome"):
        facts.add("outcome")
    return balls, facts


@pytest.fixture
def originals(tmp_path):
    seed_dismissal_kinds()
    folder = tmp_path / "originals"
    folder.mkdir()
    for match_id in REVISIONS:
        shutil.copy(SAMPLES / f"{match_id}.json", folder / f"{match_id}.json")
    summary = Importer().run([folder])
    assert summary.new == len(REVISIONS), summary.rejections
    return folder


@pytest.fixture
def revised(tmp_path, originals):
    folder = tmp_path / "revised"
    folder.mkdir()
    expected_balls, expected_facts, changed = 0, set(), 0
    for match_id, change in REVISIONS.items():
        original = json.loads((originals / f"{match_id}.json").read_bytes())
        doc = copy.deepcopy(original)
        change(doc)
        (folder / f"{match_id}.json").write_text(json.dumps(doc))
        balls, facts = _differences(original, doc)
        expected_balls += balls
        expected_facts |= facts
        changed += bool(balls or facts)
    return folder, expected_balls, expected_facts, changed


def _writes():
    return {
        model.__name__: model.objects.count()
        for model in (
            Delivery,
            TimelineItem,
            Submission,
            FixtureAmendment,
            StatisticsRefresh,
            Fixture,
        )
    }


def test_a_folder_of_revised_real_files_applies_every_difference_and_a_second_run_nothing(
    revised,
):
    folder, balls, facts, changed = revised
    assert (balls, facts, changed) == (3, {"penalty runs", "outcome"}, 5)  # the files' own

    summary = Importer().run([folder])
    assert (summary.updated, summary.rejected) == (changed, 0), summary.rejections
    assert summary.revised_deliveries == balls
    assert set(summary.revised_facts) == facts
    assert "5 updated: 3 deliveries, " in summary.line()

    before = _writes()
    again = Importer().run([folder])
    assert (again.unchanged, again.updated, again.new) == (len(REVISIONS), 0, 0)
    assert _writes() == before


_LINES = (
    (CricketBattingLine, ("innings_ordinal", "participant_id")),
    (CricketBowlingLine, ("innings_ordinal", "participant_id")),
    (CricketFieldingLine, ("innings_ordinal", "participant_id")),
    (CricketTeamInningsLine, ("innings_ordinal",)),
)


def _lines(fixture_id):
    figures = {}
    for model, key in _LINES:
        for row in model.objects.filter(fixture_id=fixture_id).values():
            for name in ("id", "innings_id", "fixture_id"):
                row.pop(name, None)
            figures[(model.__name__, *(row[k] for k in key))] = row
    return figures


def test_the_statistics_after_a_revision_equal_a_fresh_import_of_the_revised_file(revised):
    folder, *_ = revised
    summary = Importer().run([folder])
    assert summary.rejected == 0, summary.rejections
    fresh = {}
    for match_id in REVISIONS:
        raw = (folder / f"{match_id}.json").read_bytes()
        # The same match under another id: a new fixture built from the revised file alone.
        result = Importer().import_file(raw, filename=f"fresh{match_id}.json")
        assert result.outcome == "new", result.error
        fresh[match_id] = result.fixture_id
    live = dict(
        ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.FIXTURE, external_id__in=list(REVISIONS)
        ).values_list("external_id", "internal_id")
    )
    lines_rebuild(fixture_ids=[*live.values(), *fresh.values()])
    for match_id in REVISIONS:
        lines = _lines(live[match_id])
        assert lines and lines == _lines(fresh[match_id]), match_id
