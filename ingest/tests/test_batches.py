"""Staged batches through their services: submit, validate, review, publish."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import DatabaseError, transaction
from django.utils import timezone

from accounts.models import AuditEntry
from cricket.models import Delivery
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import (
    BatchCheckpoint,
    BatchItem,
    BatchReviewDecision,
    BatchState,
    BatchStateTransition,
    BatchValidationResult,
    ItemOperation,
    ItemOutcome,
    PublicationOutcome,
)
from ingest.cricsheet.importer import Importer
from ingest.storage import stored_object_read
from ingest.tests.batch_factories import SMALL, BatchFactory, sample
from sports.models import EntityType, ExternalIdMap, Fixture, Submission, SubmissionKind

# The personas hold grants on every competition: these tests are not about permissions.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _fixture_of(match_id):
    internal = ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type=EntityType.FIXTURE, external_id=match_id
    ).internal_id
    return Fixture.objects.get(pk=internal)


def _validated(submitter):
    batch = BatchFactory(submitter=submitter)
    return services.batch_validate(batch=batch)


def test_submit_stages_items_in_payload_order_and_publishes_nothing(submitter):
    batch = BatchFactory(submitter=submitter)
    assert batch.state == BatchState.RECEIVED
    assert list(batch.items.values_list("ordinal", "source_identity")) == [
        (1, SMALL[0]),
        (2, SMALL[1]),
    ]
    assert stored_object_read(batch.items.get(ordinal=1).stored_object) == sample(SMALL[0])[1]
    assert list(batch.transitions.values_list("from_state", "to_state")) == [("", "received")]
    assert AuditEntry.objects.filter(action="ingest.batch_submit", actor=submitter).count() == 1
    assert not ExternalIdMap.objects.filter(entity_type=EntityType.FIXTURE).exists()


def test_the_same_key_and_files_return_the_same_batch(submitter):
    files = [sample(SMALL[0])]
    first, created = services.batch_submit(submitter=submitter, files=files, idempotency_key="k")
    again, created_again = services.batch_submit(
        submitter=submitter, files=files, idempotency_key="k"
    )
    assert (created, created_again) == (True, False)
    assert again.pk == first.pk
    assert BatchItem.objects.count() == 1


def test_the_same_key_over_other_files_is_refused(submitter):
    services.batch_submit(submitter=submitter, files=[sample(SMALL[0])], idempotency_key="k")
    with pytest.raises(ValidationError, match="already used"):
        services.batch_submit(submitter=submitter, files=[sample(SMALL[1])], idempotency_key="k")
    assert BatchItem.objects.count() == 1


def test_a_viewer_cannot_submit(viewer):
    with pytest.raises(PermissionDenied):
        BatchFactory(submitter=viewer)


def test_a_file_that_is_not_json_is_refused_with_its_name(submitter):
    with pytest.raises(ValidationError, match=r"notes\.txt"):
        services.batch_submit(submitter=submitter, files=[("notes.txt", b"x")], idempotency_key="k")


def test_valid_files_end_awaiting_review_with_evidence(submitter):
    batch = _validated(submitter)
    assert batch.state == BatchState.AWAITING_REVIEW
    item = batch.items.get(ordinal=1)
    assert item.outcome == ItemOutcome.VALID
    people = item.resolution["people"]
    assert people and {p["resolution"] for p in people} == {"new"}
    assert item.resolution["fixture"] == {"resolution": "new"}
    assert BatchValidationResult.objects.filter(batch=batch).count() == 2
    assert BatchCheckpoint.objects.get(batch=batch, phase="validate").ordinal == 2
    assert not Fixture.objects.exists()


def test_a_broken_file_makes_the_batch_invalid_naming_the_rule(submitter):
    batch = BatchFactory(submitter=submitter, files=[sample(SMALL[0]), ("999.json", b'{"meta": ')])
    batch = services.batch_validate(batch=batch)
    assert batch.state == BatchState.INVALID
    broken = batch.items.get(ordinal=2)
    assert broken.outcome == ItemOutcome.INVALID
    assert broken.problems[0]["rule"] == "json"


def test_a_reason_is_required(submitter, reviewer):
    batch = _validated(submitter)
    with pytest.raises(ValidationError, match="reason"):
        services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="  ")
    assert not BatchReviewDecision.objects.exists()


def test_a_submitter_cannot_review_their_own_batch(editor):
    batch = _validated(editor)
    with pytest.raises(PermissionDenied, match="own batch"):
        services.batch_review(batch=batch, reviewer=editor, approve=True, reason="fine")
    batch.refresh_from_db()
    assert batch.state == BatchState.AWAITING_REVIEW


@pytest.mark.parametrize("persona", ["viewer", "submitter", "outsider"])
def test_roles_without_review_cannot_review(persona, request, editor):
    batch = _validated(editor)
    with pytest.raises(PermissionDenied):
        services.batch_review(
            batch=batch, reviewer=request.getfixturevalue(persona), approve=True, reason="ok"
        )


def test_approval_publishes_each_fixture_accepted_in_the_submitters_name(submitter, reviewer):
    batch = _validated(submitter)
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="checked")
    batch = services.batch_publish(batch=batch, worker="w1")
    assert batch.state == BatchState.PUBLISHED
    for match_id in SMALL:
        fixture = _fixture_of(match_id)
        assert Fixture.objects.public().filter(pk=fixture.pk).exists()
        submission = fixture.first_seen_in
        assert submission.kind == SubmissionKind.BATCH
        assert submission.submitted_by == submitter
        assert submission.note == f"batch {batch.pk}"
        item = batch.items.get(source_identity=match_id)
        assert (item.fixture_id, item.publication) == (fixture.pk, PublicationOutcome.PUBLISHED)
    assert list(batch.transitions.values_list("to_state", flat=True)) == [
        "received",
        "validating",
        "awaiting_review",
        "approved",
        "publishing",
        "published",
    ]


def test_rejection_publishes_nothing_and_keeps_the_record(submitter, reviewer):
    batch = _validated(submitter)
    batch = services.batch_review(batch=batch, reviewer=reviewer, approve=False, reason="wrong")
    assert batch.state == BatchState.REJECTED
    with pytest.raises(ValidationError, match="only an approved batch"):
        services.batch_publish(batch=batch, worker="w1")
    assert not Fixture.objects.exists()
    assert not Submission.objects.exists()
    assert batch.items.count() == 2
    assert batch.review_decisions.get().reason == "wrong"


def test_a_decided_batch_cannot_be_decided_again(submitter, reviewer, editor):
    batch = _validated(submitter)
    services.batch_review(batch=batch, reviewer=reviewer, approve=False, reason="no")
    with pytest.raises(ValidationError, match="awaiting review"):
        services.batch_review(batch=batch, reviewer=editor, approve=True, reason="yes")


def test_review_records_and_transitions_are_append_only(submitter, reviewer):
    batch = _validated(submitter)
    services.batch_review(batch=batch, reviewer=reviewer, approve=False, reason="no")
    for queryset in (
        BatchReviewDecision.objects.all(),
        BatchStateTransition.objects.all(),
        BatchValidationResult.objects.all(),
    ):
        with pytest.raises(DatabaseError, match="pgtrigger"), transaction.atomic():
            queryset.update(created_at=timezone.now())
        with pytest.raises(DatabaseError, match="pgtrigger"), transaction.atomic():
            queryset.delete()


def test_a_worker_killed_mid_publication_resumes_publishing_each_fixture_once(
    submitter, reviewer, monkeypatch
):
    files = [sample(m) for m in (*SMALL, "64924")]
    batch = BatchFactory(submitter=submitter, files=files)
    services.batch_validate(batch=batch)
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="ok")
    real = Importer.import_file
    calls = []

    def dies_on_the_second(self, raw, *, filename):
        calls.append(filename)
        if len(calls) == 2:
            raise SystemExit("worker killed")
        return real(self, raw, filename=filename)

    monkeypatch.setattr(Importer, "import_file", dies_on_the_second)
    with pytest.raises(SystemExit):
        services.batch_publish(batch=batch, worker="w1")
    monkeypatch.setattr(Importer, "import_file", real)
    checkpoint = BatchCheckpoint.objects.get(batch=batch, phase="publish")
    assert checkpoint.ordinal == 1
    assert Submission.objects.count() == 1
    # Another worker waits for the dead one's lease; once it expires, it resumes.
    with pytest.raises(services.BatchLeaseHeld):
        services.batch_publish(batch=batch, worker="w2")
    BatchCheckpoint.objects.filter(pk=checkpoint.pk).update(lease_expires_at="2000-01-01T00:00Z")
    batch = services.batch_publish(batch=batch, worker="w2")
    assert batch.state == BatchState.PUBLISHED
    assert Submission.objects.filter(kind=SubmissionKind.BATCH).count() == 3
    for name, _ in files:
        match_id = name.removesuffix(".json")
        assert (
            ExternalIdMap.objects.filter(
                entity_type=EntityType.FIXTURE, external_id=match_id
            ).count()
            == 1
        )
    assert set(batch.items.values_list("publication", flat=True)) == {"published"}
    assert BatchCheckpoint.objects.get(pk=checkpoint.pk).attempts == 2


def test_publishing_a_published_batch_again_writes_nothing(submitter, reviewer):
    batch = _validated(submitter)
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="ok")
    services.batch_publish(batch=batch, worker="w1")
    services.batch_publish(batch=batch, worker="w1")
    assert Submission.objects.count() == 2


def test_a_match_already_imported_from_other_bytes_is_a_correction_of_it(submitter, reviewer):
    name, raw = sample(SMALL[0])
    Importer().import_file(raw, filename=name)
    changed = raw.replace(b'"revision": 1', b'"revision": 2', 1)
    batch = BatchFactory(submitter=submitter, files=[(name, changed)])
    batch = services.batch_validate(batch=batch)
    item = batch.items.get()
    assert item.operation == ItemOperation.CORRECT
    assert item.corrects_source_identity == SMALL[0]
    assert item.correction_target == _fixture_of(SMALL[0])
    assert item.resolution["fixture"]["changes"] == 0  # a new revision number, the same balls
    deliveries = Delivery.objects.count()
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="ok")
    services.batch_publish(batch=batch, worker="w1")
    item.refresh_from_db()
    # Recorded (its submission names the batch), but no ball differs: nothing is corrected.
    assert (item.publication, item.fixture) == ("unchanged", _fixture_of(SMALL[0]))
    assert not item.published_deliveries.exists()
    assert Delivery.objects.count() == deliveries
    assert Submission.objects.filter(kind=SubmissionKind.BATCH, note=f"batch {batch.pk}").exists()


def test_a_match_already_imported_from_the_same_bytes_publishes_as_unchanged(submitter, reviewer):
    name, raw = sample(SMALL[0])
    Importer().import_file(raw, filename=name)
    batch = BatchFactory(submitter=submitter, files=[(name, raw)])
    services.batch_validate(batch=batch)
    services.batch_review(batch=batch, reviewer=reviewer, approve=True, reason="ok")
    services.batch_publish(batch=batch, worker="w1")
    item = batch.items.get()
    assert (item.publication, item.fixture) == ("unchanged", _fixture_of(SMALL[0]))
    assert Submission.objects.count() == 1


def test_a_worker_killed_mid_validation_leaves_a_lease_the_next_one_resumes_after(
    submitter, monkeypatch
):
    files = [sample(m) for m in (*SMALL, "64924")]
    batch = BatchFactory(submitter=submitter, files=files)
    real = services._validate_item
    calls = []

    def dies_on_the_second(item, *, kinds):
        calls.append(item.ordinal)
        if len(calls) == 2:
            raise SystemExit("worker killed")
        return real(item, kinds=kinds)

    monkeypatch.setattr(services, "_validate_item", dies_on_the_second)
    with pytest.raises(SystemExit):
        services.batch_validate(batch=batch, worker="w1")
    monkeypatch.setattr(services, "_validate_item", real)
    checkpoint = BatchCheckpoint.objects.get(batch=batch, phase="validate")
    assert (checkpoint.ordinal, checkpoint.lease_owner) == (1, "w1")
    with pytest.raises(services.BatchLeaseHeld):
        services.batch_validate(batch=batch, worker="w2")
    BatchCheckpoint.objects.filter(pk=checkpoint.pk).update(lease_expires_at="2000-01-01T00:00Z")
    batch = services.batch_validate(batch=batch, worker="w2")
    assert batch.state == BatchState.AWAITING_REVIEW
    assert set(batch.items.values_list("outcome", flat=True)) == {"valid"}
    checkpoint.refresh_from_db()
    assert (checkpoint.ordinal, checkpoint.attempts, checkpoint.lease_owner) == (3, 2, "")


def test_a_batch_item_names_an_unknown_dismissal_kind_with_its_contract_problems(submitter):
    import json

    from cricket.tests.factories import cricsheet_match

    doc = cricsheet_match()
    doc["innings"][0]["overs"][0]["deliveries"][4]["wickets"][0]["kind"] = "bitten by a dog"
    doc["innings"][0]["overs"][0]["deliveries"][1]["extras"]["wides"] = -1
    batch = BatchFactory(submitter=submitter, files=[("900001.json", json.dumps(doc).encode())])
    item = services.batch_validate(batch=batch).items.get()
    assert {problem["rule"] for problem in item.problems} >= {"dismissal-kind", "nonnegative"}
