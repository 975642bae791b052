"""cricket_delivery's references are checked once per statement (a transition-table
trigger) instead of by per-row foreign keys; these tests hold it to the same guarantees."""

import uuid

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction
from django.utils import timezone

from cricket.models import Delivery, Innings
from cricket.tests.factories import DeliveryFactory, seed_dismissal_kinds
from sports.models import Participant, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _dismissal_kinds(db):
    seed_dismissal_kinds()


def _refused(what):
    return pytest.raises(IntegrityError, match=f"cricket_delivery references {what}")


@pytest.mark.parametrize("column", ["batter", "bowler", "non_striker"])
def test_a_delivery_naming_a_participant_that_does_not_exist_is_refused(column):
    with _refused("participant"), transaction.atomic():
        DeliveryFactory(**{f"{column}_id": uuid.uuid4()})


def test_a_delivery_in_an_innings_that_does_not_exist_is_refused():
    with _refused("innings"), transaction.atomic():
        DeliveryFactory(innings_id=uuid.uuid4())


def test_a_delivery_from_a_submission_that_does_not_exist_is_refused():
    with _refused("submission"), transaction.atomic():
        DeliveryFactory(submission_id=uuid.uuid4())


def test_a_revision_pointing_at_a_delivery_that_does_not_exist_is_refused():
    with _refused("delivery"), transaction.atomic():
        DeliveryFactory(revision=2, supersedes_id=987_654_321)


def test_marking_a_row_superseded_by_a_delivery_that_does_not_exist_is_refused():
    delivery = DeliveryFactory()
    with _refused("delivery"), transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).update(
            is_current=False, superseded_at=timezone.now(), superseded_by_id=987_654_321
        )


def test_one_bad_row_in_a_multi_row_statement_refuses_the_whole_statement():
    good = DeliveryFactory()
    rows = [
        Delivery(
            **{
                f.attname: getattr(good, f.attname)
                for f in Delivery._meta.concrete_fields
                if f.attname != "id"
            }
        )
        for _ in range(3)
    ]
    for i, row in enumerate(rows):
        row.is_current, row.superseded_at = False, timezone.now()
        row.source_event_id, row.sequence = uuid.uuid4(), 100 + i
    rows[2].bowler_id = uuid.uuid4()
    before = Delivery.objects.count()
    with _refused("participant"), transaction.atomic():
        Delivery.objects.bulk_create(rows)
    assert Delivery.objects.count() == before


def test_a_participant_named_by_a_delivery_cannot_be_deleted():
    delivery = DeliveryFactory()
    with (
        pytest.raises(IntegrityError, match="is named by deliveries"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM sports_participant WHERE id = %s", [delivery.non_striker_id])
    assert Participant.objects.filter(pk=delivery.non_striker_id).exists()


def test_a_submission_named_by_a_delivery_cannot_be_deleted():
    delivery = DeliveryFactory()
    with (
        pytest.raises(IntegrityError, match="is named by deliveries"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM sports_submission WHERE id = %s", [delivery.submission_id])
    assert Submission.objects.filter(pk=delivery.submission_id).exists()


def test_an_innings_is_never_deleted_even_below_the_orm():
    delivery = DeliveryFactory()
    with (
        pytest.raises(ProgrammingError, match="Cannot delete rows from cricket_innings"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM cricket_innings WHERE id = %s", [delivery.innings_id])
    assert Innings.objects.filter(pk=delivery.innings_id).exists()


def test_a_participant_no_delivery_names_can_still_be_deleted():
    DeliveryFactory()
    loner = Participant.objects.create(name="Nobody", code="nobody-x", type="person")
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM sports_participant WHERE id = %s", [loner.pk])
    assert not Participant.objects.filter(pk=loner.pk).exists()
