"""A revised source file is applied whole: balls added and removed, innings and match facts."""

import copy
import json

import pytest
from django.db import IntegrityError, transaction

from cricket.models import Delivery, DeliveryCorrectionHistory, FixtureOfficial, Innings
from cricket.source_revisions import (
    SOURCE_REVISION,
    fixture_corrections_from_source,
    source_correction_diff,
)
from cricket.tests.factories import SubmissionFactory, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer, import_bytes
from ingest.cricsheet.validate import load
from omnium.testing import REPO_ROOT
from sports.models import Fixture, FixtureAmendment, Participant, TimelineItem

pytestmark = pytest.mark.django_db

SAMPLES = REPO_ROOT / "ingest" / "samples" / "cricket"
ACTOR = "integration:cricsheet"


def imported(match_id):
    seed_dismissal_kinds()
    raw = (SAMPLES / f"{match_id}.json").read_bytes()
    result = import_bytes(raw, filename=f"{match_id}.json")
    assert result.outcome == "new", result.error
    document = load(raw, filename=f"{match_id}.json", match_id=match_id)
    return Fixture.objects.get(pk=result.fixture_id), document


def revise(document, change):
    revised = copy.deepcopy(document)
    change(revised)
    return load(json.dumps(revised).encode(), filename="revised.json", match_id="x")


def apply(fixture, document):
    return fixture_corrections_from_source(
        fixture=fixture, document=document, submission=SubmissionFactory(), actor=ACTOR
    )


def live(fixture, ordinal=1):
    return list(
        Delivery.objects.current()
        .filter(innings__fixture=fixture, innings__ordinal=ordinal)
        .order_by("sequence")
    )


def test_an_added_ball_is_a_new_live_row_and_the_later_balls_move_up_one_place():
    fixture, document = imported("1226909")
    before = live(fixture)
    extra = {
        "batter": "R Trenaman",
        "bowler": "HL Ferling",
        "non_striker": "HC Knight",
        "runs": {"batter": 0, "extras": 1, "total": 1},
        "extras": {"wides": 1},
    }
    # A wide the scorers missed, before the second ball of over 2.
    result = apply(fixture, revise(document, lambda d: d["innings"][0]["overs"][2][
        "deliveries"].insert(1, extra)))  # fmt: skip

    after = live(fixture)
    assert len(after) == len(before) + 1 == 25
    (added,) = result.added
    assert (added.over_number, added.position, added.sequence) == (2, 1, 14)
    assert (added.extra_wides, added.ball_label, added.revision) == (1, "2.2", 1)
    assert added.submission_id != before[0].submission_id  # carried by the revised file
    # Every later ball of the innings moved one sequence on; those of over 2 one position.
    for old, new in zip(before[13:], after[14:], strict=True):
        assert new.source_event_id == old.source_event_id
        assert new.sequence == old.sequence + 1 and new.revision == old.revision + 1
        assert new.position == old.position + (1 if old.over_number == 2 else 0)
        assert new.runs_total == old.runs_total and new.ball_label == old.ball_label
    assert before[:13] == after[:13]  # the balls before it are untouched
    assert len(result.moved) == 11
    item = TimelineItem.objects.get(fixture=fixture, event_type="cricket.delivery.added")
    assert item.payload["reason"] == SOURCE_REVISION and item.payload["ball_label"] == "2.2"


def test_a_removed_ball_is_superseded_by_a_tombstone_and_never_deleted():
    fixture, document = imported("1226909")
    before = live(fixture)
    rows = Delivery.objects.count()
    result = apply(fixture, revise(document, lambda d: d["innings"][0]["overs"][1][
        "deliveries"].pop(2)))  # fmt: skip

    (tombstone,) = result.tombstones
    gone = before[8]
    assert (tombstone.supersedes_id, tombstone.removed, tombstone.is_current) == (
        gone.pk,
        True,
        False,
    )
    assert tombstone.source_event_id == gone.source_event_id
    assert Delivery.objects.filter(pk=gone.pk, is_current=False).exists()
    after = live(fixture)
    assert [d.source_event_id for d in after] == [
        d.source_event_id for d in before if d.pk != gone.pk
    ]
    assert [d.sequence for d in after] == list(range(1, 24))
    assert [d.position for d in after if d.over_number == 1] == [0, 1, 2, 3, 4]
    # The tombstone, plus a revision for each of the 15 balls after it; nothing deleted.
    assert Delivery.objects.count() == rows + 1 + 15
    history = DeliveryCorrectionHistory.objects.get(resulting_delivery=tombstone)
    assert history.reason.startswith(SOURCE_REVISION)


def test_a_tombstone_is_never_live_and_nothing_supersedes_it():
    fixture, document = imported("1226909")
    result = apply(fixture, revise(document, lambda d: d["innings"][0]["overs"][3][
        "deliveries"].pop()))  # fmt: skip
    (tombstone,) = result.tombstones
    values = {
        f.attname: getattr(tombstone, f.attname)
        for f in Delivery._meta.concrete_fields
        if f.attname not in ("id", "created_at")
    }
    values.update(revision=tombstone.revision + 1, supersedes_id=tombstone.pk, removed=False)
    values.update(is_current=True, superseded_at=None, superseded_by_id=None)
    with pytest.raises(IntegrityError, match="not a superseded revision"), transaction.atomic():
        Delivery.objects.create(**values)
    with pytest.raises(IntegrityError), transaction.atomic():
        Delivery.objects.filter(pk=tombstone.pk).update(is_current=True, superseded_at=None)


def _penalty_eight(doc):
    doc["innings"][0]["penalty_runs"] = {"post": 8}


def test_changed_penalty_runs_are_an_amendment_of_the_innings_with_the_reason():
    fixture, document = imported("947101")
    result = apply(fixture, revise(document, _penalty_eight))
    assert result.labels == ["penalty runs"] and result.corrections == []
    innings = Innings.objects.get(fixture=fixture, ordinal=1)
    assert innings.penalty_runs_post == 8
    amendment = FixtureAmendment.objects.get(fixture=fixture)
    assert (amendment.field, amendment.old_value, amendment.new_value) == (
        "innings 1 penalty_runs_post",
        6,
        8,
    )
    assert amendment.reason == SOURCE_REVISION
    item = TimelineItem.objects.get(fixture=fixture, event_type="cricket.facts.revised")
    assert item.payload["changes"][0]["field"] == "penalty_runs_post"


@pytest.mark.parametrize(
    ("change", "field", "value"),
    [
        (lambda i: i.update(declared=True), "declared", True),
        (lambda i: i.update(target={"runs": 150, "overs": 19.0}), "target_runs", 150),
        (
            lambda i: i.update(miscounted_overs={"3": {"balls": 7, "umpire": "X"}}),
            "miscounted_overs",
            None,
        ),
    ],
)
def test_changed_innings_facts_are_amended(change, field, value):
    fixture, document = imported("947101")
    apply(fixture, revise(document, lambda d: change(d["innings"][1])))
    innings = Innings.objects.get(fixture=fixture, ordinal=2)
    assert FixtureAmendment.objects.filter(
        fixture=fixture, field=f"innings 2 {field}", reason=SOURCE_REVISION
    ).exists()
    if value is not None:
        assert getattr(innings, field) == value
    else:
        assert [(m.over_number, m.balls) for m in innings.miscounted_overs.all()] == [(3, 7)]


def _by_three(doc):
    doc["info"]["outcome"]["by"] = {"runs": 3}


def test_a_changed_outcome_margin_amends_the_result():
    fixture, document = imported("947101")
    result = apply(fixture, revise(document, _by_three))
    assert result.labels == ["outcome"]
    fixture.refresh_from_db()
    assert fixture.result["by"] == {"runs": 3}
    amendment = FixtureAmendment.objects.get(fixture=fixture, field="result")
    assert amendment.old_value["result"]["by"] == {"runs": 1}
    assert amendment.reason == SOURCE_REVISION


def _toss(doc):
    doc["info"]["toss"] = {"winner": doc["info"]["teams"][1], "decision": "bat"}


def _player_of_match(doc):
    doc["info"]["player_of_match"] = [doc["info"]["players"][doc["info"]["teams"][0]][0]]


def _umpire(doc):
    doc["info"]["officials"]["umpires"][0] = "A New Umpire"
    doc["info"]["registry"]["people"]["A New Umpire"] = "aaaa0000"


def _squad(doc):
    team = doc["info"]["teams"][0]
    doc["info"]["players"][team].append("A New Player")
    doc["info"]["registry"]["people"]["A New Player"] = "bbbb0000"


@pytest.mark.parametrize(
    ("change", "label", "field"),
    [
        (_toss, "toss", "meta.toss"),
        (_player_of_match, "player of the match", "meta.player_of_match_ids"),
        (_umpire, "officials", "officials"),
        (_squad, "squads", "squad Gloucestershire"),
    ],
)
def test_changed_match_facts_are_amended(change, label, field):
    fixture, document = imported("947101")
    revised = revise(document, change)
    result = apply(fixture, revised)
    assert result.labels == [label]
    assert FixtureAmendment.objects.filter(
        fixture=fixture, field=field, reason=SOURCE_REVISION
    ).exists()
    # Applied: the same file again changes nothing.
    assert not apply(fixture, revised).changed
    if label == "officials":
        assert FixtureOfficial.objects.filter(fixture=fixture, name="A New Umpire").exists()
    if label == "squads":
        new = Participant.objects.get(aliases__name="A New Player")
        assert fixture.competitors.filter(participant=new, parent__isnull=False).exists()


def test_the_diff_shows_added_and_removed_balls_and_facts_and_writes_nothing():
    fixture, document = imported("947101")

    def several(doc):
        doc["innings"][0]["overs"][0]["deliveries"].pop(0)
        _penalty_eight(doc)
        _by_three(doc)

    rows = Delivery.objects.count()
    lines = source_correction_diff(fixture=fixture, document=revise(document, several))
    assert Delivery.objects.count() == rows
    removed = [line for line in lines if line.proposed == "removed"]
    assert [(r.innings, r.over, r.position) for r in removed] == [(1, 0, 0)]
    facts = {line.field for line in lines if line.kind == "fact"}
    assert facts == {"innings 1 penalty_runs_post", "match result"}


def test_an_older_file_submitted_again_reverts_the_revision():
    seed_dismissal_kinds()
    original = (SAMPLES / "947101.json").read_bytes()
    doc = json.loads(original)
    _penalty_eight(doc)
    _by_three(doc)
    revised = json.dumps(doc).encode()
    importer = Importer()
    assert importer.import_file(original, filename="947101.json").outcome == "new"
    first = importer.import_file(revised, filename="947101.json")
    assert (first.outcome, first.changes) == ("updated", ["penalty runs", "outcome"])
    back = Importer().import_file(original, filename="947101.json")
    assert (back.outcome, back.changes) == ("updated", ["penalty runs", "outcome"])
    fixture = Fixture.objects.get(pk=back.fixture_id)
    assert fixture.result["by"] == {"runs": 1}
    assert Innings.objects.get(fixture=fixture, ordinal=1).penalty_runs_post == 6
    again = Importer().import_file(original, filename="947101.json")
    assert again.outcome == "unchanged"


def test_the_import_summary_says_what_changed(tmp_path):
    seed_dismissal_kinds()
    doc = json.loads((SAMPLES / "947101.json").read_bytes())
    Importer().import_file(json.dumps(doc).encode(), filename="947101.json")
    for ball in doc["innings"][1]["overs"][0]["deliveries"][:2]:
        ball["runs"]["batter"] += 1
        ball["runs"]["total"] += 1
    _penalty_eight(doc)
    _by_three(doc)
    (tmp_path / "947101.json").write_text(json.dumps(doc))
    summary = Importer().run([tmp_path])
    assert "1 updated: 2 deliveries, penalty runs, outcome" in summary.line()
