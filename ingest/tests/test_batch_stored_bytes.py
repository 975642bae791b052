"""A batch keeps its files as stored objects: private bytes owned by the submitter, with an
expiry. Validation and publication read them through the storage API, and an item whose
bytes expired before publication fails with a message that says so."""

import hashlib

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import BatchItem, ItemOutcome, PublicationOutcome
from ingest.models import RetentionState
from ingest.storage import stored_object_read, stored_objects_expire
from ingest.tests.batch_factories import SMALL, BatchFactory, sample
from sports.models import Fixture

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _expire_first(batch) -> BatchItem:
    """Run the expiry task at the moment the first item's bytes fall due (the second item's
    were stored later, so they are kept)."""
    first = batch.items.select_related("stored_object").get(ordinal=1)
    assert stored_objects_expire(now=first.stored_object.expires_at) == 1
    first.refresh_from_db()
    first.stored_object.refresh_from_db()
    return first


def test_each_file_is_a_stored_object_owned_by_the_submitter(submitter):
    batch = BatchFactory(submitter=submitter)
    for item, match_id in zip(batch.items.order_by("ordinal"), SMALL, strict=True):
        name, raw = sample(match_id)
        stored = item.stored_object
        assert (stored.owner, stored.original_name, stored.media_type) == (
            submitter, name, "application/json",
        )  # fmt: skip
        assert item.sha256 == stored.sha256 == hashlib.sha256(raw).hexdigest()
        assert item.byte_size == stored.byte_size == len(raw)
        assert stored.expires_at > timezone.now()
        assert stored_object_read(stored) == raw


def test_the_items_table_holds_no_bytes():
    with connection.cursor() as cursor:
        columns = [c.name for c in connection.introspection.get_table_description(
            cursor, BatchItem._meta.db_table
        )]  # fmt: skip
    assert "raw" not in columns
    assert "stored_object_id" in columns


def test_the_database_refuses_an_item_whose_checksum_is_not_its_objects(submitter):
    first, second = BatchFactory(submitter=submitter).items.order_by("ordinal")
    with pytest.raises(DatabaseError, match="not those of stored object"), transaction.atomic():
        BatchItem.objects.filter(pk=first.pk).update(stored_object=second.stored_object)
    with pytest.raises(DatabaseError, match="not those of stored object"), transaction.atomic():
        BatchItem.objects.filter(pk=first.pk).update(sha256="0" * 64)
    first.refresh_from_db()
    assert first.sha256 == first.stored_object.sha256


def test_validation_reads_the_stored_bytes_and_an_expired_file_is_invalid(submitter):
    batch = BatchFactory(submitter=submitter)
    expired = _expire_first(batch)
    batch = services.batch_validate(batch=batch)
    assert batch.items.get(ordinal=2).outcome == ItemOutcome.VALID
    expired.refresh_from_db()
    assert expired.outcome == ItemOutcome.INVALID
    (problem,) = expired.problems
    assert problem["rule"] == "bytes-kept"
    assert f"item 1 ({SMALL[0]}.json)" in problem["message"]
    assert "expired" in problem["message"]


def test_bytes_expired_before_publication_fail_that_item_naming_it_and_the_expiry(
    submitter, reviewer
):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="checked")
    late = _expire_first(batch)
    stored = late.stored_object
    assert stored.retention_state == RetentionState.EXPIRED
    batch = services.batch_publish(batch=batch, worker="w1")
    late.refresh_from_db()
    assert late.publication == PublicationOutcome.FAILED
    assert f"item 1 ({SMALL[0]}.json)" in late.publication_error
    assert f"expired at {stored.expires_at:%Y-%m-%d %H:%M:%S}" in late.publication_error
    assert late.fixture_id is None
    # The other item published; the expired one left nothing behind.
    assert batch.items.get(ordinal=2).publication == PublicationOutcome.PUBLISHED
    assert Fixture.objects.count() == 1
    # The metadata outlives the bytes: the item still names its checksum.
    assert late.sha256 == stored.sha256
