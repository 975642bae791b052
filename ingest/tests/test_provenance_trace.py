"""The provenance trace read service: from a published figure to its deliveries, their
corrections, the batch item, batch, stored object checksum, submitter and review."""

import hashlib
import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.utils import timezone

from accounts.access import account_tombstone, competition_grant_set
from accounts.models import Role
from accounts.tests.factories import StaffFactory
from cricket.corrections import delivery_correct
from cricket.models import Delivery
from cricket.stats.aggregates import Scope
from cricket.stats.engine import lines_rebuild
from cricket.stats.models import CricketBattingLine, CricketBowlingLine
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches.models import BatchItem
from ingest.cricsheet.importer import Importer
from ingest.provenance.selectors import DELETED_ACCOUNT, trace_aggregate, trace_line
from ingest.storage import stored_objects_expire
from ingest.tests.batch_factories import SMALL, sample
from ingest.tests.provenance_factories import (
    NASH_MATCHES,
    NASH_REGISTRY_ID,
    REASON,
    participant_of,
    published_batch,
    reviewer_without_grants,
    top_batting_line,
)
from sports.models import SubmissionKind
from sports.services import competition_create
from sports.tests.factories import FootballFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


@pytest.fixture
def scoped(db):
    return reviewer_without_grants()


@pytest.fixture
def batch(submitter, reviewer):
    return published_batch(submitter=submitter, reviewer=reviewer, match_ids=[SMALL[0]])


@pytest.fixture
def line(batch):
    return top_batting_line(batch.items.get().fixture_id)


def _trace(user, line, figure="runs"):
    return trace_line(user=user, kind="batting", pk=line.pk, figure=figure)


def _corrected(line, editor):
    """Correct one of the line's scoring balls (one run more) and rebuild the lines (a
    rebuild writes new rows): the ball as it was, and the line as rebuilt."""
    ball = (
        Delivery.objects.current()
        .filter(innings_id=line.innings_id, batter_id=line.participant_id, runs_batter__in=[1, 2])
        .order_by("sequence")
        .first()
    )
    delivery_correct(
        delivery=ball,
        changes={"runs_batter": ball.runs_batter + 1},
        reason="the scorer's sheet shows an extra run",
        actor=editor,
    )
    lines_rebuild(fixture_ids=[line.fixture_id])
    rebuilt = CricketBattingLine.objects.select_related("participant", "competition").get(
        innings_id=line.innings_id, participant_id=line.participant_id
    )
    assert rebuilt.runs == line.runs + 1
    return ball, rebuilt


def test_publication_links_each_batch_item_to_the_submission_it_recorded(batch):
    item = batch.items.select_related("submission").get()
    assert item.submission is not None
    assert item.submission.kind == SubmissionKind.BATCH
    assert item.submission.sha256 == item.sha256


def test_a_line_figure_traces_to_the_live_deliveries_that_add_up_to_it(editor, line):
    trace = _trace(editor, line)
    assert trace["value"] == line.runs > 0
    assert trace["contributed"] == line.runs
    ids = [d["id"] for d in trace["deliveries"]]
    live = Delivery.objects.current().filter(
        innings_id=line.innings_id, batter_id=line.participant_id, runs_batter__gt=0
    )
    assert sorted(ids) == sorted(live.values_list("id", flat=True))
    first = trace["deliveries"][0]
    assert {"innings", "over", "position", "sequence", "ball_label"} <= set(first)
    assert first["batter"]["id"] == line.participant_id


def test_every_figure_of_a_line_adds_up_to_its_value(editor, batch):
    fixture_id = batch.items.get().fixture_id
    for figure in ("runs", "balls_faced", "fours", "sixes", "outs"):
        for batting in CricketBattingLine.objects.filter(fixture_id=fixture_id):
            trace = trace_line(user=editor, kind="batting", pk=batting.pk, figure=figure)
            assert trace["contributed"] == trace["value"], (figure, batting.pk)


def test_the_trace_reaches_the_batch_item_batch_and_stored_object_checksum(editor, batch, line):
    (source,) = _trace(editor, line)["sources"]
    item = batch.items.get()
    raw_sha = hashlib.sha256(sample(SMALL[0])[1]).hexdigest()
    assert source["submission"]["sha256"] == raw_sha
    assert source["batch_item"]["id"] == item.pk
    assert source["batch_item"]["sha256"] == raw_sha
    assert source["batch"]["id"] == batch.pk
    assert source["batch"]["package_sha256"] == batch.sha256
    assert source["stored_object"]["sha256"] == raw_sha
    assert source["stored_object"]["retention_state"] == "retained"
    assert source["stored_object"]["bytes_available"] is True


def test_the_trace_names_the_submitter_and_the_reviewers_decision(
    editor, submitter, reviewer, line
):
    (source,) = _trace(editor, line)["sources"]
    assert source["submitter"]["name"] == str(submitter)
    assert source["batch"]["submitter"]["id"] == submitter.pk
    (decision,) = source["review_decisions"]
    assert decision["reviewer"]["name"] == str(reviewer)
    assert decision["decision"] == "approve"
    assert decision["reason"] == REASON


def test_a_corrected_ball_shows_its_live_revision_and_the_correction(editor, line):
    ball, line = _corrected(line, editor)
    trace = _trace(editor, line)
    assert trace["contributed"] == trace["value"] == line.runs
    (row,) = [d for d in trace["deliveries"] if d["source_event_id"] == ball.source_event_id]
    assert row["revision"] == 2
    assert row["id"] != ball.pk
    (correction,) = row["corrections"]
    assert correction["requested_by"]["id"] == editor.pk
    assert correction["reason"] == "the scorer's sheet shows an extra run"
    assert (correction["previous_revision"], correction["resulting_revision"]) == (1, 2)
    assert {
        "field": "runs.batter",
        "previous": ball.runs_batter,
        "resulting": ball.runs_batter + 1,
    } in correction["changes"]


def test_balls_never_corrected_carry_no_correction_rows(editor, line):
    trace = _trace(editor, line)
    assert all(d["corrections"] == [] for d in trace["deliveries"])


def test_expired_bytes_still_trace_with_their_checksum(editor, line):
    assert stored_objects_expire(now=timezone.now() + timedelta(days=10_000)) >= 1
    (source,) = _trace(editor, line)["sources"]
    assert source["stored_object"]["retention_state"] == "expired"
    assert source["stored_object"]["bytes_available"] is False
    assert source["stored_object"]["deleted_at"] is not None
    assert source["stored_object"]["sha256"] == hashlib.sha256(sample(SMALL[0])[1]).hexdigest()
    assert "expired" in source["explanation"]


def test_a_tombstoned_submitter_still_traces_as_a_deleted_account(editor, submitter, line):
    submitter.display_name = "Jo Scorer"
    submitter.save(update_fields=["display_name"])
    assert _trace(editor, line)["sources"][0]["submitter"]["name"] == "Jo Scorer"
    account_tombstone(user=submitter, actor=None, reason="asked for the account to be deleted")
    trace = _trace(editor, line)
    (source,) = trace["sources"]
    assert source["submitter"] == {
        "id": submitter.pk,
        "name": DELETED_ACCOUNT,
        "tombstoned": True,
        "tombstoned_at": source["submitter"]["tombstoned_at"],
    }
    assert source["submitter"]["tombstoned_at"] is not None
    assert source["batch"]["submitter"]["tombstoned"] is True
    assert source["review_decisions"]
    assert "Jo Scorer" not in repr(trace)


def test_a_tombstoned_corrector_keeps_no_name_in_the_correction(editor, line):
    _, line = _corrected(line, editor)
    account_tombstone(user=editor, actor=None, reason="left the project")
    admin = StaffFactory(username="another-editor", role=Role.EDITOR)
    trace = _trace(admin, line)
    (correction,) = [c for d in trace["deliveries"] for c in d["corrections"]]
    assert correction["requested_by"]["name"] == DELETED_ACCOUNT
    assert correction["requested_by_label"] == ""


def test_a_corpus_import_traces_to_its_submission_and_says_there_is_no_batch(editor):
    name, raw = sample(SMALL[1])
    result = Importer().import_file(raw, filename=name)
    lines_rebuild(fixture_ids=[result.fixture_id])
    line = top_batting_line(result.fixture_id)
    (source,) = _trace(editor, line)["sources"]
    assert source["submission"]["kind"] == SubmissionKind.CORPUS_IMPORT
    assert source["submission"]["sha256"] == hashlib.sha256(raw).hexdigest()
    assert source["batch_item"] is source["batch"] is source["stored_object"] is None
    assert source["review_decisions"] == []
    assert "no batch" in source["explanation"].lower()


def test_a_career_figure_is_traced_a_fixture_at_a_time(editor, submitter, reviewer):
    published_batch(submitter=submitter, reviewer=reviewer, match_ids=NASH_MATCHES)
    nash = participant_of(NASH_REGISTRY_ID)
    first = trace_aggregate(user=editor, participant=nash, figure="runs", scope=Scope(), fixtures=1)
    assert (first["value"], first["fixtures_total"]) == (142, 2)
    (group,) = first["fixtures"]
    assert group["value"] == group["contributed"] == 30
    assert first["next_cursor"]
    second = trace_aggregate(
        user=editor,
        participant=nash,
        figure="runs",
        scope=Scope(),
        fixtures=1,
        cursor=first["next_cursor"],
    )
    (group,) = second["fixtures"]
    assert group["value"] == group["contributed"] == 112
    assert second["next_cursor"] is None
    assert second["sources"][0]["batch"]["id"] == first["sources"][0]["batch"]["id"]


def test_a_cursor_the_trace_did_not_give_is_refused_by_name(editor, line):
    with pytest.raises(ValidationError, match="cursor"):
        trace_aggregate(
            user=editor, participant=line.participant, figure="runs", scope=Scope(), cursor="x!"
        )


def test_a_figure_of_another_kind_of_line_is_refused_by_name(editor, line):
    with pytest.raises(ValidationError, match="figure"):
        _trace(editor, line, figure="wickets")


def test_a_viewer_may_not_trace(viewer, line):
    with pytest.raises(PermissionDenied):
        _trace(viewer, line)


def test_a_reviewer_traces_only_the_competitions_they_review(scoped, admin_user, line):
    other = competition_create(
        code="other", name="Other", type="league", sport=FootballFactory(), actor="t"
    )
    competition_grant_set(user=scoped, competition=other, role=Role.REVIEWER, actor=admin_user)
    with pytest.raises(PermissionDenied, match="do not review"):
        _trace(scoped, line)
    competition_grant_set(
        user=scoped, competition=line.competition, role=Role.REVIEWER, actor=admin_user
    )
    assert _trace(scoped, line)["value"] == line.runs


def test_a_scoped_reviewer_must_name_a_competition_for_a_career_figure(scoped, admin_user, line):
    competition_grant_set(
        user=scoped, competition=line.competition, role=Role.REVIEWER, actor=admin_user
    )
    with pytest.raises(PermissionDenied, match="every competition"):
        trace_aggregate(user=scoped, participant=line.participant, figure="runs", scope=Scope())
    scoped = trace_aggregate(
        user=scoped,
        participant=line.participant,
        figure="runs",
        scope=Scope(competition_id=line.competition_id),
    )
    assert scoped["value"] == line.runs


def test_a_line_trace_runs_the_same_queries_however_many_balls(
    editor, line, django_assert_num_queries
):
    """The line, the merged ids, the deliveries, their wickets, the correction rows, the
    batch items and the review decisions: seven queries for a few balls or many."""
    _, line = _corrected(line, editor)
    for figure in ("runs", "balls_faced"):
        with django_assert_num_queries(7):
            trace = _trace(editor, line, figure=figure)
        assert trace["deliveries"]


def test_a_traced_wicket_reads_its_fielders_in_one_query(editor, batch, django_assert_num_queries):
    """Fielders are one query more; no ball was corrected, so no correction rows are
    looked up (a first revision has none)."""
    bowling = (
        CricketBowlingLine.objects.filter(fixture_id=batch.items.get().fixture_id)
        .order_by("-wickets", "participant__name")
        .first()
    )
    with django_assert_num_queries(7):
        trace = trace_line(user=editor, kind="bowling", pk=bowling.pk, figure="wickets")
    assert trace["contributed"] == bowling.wickets > 0
    assert any(w["fielders"] for d in trace["deliveries"] for w in d["wickets"])


def test_a_career_trace_runs_a_fixed_number_of_queries(
    editor, submitter, reviewer, django_assert_num_queries
):
    published_batch(submitter=submitter, reviewer=reviewer, match_ids=NASH_MATCHES)
    nash = participant_of(NASH_REGISTRY_ID)
    with django_assert_num_queries(8):
        trace = trace_aggregate(user=editor, participant=nash, figure="runs", scope=Scope())
    assert sum(len(g["deliveries"]) for g in trace["fixtures"]) > 40


def test_items_of_a_batch_that_published_nothing_new_link_no_submission(submitter, reviewer, batch):
    again = published_batch(submitter=submitter, reviewer=reviewer, match_ids=[SMALL[0]])
    item = BatchItem.objects.get(batch=again)
    assert item.publication == "unchanged"
    assert item.submission_id is None


def test_the_backfill_links_items_published_before_the_link_existed(editor, batch, line):
    BatchItem.objects.filter(batch=batch).update(submission=None)
    out = StringIO()
    call_command("link_batch_item_submissions", stdout=out)
    assert out.getvalue().startswith("1 batch item(s) linked")
    (source,) = _trace(editor, line)["sources"]
    assert source["batch"]["id"] == batch.pk


def test_the_backfill_run_again_links_nothing(batch):
    out = StringIO()
    call_command("link_batch_item_submissions", stdout=out)
    assert out.getvalue().startswith("0 batch item(s)")


def test_a_reviewer_granted_every_competition_traces_a_whole_career(scoped, admin_user, line):
    competition_grant_set(user=scoped, competition=None, role=Role.REVIEWER, actor=admin_user)
    trace = trace_aggregate(user=scoped, participant=line.participant, figure="runs", scope=Scope())
    assert trace["value"] == line.runs


def _with_a_run_more(line) -> tuple[str, bytes]:
    """The line's match file with one of its batter's dot balls scored as a single."""
    name, raw = sample(SMALL[0])
    document = json.loads(raw)
    batter = line.participant.name
    for over in document["innings"][line.innings_ordinal - 1]["overs"]:
        for ball in over["deliveries"]:
            plain = "extras" not in ball and "wickets" not in ball
            if ball["batter"] == batter and ball["runs"]["total"] == 0 and plain:
                ball["runs"]["batter"] = ball["runs"]["total"] = 1
                return name, json.dumps(document).encode()
    raise AssertionError(f"{batter} faced no plain dot ball")


def test_a_correction_batch_is_a_source_of_its_own_with_its_review(
    editor, submitter, reviewer, line
):
    revised = _with_a_run_more(line)
    correction = published_batch(submitter=submitter, reviewer=reviewer, files=[revised])
    item = correction.items.get()
    assert item.operation == "correct" and item.submission_id is not None
    rebuilt = CricketBattingLine.objects.get(
        innings_id=line.innings_id, participant_id=line.participant_id
    )
    trace = trace_line(user=editor, kind="batting", pk=rebuilt.pk, figure="runs")
    assert trace["contributed"] == trace["value"] == line.runs + 1
    (corrected,) = [d for d in trace["deliveries"] if d["corrections"]]
    (row,) = corrected["corrections"]
    assert row["correction_submission_id"] == item.submission_id
    assert row["review"]["reviewer"]["id"] == reviewer.pk
    sources = {s["submission"]["id"]: s for s in trace["sources"]}
    assert set(sources) == {corrected["submission_id"], item.submission_id}
    assert sources[item.submission_id]["batch"]["id"] == correction.pk
    assert sources[item.submission_id]["stored_object"]["sha256"] == item.sha256
    assert sources[corrected["submission_id"]]["batch"]["id"] != correction.pk
