"""Correction batches, on a real match: 64815 (an ODI, India tour of New Zealand 2002/03)
from the dev corpus (../shared/data/cricsheet, README: unmodified Cricsheet files, ODC-By,
credit cricsheet.org) is imported as the corpus import would, then a copy of its file with
two deliveries changed is submitted as a batch. Approved and published, it corrects exactly
those two balls and the figures that depend on them; rejected, it changes nothing."""

import copy
import hashlib
import json
import tarfile

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from cricket.models import Delivery, DeliveryCorrectionHistory, ReviewDecision
from cricket.stats.models import (
    CricketAppearance,
    CricketBattingLine,
    CricketBowlingLine,
    CricketFieldingLine,
    CricketTeamInningsLine,
    ParticipantAggregateSnapshot,
    RefreshStatus,
    StatisticsRefresh,
)
from cricket.stats.refresh import statistics_rebuild_all, statistics_refresh_run
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import BatchState, ItemOperation, ItemOutcome, PublicationOutcome
from ingest.batches.selectors import correction_diff
from ingest.cricsheet.importer import Importer
from omnium.testing import SHARED_DATA
from sports.models import EntityType, ExternalIdMap, Fixture, Submission, SubmissionKind

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]
TARBALL = SHARED_DATA / "cricsheet" / "dev_matches.tar.gz"
MATCH = "64815"
# From the corpus manifest (dev_manifest.csv.gz): the file is Cricsheet's, byte for byte.
MATCH_SHA256 = "15027476ad3f6c9a136bf3190618956b91199db7d090823bda2879d8b313f774"


@pytest.fixture(scope="module")
def original() -> bytes:
    if not TARBALL.is_file():
        pytest.skip(f"Cricsheet dev corpus not present at {TARBALL}")
    with tarfile.open(TARBALL, "r|gz") as archive:  # sorted by id: this one is near the start
        for member in archive:
            if member.name == f"{MATCH}.json":
                raw = archive.extractfile(member).read()
                break
        else:
            pytest.fail(f"{MATCH}.json is not in {TARBALL}")
    assert hashlib.sha256(raw).hexdigest() == MATCH_SHA256
    return raw


def _targets(document: dict) -> list[tuple[int, int, int]]:
    """The first plain dot ball (no extras, no wicket) of each innings: (innings ordinal,
    over, position). Giving the batter a run changes no ball's legality or label."""
    found = []
    for ordinal, inning in enumerate(document["innings"][:2], start=1):
        for over in inning["overs"]:
            spot = next(
                (
                    p
                    for p, ball in enumerate(over["deliveries"])
                    if ball["runs"]["total"] == 0 and "wickets" not in ball and "extras" not in ball
                ),
                None,
            )
            if spot is not None:
                found.append((ordinal, over["over"], spot))
                break
    assert len(found) == 2
    return found


@pytest.fixture
def match(db, original):
    """The match imported as the corpus import does, with its statistics built."""
    seed_dismissal_kinds()
    result = Importer().import_file(original, filename=f"{MATCH}.json")
    assert result.outcome == "new", result.error
    statistics_rebuild_all(reason="test baseline", actor="integration:test")
    return Fixture.objects.get(pk=result.fixture_id)


@pytest.fixture
def revised(original):
    """The file with the batter given one run off two dot balls; the balls and their people."""
    document = json.loads(original)
    changed = copy.deepcopy(document)
    balls = []
    for ordinal, over_number, position in _targets(document):
        over = next(o for o in changed["innings"][ordinal - 1]["overs"] if o["over"] == over_number)
        ball = over["deliveries"][position]
        ball["runs"]["batter"], ball["runs"]["total"] = 1, 1
        balls.append(((ordinal, over_number, position), ball["batter"], ball["bowler"]))
    return json.dumps(changed, indent=2).encode(), balls


def _figures() -> dict:
    """Every statistic row, keyed by what it is about (ids of rebuilt rows are left out)."""
    figures = {}
    for model, key in (
        (CricketBattingLine, ("innings_ordinal", "participant_id")),
        (CricketBowlingLine, ("innings_ordinal", "participant_id")),
        (CricketFieldingLine, ("innings_ordinal", "participant_id")),
        (CricketTeamInningsLine, ("innings_ordinal",)),
        (CricketAppearance, ("participant_id", "super_over")),
        (
            ParticipantAggregateSnapshot,
            ("participant_id", "level", "format_code", "competition_id", "super_overs"),
        ),
    ):
        for row in model.objects.values():
            row.pop("id")
            row.pop("innings_id", None)
            figures[(model.__name__, *(row[k] for k in key))] = row
    return figures


def _counts() -> dict:
    return {
        model.__name__: model.objects.count()
        for model in (Delivery, DeliveryCorrectionHistory, Submission, Fixture, StatisticsRefresh)
    }


def _person(name: str, document: dict):
    registry_id = document["info"]["registry"]["people"][name]
    return ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type=EntityType.PARTICIPANT, external_id=registry_id
    ).internal_id


def _staged(submitter, raw):
    batch, _ = services.batch_submit(
        submitter=submitter, files=[(f"{MATCH}.json", raw)], idempotency_key="correction"
    )
    return services.batch_validate(batch=batch)


def test_the_batch_is_a_validated_correction_of_the_imported_match(match, revised, submitter):
    raw, _ = revised
    batch = _staged(submitter, raw)
    item = batch.items.get()
    assert batch.state == BatchState.AWAITING_REVIEW
    assert batch.competition == match.competition
    assert (item.operation, item.outcome, item.correction_target) == (
        ItemOperation.CORRECT, ItemOutcome.VALID, match,
    )  # fmt: skip
    assert (
        item.resolution["fixture"] | {"changes": 2, "deliveries": 2} == item.resolution["fixture"]
    )


def test_the_diff_names_each_ball_and_field_live_and_proposed_and_writes_nothing(
    match, revised, submitter
):
    raw, balls = revised
    item = _staged(submitter, raw).items.get()
    before = _counts()
    lines = correction_diff(item)
    assert [(d.innings, d.over, d.position, d.field, d.live, d.proposed) for d in lines] == [
        (*key, "runs_batter", "0", "1") for key, _, _ in balls
    ]
    assert _counts() == before


def test_the_console_shows_the_diff_a_correction_batch_would_make(
    match, revised, submitter, reviewer
):
    raw, balls = revised
    batch = _staged(submitter, raw)
    client = Client()
    client.force_login(reviewer)
    page = client.get(reverse("admin:ingest_batch_change", args=[batch.pk])).content.decode()
    assert "correction-diff" in page
    for (innings, over, position), _, _ in balls:
        assert f"innings {innings} over {over} position {position}" in page
    assert "runs_batter" in page


def test_an_approved_correction_batch_changes_exactly_the_two_balls_and_their_figures(
    match, revised, original, submitter, reviewer
):
    raw, balls = revised
    document = json.loads(original)
    figures, counts = _figures(), _counts()
    earlier = set(StatisticsRefresh.objects.values_list("pk", flat=True))
    batch = _staged(submitter, raw)
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="checked")
    batch = services.batch_publish(batch=batch, worker="w1")
    assert batch.state == BatchState.PUBLISHED

    # Two new revisions, of exactly the targeted balls, recorded on the item.
    item = batch.items.get()
    assert (item.publication, item.fixture) == (PublicationOutcome.PUBLISHED, match)
    new = Delivery.objects.filter(innings__fixture=match, revision=2)
    assert sorted((d.innings.ordinal, d.over_number, d.position) for d in new) == [
        key for key, _, _ in balls
    ]
    assert set(item.published_deliveries.values_list("pk", flat=True)) == {d.pk for d in new}
    assert all(d.runs_batter == 1 and d.is_current for d in new)
    history = DeliveryCorrectionHistory.objects.filter(fixture=match)
    assert history.count() == 2
    for row in history:
        assert row.reason == f"batch {batch.pk}: source revision"
        assert (row.requested_by, row.reviewed_by) == (submitter, reviewer)
        assert (row.review_decision, row.review_reason) == (ReviewDecision.APPROVED, "checked")
        assert row.correction_submission.kind == SubmissionKind.BATCH
        assert row.correction_submission.submitted_by == submitter
    assert _counts()["Delivery"] == counts["Delivery"] + 2

    # The statistics refresh path was asked for this fixture; running it changes exactly
    # the figures of the two batters, the two bowlers and the two innings.
    (refresh,) = StatisticsRefresh.objects.exclude(pk__in=earlier)
    assert refresh.status == RefreshStatus.PENDING
    assert refresh.reason == f"batch {batch.pk}: source revision"
    assert refresh.fixture_ids == [str(match.pk)]
    statistics_refresh_run(refresh_id=refresh.pk)
    after = _figures()
    assert after.keys() == figures.keys()
    changed = {key for key in figures if figures[key] != after[key]}
    expected_lines = set()
    for (innings, _, _), batter, bowler in balls:
        batter_id, bowler_id = _person(batter, document), _person(bowler, document)
        expected_lines |= {
            ("CricketBattingLine", innings, batter_id),
            ("CricketBowlingLine", innings, bowler_id),
            ("CricketTeamInningsLine", innings),
        }
        bat, bowl = (
            ("CricketBattingLine", innings, batter_id),
            ("CricketBowlingLine", innings, bowler_id),
        )
        assert after[bat]["runs"] == figures[bat]["runs"] + 1
        assert after[bowl]["runs_conceded"] == figures[bowl]["runs_conceded"] + 1
        team = ("CricketTeamInningsLine", innings)
        assert after[team]["total"] == figures[team]["total"] + 1
    people = {key[2] for key in expected_lines if len(key) == 3}
    # A batter out after a corrected ball fell at a score one run higher: that is the only
    # change to their line (the fall of wicket is part of the batting line).
    corrected_innings = {innings for (innings, _, _), _, _ in balls}
    later_falls = {
        key
        for key in changed - expected_lines
        if key[0] == "CricketBattingLine"
        and key[1] in corrected_innings
        and {f for f in after[key] if after[key][f] != figures[key][f]} == {"fall_runs"}
        and after[key]["fall_runs"] == figures[key]["fall_runs"] + 1
    }
    assert {
        key for key in changed if key[0] != "ParticipantAggregateSnapshot"
    } == expected_lines | later_falls
    snapshots = {key for key in changed if key[0] == "ParticipantAggregateSnapshot"}
    assert snapshots and {key[1] for key in snapshots} == people


def test_a_rejected_correction_batch_changes_nothing(match, revised, submitter, reviewer):
    raw, _ = revised
    figures, counts = _figures(), _counts()
    batch = _staged(submitter, raw)
    services.batch_review(batch=batch, reviewer=reviewer, approve=False, reason="not so")
    with pytest.raises(ValidationError, match="only an approved batch"):
        services.batch_publish(batch=batch, worker="w1")
    assert _counts() == counts
    assert _figures() == figures
    assert not Delivery.objects.filter(revision__gt=1).exists()


def test_a_correction_that_removes_a_ball_is_valid_and_its_diff_names_the_ball(
    match, original, submitter
):
    document = json.loads(original)
    document["innings"][0]["overs"][0]["deliveries"].pop()
    batch = _staged(submitter, json.dumps(document).encode())
    item = batch.items.get()
    assert item.outcome == ItemOutcome.VALID, item.problems
    removed = [line for line in correction_diff(item) if line.proposed == "removed"]
    assert [(line.innings, line.over) for line in removed] == [(1, 0)]
