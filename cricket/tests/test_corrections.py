"""The correction service: new revisions, inherited lineage, history, and what it refuses."""

import json
from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, connection, transaction

from accounts.models import AuditEntry
from cricket.corrections import (
    CorrectionConflict,
    delivery_correct,
    delivery_snapshot,
)
from cricket.models import (
    Delivery,
    DeliveryCorrectionHistory,
    DeliveryReplacement,
    DeliveryReview,
    DeliveryWicket,
    DeliveryWicketFielder,
)
from cricket.tests.factories import SubmissionFactory, cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from sports.models import Participant, TimelineItem

pytestmark = pytest.mark.django_db


@pytest.fixture
def match():
    """The hand-made match imported through the importer: over 0 is 0.1 (1 run), a wide,
    0.2 (a four), a no-ball with 2 byes, 0.3 (B Batter caught by Z Keeper), 0.4 (a six),
    0.5 (explicit zero leg byes)."""
    seed_dismissal_kinds()
    result = Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    assert result.outcome == "new", result.error
    return result.fixture_id


def live(fixture_id, over, position, innings=1):
    return Delivery.objects.current().get(
        innings__fixture_id=fixture_id,
        innings__ordinal=innings,
        over_number=over,
        position=position,
    )


def person(name):
    return Participant.objects.get(name=name)


def content(snapshot):
    """A snapshot without what differs between revisions of the same content."""
    keep = dict(snapshot)
    for key in ("delivery_id", "revision"):
        keep.pop(key)
    return keep


def test_a_correction_inserts_the_next_revision_and_supersedes_the_live_one(match, editor):
    old = live(match, 0, 2)
    result = delivery_correct(
        delivery=old, changes={"runs_batter": 3}, reason="three, not four", actor=editor
    )
    new = result.delivery
    old.refresh_from_db()
    assert new.revision == old.revision + 1 == 2
    assert (new.supersedes_id, old.superseded_by_id) == (old.pk, new.pk)
    assert old.is_current is False and old.superseded_at is not None
    assert live(match, 0, 2) == new


def test_a_correction_inherits_the_source_event_submission_ordinal_and_sequence(match, editor):
    old = live(match, 0, 5)
    new = delivery_correct(
        delivery=old, changes={"runs_batter": 4}, reason="four, not six", actor=editor
    ).delivery
    inherited = ("source_event_id", "submission_id", "submission_event_ordinal", "sequence")
    assert [getattr(new, f) for f in inherited] == [getattr(old, f) for f in inherited]
    assert (new.innings_id, new.over_number, new.position) == (
        old.innings_id,
        old.over_number,
        old.position,
    )


def test_one_live_row_stands_per_natural_key_after_corrections(match, editor):
    delivery_correct(
        delivery=live(match, 0, 0), changes={"runs_batter": 2}, reason="r", actor=editor
    )
    delivery_correct(
        delivery=live(match, 0, 0), changes={"runs_batter": 3}, reason="r", actor=editor
    )
    rows = Delivery.objects.filter(innings__fixture_id=match, over_number=0, position=0)
    assert sorted(rows.values_list("revision", "is_current")) == [
        (1, False),
        (2, False),
        (3, True),
    ]


def test_runs_extras_and_runs_total_are_recomputed(match, editor):
    new = delivery_correct(
        delivery=live(match, 0, 3),
        changes={"extra_byes": 4, "runs_batter": 1},
        reason="four byes and a run off the bat",
        actor=editor,
    ).delivery
    assert (new.runs_batter, new.runs_extras, new.runs_total) == (1, 5, 6)


def test_the_history_row_keeps_both_snapshots_links_reason_requester_and_provenance(match, editor):
    old = live(match, 0, 4)
    before = delivery_snapshot(old)
    carrier = SubmissionFactory()
    result = delivery_correct(
        delivery=old,
        changes={"runs_batter": 1},
        reason="they ran one before the catch",
        actor=editor,
        submission=carrier,
    )
    history = DeliveryCorrectionHistory.objects.get(resulting_delivery=result.delivery)
    assert history.previous_delivery_id == old.pk
    assert history.requested_by == editor and history.requested_by_label == "editor"
    assert history.reason == "they ran one before the catch"
    assert history.previous_snapshot == json.loads(json.dumps(before))
    assert history.resulting_snapshot["runs"] == {
        "batter": 1,
        "extras": 0,
        "total": 1,
        "non_boundary": False,
    }
    assert history.resulting_snapshot["wickets"][0]["fielders"][0]["participant"]["name"] == (
        "Z Keeper"
    )
    assert history.original_submission_id == old.submission_id
    assert history.correction_submission == carrier
    assert history.source_event_id == old.source_event_id
    assert history.requested_at is not None


def test_the_history_time_is_the_databases_clock(match, editor):
    result = delivery_correct(
        delivery=live(match, 0, 0), changes={"runs_batter": 2}, reason="two", actor=editor
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        db_now = cursor.fetchone()[0]
    assert result.history.requested_at == db_now  # the transaction's time


def test_the_history_time_is_the_databases_whatever_the_insert_says(match, editor):
    first = delivery_correct(
        delivery=live(match, 0, 0), changes={"runs_batter": 2}, reason="two", actor=editor
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cricket_deliverycorrectionhistory (previous_delivery_id, "
            "resulting_delivery_id, source_event_id, fixture_id, requested_by_label, "
            "requested_at, reason, previous_snapshot, resulting_snapshot, original_submission_id,"
            " review_decision, review_reason) "
            "SELECT %s, %s, source_event_id, fixture_id, 'x', '2000-01-01T00:00:00Z', 'r', "
            "'{}', '{}', original_submission_id, '', '' "
            "FROM cricket_deliverycorrectionhistory WHERE id = %s RETURNING requested_at, now()",
            [first.delivery.pk, live(match, 0, 1).pk, first.history.pk],
        )
        stored, db_now = cursor.fetchone()
    assert stored == db_now


def test_unchanged_wickets_and_fielders_are_copied_to_the_new_revision(match, editor):
    new = delivery_correct(
        delivery=live(match, 0, 4), changes={"runs_batter": 1}, reason="a run", actor=editor
    ).delivery
    wicket = DeliveryWicket.objects.get(delivery=new)
    assert (wicket.player_out, wicket.kind.name) == (person("B Batter"), "caught")
    assert [f.participant for f in wicket.fielders.all()] == [person("Z Keeper")]


def test_a_wicket_can_be_altered_keeping_what_is_not_named(match, editor):
    new = delivery_correct(
        delivery=live(match, 0, 4),
        changes={},
        wicket_changes={1: {"fielders": [{"participant": person("Y Bowler")}]}},
        reason="Y Bowler took the catch",
        actor=editor,
    ).delivery
    wicket = DeliveryWicket.objects.get(delivery=new)
    assert (wicket.player_out, wicket.kind.name) == (person("B Batter"), "caught")
    assert [f.participant for f in wicket.fielders.all()] == [person("Y Bowler")]


def test_a_wicket_can_be_removed_and_another_added(match, editor):
    removed = delivery_correct(
        delivery=live(match, 0, 4),
        changes={},
        wicket_changes={1: None},
        reason="not out",
        actor=editor,
    ).delivery
    assert not DeliveryWicket.objects.filter(delivery=removed).exists()
    added = delivery_correct(
        delivery=live(match, 0, 5),
        changes={},
        wicket_changes=[{"kind": "bowled", "player_out": person("C Batter")}],
        reason="bowled, the six was a mistake",
        actor=editor,
    ).delivery
    wicket = DeliveryWicket.objects.get(delivery=added)
    assert (wicket.player_out, wicket.kind.name, wicket.kind_raw) == (
        person("C Batter"),
        "bowled",
        "bowled",
    )


def test_batter_bowler_and_non_striker_can_be_changed(match, editor):
    new = delivery_correct(
        delivery=live(match, 0, 0),
        changes={"batter": person("B Batter"), "non_striker": str(person("A Batter").pk)},
        reason="ends swapped",
        actor=editor,
    ).delivery
    assert (new.batter, new.non_striker) == (person("B Batter"), person("A Batter"))


def test_the_result_names_the_fixture_and_every_participant_old_and_new(match, editor):
    result = delivery_correct(
        delivery=live(match, 0, 4),
        changes={"bowler": person("Y Bowler")},
        wicket_changes={1: {"fielders": [{"participant": None, "substitute": True}]}},
        reason="Y bowled it; a substitute caught it",
        actor=editor,
    )
    names = {"B Batter", "A Batter", "X Bowler", "Y Bowler", "Z Keeper"}
    assert result.fixture_id == match
    assert result.participant_ids == {person(n).pk for n in names}


def test_making_a_ball_a_wide_relabels_the_later_balls_of_the_over(match, editor):
    result = delivery_correct(
        delivery=live(match, 0, 2),
        changes={"runs_batter": 0, "extra_wides": 5},
        reason="wide that ran to the rope",
        actor=editor,
    )
    labels = [live(match, 0, p).ball_label for p in range(7)]
    assert labels == ["0.1", "0.2", "0.2", "0.2", "0.2", "0.3", "0.4"]
    assert [d.position for d in result.relabelled] == [3, 4, 5, 6]
    assert all(d.revision == 2 for d in result.relabelled)
    relabel = DeliveryCorrectionHistory.objects.get(resulting_delivery=result.relabelled[0])
    assert relabel.reason.startswith("printed ball label follows the correction of 0.2")


def test_correcting_back_restores_the_live_content(match, editor):
    fixture_balls = Delivery.objects.current().filter(innings__fixture_id=match)
    before = {d.pk: content(delivery_snapshot(d)) for d in fixture_balls}
    by_key = {(v["over"], v["position"]): v for v in before.values()}
    delivery_correct(
        delivery=live(match, 0, 2),
        changes={"runs_batter": 0, "extra_wides": 1},
        wicket_changes=[{"kind": "stumped", "player_out": person("B Batter")}],
        reason="stumped off a wide",
        actor=editor,
    )
    delivery_correct(
        delivery=live(match, 0, 2),
        changes={"runs_batter": 4, "extra_wides": None},
        wicket_changes=[],
        reason="back: it was a four",
        actor=editor,
    )
    after = {
        (d.over_number, d.position): content(delivery_snapshot(d)) for d in fixture_balls.all()
    }
    assert after == by_key


def test_a_correction_is_audited_and_logged_on_the_fixture(match, editor):
    result = delivery_correct(
        delivery=live(match, 1, 0), changes={"runs_batter": 3}, reason="three", actor=editor
    )
    entry = AuditEntry.objects.get(action="cricket.delivery.correct")
    assert (entry.actor, entry.entity_key) == (editor, str(result.delivery.pk))
    item = TimelineItem.objects.get(event_type="cricket.delivery.corrected")
    assert item.payload["changed"] == ["runs_batter", "runs_total"]


# --- refusals ---------------------------------------------------------------------------------


def _nothing_changed(match):
    return (
        Delivery.objects.filter(innings__fixture_id=match).count(),
        DeliveryCorrectionHistory.objects.count(),
    )


@pytest.mark.parametrize(
    ("changes", "wickets", "message"),
    [
        ({"runs_total": 9}, None, "runs_total"),
        ({"runs_batter": -1}, None, "negative"),
        ({"runs_batter": "4"}, None, "not a whole number"),
        ({"extra_wides": 1.5}, None, "not a whole number"),
        ({"non_boundary": "yes"}, None, "not true or false"),
        ({"batter": "not-a-uuid"}, None, "not a participant id"),
        ({"bowler": "00000000-0000-0000-0000-000000000000"}, None, "no participant has id"),
        ({}, [{"kind": "levitated", "player_out": None}], "not a dismissal kind"),
        ({}, [{"kind": "bowled"}], "needs its kind and the player out"),
        ({}, {3: None}, "has 0 wicket"),
        ({}, [{"kind": "caught", "player_out": "x", "fielders": [{}]}], "not a participant id"),
        ({"runs_batter": 1}, None, "changes nothing"),
    ],
)
def test_a_bad_correction_is_refused_with_a_clear_message_and_changes_nothing(
    match, editor, changes, wickets, message
):
    before = _nothing_changed(match)
    with pytest.raises(ValidationError, match=message):
        delivery_correct(
            delivery=live(match, 0, 0),
            changes=changes,
            wicket_changes=wickets,
            reason="r",
            actor=editor,
        )
    assert _nothing_changed(match) == before


def test_an_unnamed_fielder_must_be_a_substitute(match, editor):
    with pytest.raises(ValidationError, match="only a substitute"):
        delivery_correct(
            delivery=live(match, 0, 4),
            changes={},
            wicket_changes={1: {"fielders": [{"participant": None}]}},
            reason="r",
            actor=editor,
        )


def test_a_team_cannot_bat(match, editor):
    team = Participant.objects.get(name="Home")
    with pytest.raises(ValidationError, match="not a player"):
        delivery_correct(
            delivery=live(match, 0, 0), changes={"batter": team}, reason="r", actor=editor
        )


def test_the_batter_and_non_striker_must_differ(match, editor):
    with pytest.raises(ValidationError, match="must differ"):
        delivery_correct(
            delivery=live(match, 0, 0),
            changes={"batter": person("B Batter")},
            reason="r",
            actor=editor,
        )


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_correction_needs_a_reason(match, editor, reason):
    with pytest.raises(ValidationError, match="needs a reason"):
        delivery_correct(
            delivery=live(match, 0, 0), changes={"runs_batter": 2}, reason=reason, actor=editor
        )


def test_correcting_a_superseded_revision_is_a_conflict(match, editor):
    old = live(match, 0, 0)
    delivery_correct(delivery=old, changes={"runs_batter": 2}, reason="two", actor=editor)
    before = _nothing_changed(match)
    with pytest.raises(CorrectionConflict, match="already corrected"):
        delivery_correct(delivery=old, changes={"runs_batter": 3}, reason="three", actor=editor)
    assert _nothing_changed(match) == before


# --- the database refuses what the service never does ---------------------------------------


def _sql(statement, params=()):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement, params)


@pytest.fixture
def corrected(match, editor):
    return delivery_correct(
        delivery=live(match, 0, 4), changes={"runs_batter": 1}, reason="a run", actor=editor
    )


def test_a_history_row_cannot_be_updated(corrected):
    with pytest.raises(DatabaseError, match="Cannot update or delete rows"):
        _sql(
            "UPDATE cricket_deliverycorrectionhistory SET reason = 'other' WHERE id = %s",
            [corrected.history.pk],
        )


def test_a_history_row_cannot_be_deleted(corrected):
    with pytest.raises(DatabaseError, match="Cannot update or delete rows"):
        _sql("DELETE FROM cricket_deliverycorrectionhistory WHERE id = %s", [corrected.history.pk])


@pytest.fixture
def reviewed(corrected):
    team = Participant.objects.get(name="Away")
    DeliveryReview.objects.create(delivery=corrected.delivery, by_team=team, decision="struck down")
    DeliveryReplacement.objects.create(
        delivery=corrected.delivery, kind="role", ordinal=1, player_in=person("Y Bowler")
    )
    return corrected


@pytest.mark.parametrize(
    "table",
    [
        "cricket_deliverywicket",
        "cricket_deliverywicketfielder",
        "cricket_deliveryreview",
        "cricket_deliveryreplacement",
    ],
)
def test_a_deliverys_wickets_fielders_reviews_replacements_cannot_change(reviewed, table):
    with pytest.raises(DatabaseError, match="Cannot update or delete rows"):
        _sql(f"UPDATE {table} SET id = id")  # noqa: S608 - a fixed table name
    with pytest.raises(DatabaseError, match="Cannot update or delete rows"):
        _sql(f"DELETE FROM {table}")  # noqa: S608


def test_published_delivery_content_cannot_be_updated_in_place(corrected):
    with pytest.raises(DatabaseError, match="Cannot update rows from cricket_delivery"):
        _sql("UPDATE cricket_delivery SET runs_batter = 6 WHERE id = %s", [corrected.delivery.pk])


def test_a_delivery_cannot_be_deleted(corrected):
    with pytest.raises(DatabaseError, match="Cannot delete rows from cricket_delivery"):
        _sql("DELETE FROM cricket_delivery WHERE id = %s", [corrected.previous.pk])


def test_a_superseded_revision_cannot_come_back_to_life(corrected):
    with pytest.raises(IntegrityError, match="only the live-to-superseded transition"):
        _sql(
            "UPDATE cricket_delivery SET is_current = true, superseded_at = NULL, "
            "superseded_by_id = NULL WHERE id = %s",
            [corrected.previous.pk],
        )


def test_the_forward_link_cannot_be_repointed(corrected, match):
    other = live(match, 0, 0)
    with pytest.raises(IntegrityError, match="only the live-to-superseded transition"):
        _sql(
            "UPDATE cricket_delivery SET superseded_by_id = %s WHERE id = %s",
            [other.pk, corrected.previous.pk],
        )


def test_the_supersede_time_cannot_be_moved(corrected):
    with pytest.raises(IntegrityError, match="only the live-to-superseded transition"):
        _sql(
            "UPDATE cricket_delivery SET superseded_at = now() - interval '1 day' WHERE id = %s",
            [corrected.previous.pk],
        )


def test_a_live_row_cannot_point_forward_at_a_row_that_does_not_supersede_it(match):
    first, second = live(match, 0, 0), live(match, 0, 1)
    with pytest.raises(IntegrityError, match="only the live-to-superseded transition"):
        _sql(
            "UPDATE cricket_delivery SET is_current = false, superseded_at = now(), "
            "superseded_by_id = %s WHERE id = %s",
            [second.pk, first.pk],
        )


def _insert_revision(old, **override):
    values = {
        "innings_id": old.innings_id,
        "over_number": old.over_number,
        "position": old.position,
        "sequence": old.sequence,
        "revision": old.revision + 1,
        "supersedes_id": old.pk,
        "source_event_id": old.source_event_id,
        "submission_id": old.submission_id,
        "submission_event_ordinal": old.submission_event_ordinal,
        "occurred_on": old.occurred_on,
        **override,
    }
    columns = [
        *values,
        "ball_label",
        "actual_delivery",
        "batter_id",
        "bowler_id",
        "non_striker_id",
        "runs_batter",
        "runs_extras",
        "runs_total",
        "non_boundary",
        "is_current",
        "created_at",
    ]
    params = [
        *values.values(),
        old.ball_label,
        "",
        old.batter_id,
        old.bowler_id,
        old.non_striker_id,
        0,
        0,
        0,
        False,
        True,
    ]
    placeholders = ", ".join(["%s"] * len(params))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE cricket_delivery SET is_current = false, superseded_at = now() WHERE id = %s",
            [old.pk],
        )
        cursor.execute(
            f"INSERT INTO cricket_delivery ({', '.join(columns)}) "  # noqa: S608
            f"VALUES ({placeholders}, now())",
            params,
        )


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"revision": 3}, "revisions increase by exactly one"),
        ({"over_number": 99}, "must keep its innings, over"),
        ({"submission_event_ordinal": 999}, "must keep its innings, over"),
        # The day is the partition key: a ball's revisions stay in its partition.
        ({"occurred_on": date(1999, 1, 1)}, "must keep its innings, over, day"),
        ({"supersedes_id": None}, "must name the revision it supersedes"),
    ],
)
def test_a_revision_must_continue_its_lineage(match, override, message):
    with pytest.raises(IntegrityError, match=message):
        _insert_revision(live(match, 0, 0), **override)


def test_a_revision_may_move_within_its_over_and_innings(match):
    # A revised file added or removed a ball before it: its place moves, its ball does not.
    _insert_revision(live(match, 0, 0), position=40, sequence=100_000)


def test_a_revision_continuing_its_lineage_is_accepted(match):
    old = live(match, 0, 0)
    _insert_revision(old)
    assert live(match, 0, 0).revision == 2


def test_the_review_fields_are_all_or_none(corrected, editor):
    history = corrected.history
    with pytest.raises(IntegrityError, match="delivery_correction_review_all_or_none"):
        _sql(
            "INSERT INTO cricket_deliverycorrectionhistory (previous_delivery_id, "
            "resulting_delivery_id, source_event_id, fixture_id, requested_by_label, "
            "requested_at, reason, previous_snapshot, resulting_snapshot, original_submission_id,"
            " review_decision, reviewed_at, review_reason) "
            "SELECT %s, %s, source_event_id, fixture_id, 'x', now(), 'r', '{}', '{}', "
            "original_submission_id, 'approved', now(), '' "
            "FROM cricket_deliverycorrectionhistory WHERE id = %s",
            [corrected.delivery.pk, corrected.previous.pk, history.pk],
        )


def test_a_fielder_row_of_a_superseded_revision_stays_as_it_was(corrected):
    old_fielders = DeliveryWicketFielder.objects.filter(wicket__delivery=corrected.previous)
    assert [f.participant.name for f in old_fielders] == ["Z Keeper"]


def test_the_review_and_replacements_are_copied_to_the_next_revision(reviewed, editor):
    new = delivery_correct(
        delivery=reviewed.delivery, changes={"runs_batter": 2}, reason="two", actor=editor
    ).delivery
    assert DeliveryReview.objects.get(delivery=new).decision == "struck down"
    assert DeliveryReplacement.objects.get(delivery=new).player_in == person("Y Bowler")
    assert DeliveryReview.objects.filter(delivery=reviewed.delivery).exists()
