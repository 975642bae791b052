"""Writes on staged batches: submit, validate, review, publish, and onboarding decisions.

Every function is keyword-only, names who acts, and is the one path the admin, the API, the
Celery tasks and the commands use. Nothing a batch carries is public before approval:
publication writes each item through the Cricsheet importer with the submitter as actor,
so the submissions it creates name the submitter and are accepted at that moment.

Phases that walk the items (validation, publication) commit one item at a time together
with their checkpoint, so a worker that dies mid-phase resumes after the last committed
item and never writes one twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from accounts.models import User
from accounts.services import audit_record
from cricket.corrections import CorrectionReview
from cricket.cricsheet_match import PathStep, competition_path
from cricket.models import DismissalKind
from cricket.services import SOURCE
from cricket.source_revisions import SOURCE_REVISION, source_correction_diff
from ingest.batches.limits import batch_files_collect
from ingest.batches.models import (
    BATCH_TRANSITIONS,
    Batch,
    BatchCheckpoint,
    BatchItem,
    BatchReviewDecision,
    BatchState,
    BatchStateTransition,
    BatchValidationResult,
    CheckpointPhase,
    ItemOperation,
    ItemOutcome,
    OnboardingDecision,
    OnboardingReason,
    PublicationOutcome,
    ReviewDecision,
)
from ingest.batches.onboarding import Gaps, answered, gaps_of, stand_ins
from ingest.batches.onboarding_decisions import (
    onboarding_task_resolve as onboarding_task_resolve,  # callers answer tasks from here
)
from ingest.batches.people import people_resolve
from ingest.batches.permissions import (
    may_submit_batches,
    review_refusal,
    submit_batches_refusal,
    submit_refusal,
)
from ingest.batches.phases import (
    BatchLeaseHeld as BatchLeaseHeld,  # raised by the phases: callers catch it from here
)
from ingest.batches.phases import (
    ItemProgress,
    local_worker,
    take_lease,
)
from ingest.cricsheet.importer import Importer, Outcome, match_id_of
from ingest.cricsheet.validate import CricsheetRejected, load
from ingest.storage import StoredObjectExpired, stored_object_create, stored_object_read
from omnium.progress import ProgressCallback
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    SubmissionKind,
)

CRICKET = "cricket"

# Which state may follow which; anything else is a defect in the caller (and the database
# refuses it: trigger batch_state_by_transition).
TRANSITIONS = BATCH_TRANSITIONS


def package_sha256(files: Sequence[tuple[str, bytes]]) -> str:
    """The batch's identity: SHA-256 of "<name>\\t<sha256 of the file>" lines in order."""
    lines = "".join(f"{name}\t{hashlib.sha256(raw).hexdigest()}\n" for name, raw in files)
    return hashlib.sha256(lines.encode()).hexdigest()


def _transition(batch: Batch, to: str, *, actor: User | None = None, reason: str = "") -> None:
    if to not in TRANSITIONS.get(batch.state if batch.pk and batch.state else "", set()):
        raise ValidationError(f"batch {batch.pk}: cannot go from {batch.state} to {to}")
    BatchStateTransition.objects.create(
        batch=batch, from_state=batch.state, to_state=to, actor=actor, reason=reason
    )
    batch.state = to
    batch.save(update_fields=["state", "updated_at"])


def _locked(batch: Batch) -> Batch:
    return Batch.objects.select_for_update().get(pk=batch.pk)


# --- submit ---------------------------------------------------------------------------------


@transaction.atomic
def batch_submit(
    *,
    submitter: User,
    files: Sequence[tuple[str, bytes]],
    idempotency_key: str,
    competition: Competition | None = None,
) -> tuple[Batch, bool]:
    """Stage ``files`` (name, bytes) as one batch; returns (batch, created).

    The same key from the same submitter returns the batch it first created (with
    ``created`` False), provided the files are the same; the same key over other files is
    refused. Nothing is validated or made public here.

    The batch's target competition is ``competition`` (every file must belong to it: its
    event maps into that subtree) or, when None, the nearest existing node holding all the
    files' matches (None when there is none). The submitter's grants must cover the target
    (``ingest.batches.permissions``)."""
    if not may_submit_batches(submitter):
        raise PermissionDenied(submit_batches_refusal(submitter))
    key = (idempotency_key or "").strip()
    if not key or len(key) > 200:
        raise ValidationError("an idempotency key of 1 to 200 characters is required")
    files = batch_files_collect(files)
    if not files:
        raise ValidationError("a batch needs at least one file")
    sha = package_sha256(files)
    existing = Batch.objects.filter(submitter=submitter, idempotency_key=key).first()
    if existing is not None:
        return _same_package(existing, sha), False
    problems: list[str] = []
    seen: dict[str, str] = {}
    for name, raw in files:
        if not name.lower().endswith(".json"):
            problems.append(f"{name}: not a .json match file")
        if len(raw) > settings.BATCH_MAX_FILE_BYTES:
            problems.append(
                f"{name}: {len(raw)} bytes; the limit is "
                f"BATCH_MAX_FILE_BYTES = {settings.BATCH_MAX_FILE_BYTES}"
            )
        match_id = match_id_of(name)
        if match_id in seen:
            problems.append(f"{name}: match {match_id} is also in {seen[match_id]}")
        seen.setdefault(match_id, name)
    if problems:
        raise ValidationError(problems)
    # A named competition is checked before its files; a derived one once it is known.
    refusal = submit_refusal(submitter, competition) if competition is not None else ""
    if refusal:
        raise PermissionDenied(refusal)
    if competition is None:
        competition = batch_target(files, competition=None)
        refusal = submit_refusal(submitter, competition)
        if refusal:
            raise PermissionDenied(refusal)
    else:
        batch_target(files, competition=competition)
    try:
        with transaction.atomic():
            batch = Batch.objects.create(
                submitter=submitter, competition=competition, idempotency_key=key, sha256=sha
            )
    except IntegrityError:  # the same key arrived concurrently: that one won
        existing = Batch.objects.get(submitter=submitter, idempotency_key=key)
        return _same_package(existing, sha), False
    items = []
    for ordinal, (name, raw) in enumerate(files, start=1):
        # The bytes are kept privately, owned by the submitter, until their expiry; the item
        # names the object and repeats its checksum (the database holds the two equal).
        stored = stored_object_create(
            owner=submitter,
            raw=raw,
            original_name=name.rsplit(":", 1)[-1],
            media_type="application/json",
            actor=submitter,
        )
        items.append(
            BatchItem(
                batch=batch,
                ordinal=ordinal,
                source_identity=match_id_of(name)[:64],
                filename=name[-512:],
                stored_object=stored,
                sha256=stored.sha256,
                byte_size=stored.byte_size,
            )
        )
    BatchItem.objects.bulk_create(items)
    batch.state = ""
    _transition(batch, BatchState.RECEIVED, actor=submitter, reason=f"{len(files)} file(s)")
    _supersede_earlier(batch, matches={item.source_identity for item in items})
    audit_record(
        actor=submitter,
        action="ingest.batch_submit",
        entity=batch,
        key=batch.pk,
        detail={"files": len(files), "sha256": sha, "idempotency_key": key},
    )
    return batch, True


def _supersede_earlier(batch: Batch, *, matches: set[str]) -> list[Batch]:
    """Mark the submitter's earlier batches for the same files as superseded by ``batch``:
    each one not already superseded whose every file (by match id) is in ``batch``. The
    earlier batch keeps everything it holds; it can no longer be approved (its reviewer
    reviews the later one). Returns the batches marked, each with an audit row."""
    outside = BatchItem.objects.filter(batch=OuterRef("pk")).exclude(source_identity__in=matches)
    replaced = list(
        Batch.objects.select_for_update()
        .filter(
            submitter_id=batch.submitter_id,
            superseded_by__isnull=True,
            pk__in=BatchItem.objects.filter(source_identity__in=matches).values("batch_id"),
        )
        .exclude(pk=batch.pk)
        .exclude(Exists(outside))
        .order_by("created_at", "pk")
    )
    for earlier in replaced:
        earlier.superseded_by = batch
        earlier.save(update_fields=["superseded_by", "updated_at"])
        audit_record(
            actor=batch.submitter,
            action="ingest.batch_superseded",
            entity=earlier,
            key=earlier.pk,
            detail={"superseded_by": str(batch.pk), "files": len(matches)},
        )
    return replaced


def _paths(files: Sequence[tuple[str, bytes]]) -> dict[str, list[PathStep] | None]:
    """Where each file's match will go (None for a file too broken to say; validation
    reports it)."""
    paths: dict[str, list[PathStep] | None] = {}
    for name, raw in files:
        try:
            paths[name] = competition_path(json.loads(raw)["info"])
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            paths[name] = None
    return paths


def batch_target(
    files: Sequence[tuple[str, bytes]], *, competition: Competition | None
) -> Competition | None:
    """The competition a batch of ``files`` is for. A named ``competition`` must hold every
    file's match (a ValidationError names each file that lies outside); without one, the
    nearest existing node holding them all, or None when they share none (different trees,
    or an event not imported yet)."""
    paths = _paths(files)
    if competition is not None:
        # Cricket's node codes are what the import finds nodes by: a match belongs to the
        # competition when the competition's code is on the match's path.
        cricket = competition.sport is not None and competition.sport.code == CRICKET
        outside = [
            f"{name}: its match belongs to {' > '.join(step.name for step in path)}, outside "
            f"the batch's competition {competition.name} ({competition.code})"
            for name, path in paths.items()
            if path is not None and not (cricket and competition.code in {s.code for s in path})
        ]
        if outside:
            raise ValidationError(outside)
        return competition
    known = [path for path in paths.values() if path is not None]
    if not known:
        return None
    codes = {step.code for path in known for step in path}
    nodes = {
        node.code: node for node in Competition.objects.filter(sport__code=CRICKET, code__in=codes)
    }
    deepest = []
    for path in known:
        found = [nodes[step.code] for step in path if step.code in nodes]
        if not found:
            return None
        deepest.append(found[-1])
    if len({node.tree_id for node in deepest}) > 1:
        return None
    return (
        Competition.objects.filter(
            tree_id=deepest[0].tree_id,
            lft__lte=min(node.lft for node in deepest),
            rght__gte=max(node.rght for node in deepest),
        )
        .order_by("-level")
        .first()
    )


def _same_package(batch: Batch, sha: str) -> Batch:
    if batch.sha256 != sha:
        raise ValidationError(
            f"idempotency key {batch.idempotency_key!r} was already used for batch {batch.pk} "
            "with other files; use a new key for a new batch"
        )
    return batch


# --- validate -------------------------------------------------------------------------------


def batch_validate(
    *,
    batch: Batch,
    actor: User | None = None,
    worker: str = "",
    lease: timedelta | None = None,
    progress: ProgressCallback | None = None,
) -> Batch:
    """Validate every item (contract, dismissal kinds, people, correction intent), one item
    per transaction with its checkpoint; ends awaiting review, or invalid when any item is.
    A batch already past validation is returned as it is (a repeated task does nothing).
    Like publication, the phase is leased: a second worker finding another's live lease
    is refused (``BatchLeaseHeld``) rather than validating the same items at once, and a
    worker that died leaves a lease that expires, after which the next one resumes from
    the checkpoint. ``progress`` hears of the items validated out of the batch's items."""
    worker = worker or local_worker()
    with transaction.atomic():
        batch = _locked(batch)
        if batch.state == BatchState.RECEIVED:
            _transition(batch, BatchState.VALIDATING, actor=actor)
        elif batch.state != BatchState.VALIDATING:
            return batch
        checkpoint, _ = BatchCheckpoint.objects.select_for_update().get_or_create(
            batch=batch, phase=CheckpointPhase.VALIDATE
        )
        take_lease(checkpoint, worker=worker, lease=lease)
        checkpoint.attempts += 1
        checkpoint.save()
    kinds = set(DismissalKind.objects.values_list("name", flat=True))
    pending = batch.items.filter(ordinal__gt=checkpoint.ordinal).select_related("stored_object")
    counter = ItemProgress(batch, checkpoint, progress, "validating")
    for item in pending.order_by("ordinal"):
        with transaction.atomic():
            checkpoint = BatchCheckpoint.objects.select_for_update().get(pk=checkpoint.pk)
            take_lease(checkpoint, worker=worker, lease=lease)
            _validate_item(item, kinds=kinds)
            checkpoint.ordinal = item.ordinal
            checkpoint.save()
        counter.one()
    with transaction.atomic():
        batch = _locked(batch)
        BatchCheckpoint.objects.filter(pk=checkpoint.pk, lease_owner=worker).update(
            lease_owner="", lease_expires_at=None, updated_at=timezone.now()
        )
        if batch.state != BatchState.VALIDATING:  # another worker finished it
            return batch
        invalid = batch.items.filter(outcome=ItemOutcome.INVALID).count()
        tasks = batch.onboarding_tasks.filter(decision=OnboardingDecision.OUTSTANDING).count()
        if invalid:
            _transition(batch, BatchState.INVALID, actor=actor, reason=f"{invalid} item(s) invalid")
        else:
            _transition(
                batch,
                BatchState.AWAITING_REVIEW,
                actor=actor,
                reason=f"{tasks} onboarding task(s) outstanding" if tasks else "",
            )
    return batch


def _validate_item(item: BatchItem, *, kinds: set[str]) -> None:
    problems: list[dict[str, Any]] = []
    resolution: dict[str, Any] = {}
    item.operation, item.corrects_source_identity, item.correction_target = (
        ItemOperation.CREATE,
        "",
        None,
    )
    try:
        raw = item_bytes(item)
        # Unknown dismissal kinds are named with every other problem, in one pass.
        document = load(raw, filename=item.filename, match_id=item.source_identity, kinds=kinds)
    except ItemBytesGone as exc:
        problems = [{"path": "(file)", "rule": "bytes-kept", "message": str(exc)}]
    except CricsheetRejected as exc:
        problems = [{"path": p.path, "rule": p.rule, "message": p.message} for p in exc.problems]
        # A known match's revision is applied as corrections of the live one, which cannot
        # wait on a person: such a file stays invalid, with its problems.
        onboardable = None if _match_known(item) else _onboardable(item, raw, kinds=kinds)
        if onboardable is not None:
            document, gaps = onboardable
            resolution = people_resolve(item, document, gaps=gaps)
            problems = []
    else:
        resolution = people_resolve(item, document)
        if item.operation == ItemOperation.CORRECT and not problems:
            problems = _correction_problems(item, document, resolution)
    item.outcome = ItemOutcome.INVALID if problems else ItemOutcome.VALID
    item.problems, item.resolution = problems, resolution
    # The result first: the database takes an item's outcome only from its latest result.
    BatchValidationResult.objects.create(
        batch_id=item.batch_id,
        item=item,
        outcome=item.outcome,
        problems=problems,
        resolution=resolution,
    )
    item.save(
        update_fields=[
            "outcome",
            "problems",
            "resolution",
            "operation",
            "corrects_source_identity",
            "correction_target",
        ]
    )


def _match_known(item: BatchItem) -> bool:
    return ExternalIdMap.objects.filter(
        source_code=SOURCE, entity_type=EntityType.FIXTURE, external_id=item.source_identity
    ).exists()


def _onboardable(
    item: BatchItem, raw: bytes, *, kinds: set[str]
) -> tuple[dict[str, Any], Gaps] | None:
    """The parsed file and its onboarding gaps, when those gaps are its only problems (the
    file with stand-ins in them passes the contract whole); else None."""
    try:
        document = json.loads(raw)
    except ValueError:
        return None
    gaps = gaps_of(document)
    if not gaps:
        return None
    try:
        load(
            json.dumps(stand_ins(document, gaps)).encode(),
            filename=item.filename,
            match_id=item.source_identity,
            kinds=kinds,
        )
    except CricsheetRejected:
        return None
    return document, gaps


class ItemBytesGone(Exception):
    """An item's bytes can no longer be read: expired by the retention policy, or not what
    was stored. The message names the item and why."""


def item_bytes(item: BatchItem) -> bytes:
    """The item's file, read through the storage API (never from the database)."""
    stored = item.stored_object
    try:
        return stored_object_read(stored)
    except StoredObjectExpired:
        raise ItemBytesGone(
            f"item {item.ordinal} ({item.filename}): its bytes (stored object {stored.pk}) "
            f"expired at {stored.expires_at:%Y-%m-%d %H:%M:%S %Z} and were deleted "
            f"{stored.deleted_at:%Y-%m-%d %H:%M:%S %Z}; submit the file again in a new batch"
        ) from None
    except (OSError, ValueError) as exc:
        raise ItemBytesGone(
            f"item {item.ordinal} ({item.filename}): its bytes (stored object {stored.pk}) "
            f"cannot be read: {exc}"
        ) from None


def _correction_problems(
    item: BatchItem, document: dict[str, Any], resolution: dict[str, Any]
) -> list[dict[str, Any]]:
    """A correction must apply: the same plan publication will follow (the revised file
    applied whole: balls changed, added or removed, innings and match facts), computed
    without writing. The evidence records how many fields and balls it changes and which
    facts; a file that changes what a revision cannot makes the item invalid, with the
    reason."""
    target = item.correction_target
    if target is None:  # _resolve sets the target whenever it makes the item a correction
        raise ValueError(f"item {item.ordinal}: a correction names no fixture")
    try:
        diff = source_correction_diff(fixture=target, document=document)
    except ValidationError as exc:
        return [{"path": "(file)", "rule": "correction", "message": " ".join(exc.messages)}]
    resolution["fixture"]["changes"] = len(diff)
    balls = [d for d in diff if d.kind == "delivery"]
    resolution["fixture"]["deliveries"] = len({(d.innings, d.over, d.position) for d in balls})
    resolution["fixture"]["facts"] = sorted({d.field for d in diff if d.kind == "fact"})
    return []


# --- review ---------------------------------------------------------------------------------


@transaction.atomic
def batch_review(*, batch: Batch, reviewer: User, approve: bool, reason: str) -> Batch:
    """Record a reviewer's decision. Approval needs every onboarding task answered; the
    caller then starts publication (``ingest.batches.tasks.publish_after_commit``, or
    ``batch_publish`` directly). Rejection keeps everything for the record."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("a reason is required to approve or reject a batch")
    batch = _locked(batch)
    refusal = review_refusal(reviewer, batch)
    if refusal:
        raise PermissionDenied(refusal)
    if batch.state != BatchState.AWAITING_REVIEW:
        raise ValidationError(
            f"batch {batch.pk} is {batch.get_state_display().lower()}; only a batch awaiting "
            "review can be decided"
        )
    if approve and batch.superseded_by_id is not None:
        raise ValidationError(
            f"batch {batch.pk} is superseded by batch {batch.superseded_by_id}, a later one "
            "for the same files; review that one"
        )
    if approve:
        outstanding = list(
            batch.onboarding_tasks.filter(decision=OnboardingDecision.OUTSTANDING).values_list(
                "task_reference", flat=True
            )
        )
        if outstanding:
            raise ValidationError(
                f"batch {batch.pk} has {len(outstanding)} onboarding task(s) outstanding: "
                + ", ".join(outstanding)
            )
    decision = ReviewDecision.APPROVE if approve else ReviewDecision.REJECT
    BatchReviewDecision.objects.create(
        batch=batch, reviewer=reviewer, decision=decision, reason=reason
    )
    _transition(
        batch,
        BatchState.APPROVED if approve else BatchState.REJECTED,
        actor=reviewer,
        reason=reason,
    )
    audit_record(
        actor=reviewer,
        action=f"ingest.batch_{decision}",
        entity=batch,
        key=batch.pk,
        detail={"reason": reason},
    )
    return batch


# --- publish --------------------------------------------------------------------------------


def batch_publish(
    *,
    batch: Batch,
    worker: str,
    lease: timedelta | None = None,
    progress: ProgressCallback | None = None,
) -> Batch:
    """Publish an approved batch: one transaction per item (its fixture, the item's link
    and the checkpoint together), through the importer with the submitter as actor, so
    each submission names them and is accepted now. Resumable: items at or before the
    checkpoint are skipped; a live lease of another worker refuses the call. ``progress``
    hears of the items published out of the batch's items."""
    with transaction.atomic():
        batch = _locked(batch)
        if batch.state == BatchState.PUBLISHED:
            return batch
        if batch.state not in (BatchState.APPROVED, BatchState.PUBLISHING):
            raise ValidationError(
                f"batch {batch.pk} is {batch.get_state_display().lower()}; only an approved "
                "batch is published"
            )
        checkpoint, _ = BatchCheckpoint.objects.select_for_update().get_or_create(
            batch=batch, phase=CheckpointPhase.PUBLISH
        )
        take_lease(checkpoint, worker=worker, lease=lease)
        checkpoint.attempts += 1
        checkpoint.save()
        if batch.state == BatchState.APPROVED:
            _transition(batch, BatchState.PUBLISHING)
    # Corrections (a known match in other bytes) go through the same correction path as a
    # revised corpus file, under a reason naming the batch and with the approval recorded.
    approval = batch.review_decisions.filter(decision=ReviewDecision.APPROVE).latest("created_at")
    importer = Importer(
        actor=batch.submitter,
        kind=SubmissionKind.BATCH,
        note=f"batch {batch.pk}",
        correction_reason=f"batch {batch.pk}: {SOURCE_REVISION}",
        correction_review=CorrectionReview(
            reviewer=approval.reviewer, reviewed_at=approval.created_at, reason=approval.reason
        ),
    )
    pending = batch.items.filter(ordinal__gt=checkpoint.ordinal).select_related("stored_object")
    counter = ItemProgress(batch, checkpoint, progress, "publishing")
    for item in pending.order_by("ordinal"):
        with transaction.atomic():
            checkpoint = BatchCheckpoint.objects.select_for_update().get(pk=checkpoint.pk)
            take_lease(checkpoint, worker=worker, lease=lease)
            _publish_item(importer, item)
            checkpoint.ordinal = item.ordinal
            checkpoint.save()
        counter.one()
    with transaction.atomic():
        batch = _locked(batch)
        _transition(batch, BatchState.PUBLISHED, reason=_publication_summary(batch))
        BatchCheckpoint.objects.filter(pk=checkpoint.pk).update(
            lease_owner="", lease_expires_at=None, updated_at=timezone.now()
        )
    return batch


def _publish_item(importer: Importer, item: BatchItem) -> None:
    """One item in the caller's transaction: a new match is imported; a correction (the
    match is known, the bytes differ) becomes corrections of exactly the balls that differ,
    and the item links the delivery revisions they wrote. The importer refreshes the
    statistics of what it changed."""
    item.published_at = timezone.now()
    if item.outcome != ItemOutcome.VALID:
        item.publication, item.publication_error = PublicationOutcome.FAILED, "not valid"
        item.save(update_fields=["publication", "publication_error", "published_at"])
        return
    try:
        raw = item_bytes(item)
    except ItemBytesGone as exc:
        item.publication, item.publication_error = PublicationOutcome.FAILED, str(exc)
        item.save(update_fields=["publication", "publication_error", "published_at"])
        return
    result = importer.import_file(_with_answers(item, raw), filename=item.filename)
    item.submission_id = result.submission_id
    if result.outcome in (Outcome.NEW, Outcome.UPDATED):
        item.publication, item.fixture_id = PublicationOutcome.PUBLISHED, result.fixture_id
    elif result.outcome == Outcome.UNCHANGED:
        item.publication, item.fixture_id = PublicationOutcome.UNCHANGED, result.fixture_id
    else:
        item.publication, item.publication_error = PublicationOutcome.FAILED, result.error
    item.save(
        update_fields=["publication", "publication_error", "fixture", "submission", "published_at"]
    )
    if result.revisions:
        item.published_deliveries.set(result.revisions)


def _with_answers(item: BatchItem, raw: bytes) -> bytes:
    """The item's file as published: with the reviewer's answers to its onboarding gaps
    (registry ids given, players placed in a match team) written in, or as it came when it
    had none. The submission then records these bytes, the file the fixture was made from."""
    tasks = list(
        item.onboarding_tasks.filter(
            reason__in=[
                OnboardingReason.NO_DURABLE_IDENTIFIER,
                OnboardingReason.TEAM_NOT_RECOGNISED,
            ]
        ).values_list("reason", "name", "registry_id", "placed_in")
    )
    if not tasks:
        return raw
    identifiers = {
        name: rid
        for reason, name, rid, _ in tasks
        if reason == OnboardingReason.NO_DURABLE_IDENTIFIER
    }
    placements = {
        name: team
        for reason, name, _, team in tasks
        if reason == OnboardingReason.TEAM_NOT_RECOGNISED
    }
    document = answered(json.loads(raw), identifiers=identifiers, placements=placements)
    return json.dumps(document, ensure_ascii=False).encode()


def _publication_summary(batch: Batch) -> str:
    counts: dict[str, int] = {}
    for value in batch.items.values_list("publication", flat=True):
        counts[value] = counts.get(value, 0) + 1
    return ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))


# --- backfill -------------------------------------------------------------------------------


def batch_item_submissions_link() -> int:
    """Link every published item that names no submission to the one its publication
    recorded: the batch submission that first brought its fixture, from the same bytes and
    the same submitter. Items published before ``BatchItem.submission`` existed get the link
    the trace follows; running it again links nothing more. Returns how many it linked.

    One statement: an item matches at most one submission (a fixture has one first
    submission), and a submission at most one item (the same bytes published again are
    "unchanged", not "published")."""
    linked = (
        BatchItem.objects.filter(
            publication=PublicationOutcome.PUBLISHED,
            submission__isnull=True,
            fixture__first_seen_in__kind=SubmissionKind.BATCH,
            fixture__first_seen_in__sha256=F("sha256"),
            fixture__first_seen_in__submitted_by=F("batch__submitter"),
        )
        .exclude(
            fixture__first_seen_in__in=BatchItem.objects.filter(submission__isnull=False).values(
                "submission"
            )
        )
        .values_list("pk", "fixture__first_seen_in")
    )
    count = 0
    with transaction.atomic():
        for pk, submission_id in linked:
            BatchItem.objects.filter(pk=pk).update(submission_id=submission_id)
            count += 1
    return count
