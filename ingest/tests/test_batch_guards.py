"""The database holds a batch's state and its items' verdicts to their transition services:
run as the application role, a direct write that skips a step or the record is refused."""

import pytest
from django.db import DatabaseError, transaction

from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import Batch, BatchItem, BatchStateTransition, ItemOutcome
from ingest.tests.batch_factories import BatchFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _refused(match: str, write) -> None:
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        write()


def test_a_batch_state_cannot_skip_to_approved(submitter):
    batch = BatchFactory(submitter=submitter)
    _refused("cannot go from received to approved", lambda: _set_state(batch, "approved"))
    assert Batch.objects.get(pk=batch.pk).state == "received"


def test_a_legal_step_without_its_recorded_transition_is_refused(submitter):
    batch = BatchFactory(submitter=submitter)
    _refused("not recorded as a transition", lambda: _set_state(batch, "validating"))


def test_a_published_batch_cannot_go_back(submitter, reviewer):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    services.batch_review(batch=batch, reviewer=reviewer, approve=False, reason="not ours")
    _refused(
        "cannot go from rejected to awaiting_review", lambda: _set_state(batch, "awaiting_review")
    )


def test_a_batch_starts_received(submitter):
    batch = BatchFactory(submitter=submitter)
    _refused(
        "starts received",
        lambda: Batch.objects.create(
            submitter=submitter, idempotency_key="other", sha256=batch.sha256, state="approved"
        ),
    )


def test_an_item_outcome_is_only_its_latest_validation_result(submitter):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    item = batch.items.first()
    assert item.outcome == ItemOutcome.VALID
    _refused(
        "changes only while its batch validates",
        lambda: BatchItem.objects.filter(pk=item.pk).update(outcome=ItemOutcome.INVALID),
    )
    _refused(
        "changes only while its batch validates",
        lambda: BatchItem.objects.filter(pk=item.pk).update(problems=[{"rule": "forged"}]),
    )


def test_validation_still_records_each_items_verdict(submitter):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    assert batch.state == "awaiting_review"
    assert BatchStateTransition.objects.filter(batch=batch).count() == 3
    for item in batch.items.all():
        assert item.validation_results.latest("id").outcome == item.outcome


def _set_state(batch: Batch, state: str) -> None:
    Batch.objects.filter(pk=batch.pk).update(state=state)
