import pytest
from django.db import IntegrityError, ProgrammingError, transaction
from django.utils import timezone

from cricket.models import Delivery, DismissalKind
from cricket.tests.factories import DeliveryFactory, seed_dismissal_kinds


@pytest.fixture(autouse=True)
def _dismissal_kinds(request):
    if "db" in request.fixturenames or request.node.get_closest_marker("django_db"):
        request.getfixturevalue("db")
        seed_dismissal_kinds()


pytestmark = pytest.mark.django_db

EXTRAS = ["extra_wides", "extra_noballs", "extra_byes", "extra_legbyes", "extra_penalty"]


@pytest.mark.parametrize("column", EXTRAS)
def test_a_negative_extra_is_refused_by_its_named_check(column):
    with (
        pytest.raises(IntegrityError, match=f"delivery_{column}_nonnegative_ck"),
        transaction.atomic(),
    ):
        DeliveryFactory(**{column: -1})


def test_an_explicit_zero_extra_is_stored_as_zero_not_null():
    delivery = DeliveryFactory(extra_wides=0)
    delivery.refresh_from_db()
    assert delivery.extra_wides == 0
    assert not delivery.is_wide


def test_two_live_deliveries_at_one_natural_key_are_refused():
    first = DeliveryFactory(over_number=5, position=3)
    # ``delivery_natural_key_live``; the table is partitioned, so PostgreSQL names the
    # partition's index and the key (which holds the partition key, ``occurred_on``).
    duplicate = r'\(innings_id, over_number, "position", occurred_on\).* already exists'
    with pytest.raises(IntegrityError, match=duplicate), transaction.atomic():
        DeliveryFactory(innings=first.innings, over_number=5, position=3)


def test_a_superseded_revision_may_stand_behind_the_live_one_at_its_natural_key():
    first = DeliveryFactory(over_number=5, position=3, sequence=7)
    Delivery.objects.filter(pk=first.pk).update(is_current=False, superseded_at=timezone.now())
    second = DeliveryFactory(
        innings=first.innings,
        over_number=5,
        position=3,
        sequence=7,
        revision=2,
        source_event_id=first.source_event_id,
        submission=first.submission,
        submission_event_ordinal=first.submission_event_ordinal,
        supersedes=first,
    )
    Delivery.objects.filter(pk=first.pk).update(superseded_by=second)
    assert list(Delivery.objects.filter(innings=first.innings).current()) == [second]


def test_a_row_cannot_be_stored_superseded_without_saying_when():
    with (
        pytest.raises(IntegrityError, match="delivery_superseded_all_or_none"),
        transaction.atomic(),
    ):
        DeliveryFactory(is_current=False)


def test_a_row_cannot_be_marked_superseded_without_saying_when():
    delivery = DeliveryFactory()
    with (
        pytest.raises(IntegrityError, match="only the live-to-superseded transition"),
        transaction.atomic(),
    ):
        Delivery.objects.filter(pk=delivery.pk).update(is_current=False)


def test_runs_total_must_be_batter_runs_plus_extras():
    with pytest.raises(IntegrityError, match="delivery_runs_total_adds_up"), transaction.atomic():
        DeliveryFactory(runs_batter=4, runs_extras=1, runs_total=4)


def test_the_migration_seeds_fourteen_dismissal_kinds_and_a_run_out_is_not_the_bowlers():
    assert DismissalKind.objects.count() == 14
    assert DismissalKind.objects.get(name="run out").credits_bowler is False
    assert DismissalKind.objects.get(name="caught and bowled").credits_bowler is True


def test_a_stored_deliverys_content_cannot_be_changed_in_place():
    delivery = DeliveryFactory(runs_batter=1, runs_total=1)
    refused = pytest.raises(ProgrammingError, match="Cannot update rows from cricket_delivery")
    with refused, transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).update(runs_batter=4, runs_total=4)


def test_a_delivery_is_never_deleted():
    delivery = DeliveryFactory()
    refused = pytest.raises(ProgrammingError, match="Cannot delete rows from cricket_delivery")
    with refused, transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).delete()
