"""The batch-staging tables. Imported by ``ingest.models`` (they belong to the ingest app).

A batch is what one submitter uploaded under one idempotency key; its items are the match
files in payload order. Nothing in a batch is public until a reviewer approves it and the
publication phase writes each item through the Cricsheet importer (accepted submissions).
Batches, items, validation results, review decisions and state transitions are provenance:
never deleted; the last three are append-only.
"""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import Q

from omnium.models import UUIDModel
from omnium.triggers import never_truncated

USER = settings.AUTH_USER_MODEL
SHA256 = r"^[0-9a-f]{64}$"


class BatchState(models.TextChoices):
    RECEIVED = "received", "Received"
    VALIDATING = "validating", "Validating"
    AWAITING_REVIEW = "awaiting_review", "Awaiting review"
    INVALID = "invalid", "Invalid"
    APPROVED = "approved", "Approved"
    PUBLISHING = "publishing", "Publishing"
    PUBLISHED = "published", "Published"
    REJECTED = "rejected", "Rejected"


# Which state may follow which (the empty state is before the first transition). The
# transition service checks it first; the database refuses anything else.
BATCH_TRANSITIONS: dict[str, set[str]] = {
    "": {BatchState.RECEIVED},
    BatchState.RECEIVED: {BatchState.VALIDATING},
    BatchState.VALIDATING: {BatchState.AWAITING_REVIEW, BatchState.INVALID},
    BatchState.AWAITING_REVIEW: {BatchState.APPROVED, BatchState.REJECTED},
    BatchState.APPROVED: {BatchState.PUBLISHING},
    BatchState.PUBLISHING: {BatchState.PUBLISHED},
}
_LEGAL_STEPS = ", ".join(
    f"('{before}', '{after}')"
    for before, afters in BATCH_TRANSITIONS.items()
    if before
    for after in sorted(afters)
)


class Batch(UUIDModel):
    submitter = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="batches")
    competition = models.ForeignKey(
        "sports.Competition",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="batches",
    )
    idempotency_key = models.CharField(max_length=200)
    package_version = models.CharField(max_length=32, default="cricsheet-json-1")
    # SHA-256 of the package: of the lines "<file name>\t<file sha256>" in payload order, so
    # the same files under the same names in the same order are the same package.
    sha256 = models.CharField(max_length=64)
    state = models.CharField(max_length=16, choices=BatchState.choices, default=BatchState.RECEIVED)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="supersedes"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["submitter", "idempotency_key"], name="batch_idempotency_per_submitter"
            ),
            models.CheckConstraint(condition=Q(sha256__regex=SHA256), name="batch_sha256_shape"),
            models.CheckConstraint(
                condition=~Q(idempotency_key=""), name="batch_idempotency_key_present"
            ),
            models.CheckConstraint(
                condition=~Q(superseded_by=models.F("id")), name="batch_not_superseding_itself"
            ),
        ]
        indexes = [models.Index(fields=["state", "created_at"], name="batch_state_queue")]
        triggers = [
            pgtrigger.Protect(name="batch_never_deleted", operation=pgtrigger.Delete),
            never_truncated("batch_no_truncate"),
            # A batch starts received; its state then moves only along a legal step, and
            # only to the step its latest recorded transition names (batch_transition).
            pgtrigger.Trigger(
                name="batch_state_by_transition",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.UpdateOf("state"),
                # The legal steps are this module's constant, not input.
                func=f"""
                IF TG_OP = 'INSERT' THEN
                    IF NEW.state <> 'received' THEN
                        RAISE EXCEPTION 'batch %: a batch starts received, not %',
                            NEW.id, NEW.state USING ERRCODE = 'check_violation';
                    END IF;
                    RETURN NEW;
                END IF;
                IF NEW.state IS NOT DISTINCT FROM OLD.state THEN
                    RETURN NEW;
                END IF;
                IF (OLD.state, NEW.state) NOT IN ({_LEGAL_STEPS}) THEN
                    RAISE EXCEPTION 'batch %: cannot go from % to %', NEW.id, OLD.state,
                        NEW.state USING ERRCODE = 'check_violation';
                END IF;
                IF NOT EXISTS (
                    SELECT 1 FROM ingest_batchstatetransition t
                    WHERE t.id = (SELECT max(id) FROM ingest_batchstatetransition
                                  WHERE batch_id = NEW.id)
                      AND t.from_state = OLD.state AND t.to_state = NEW.state
                ) THEN
                    RAISE EXCEPTION 'batch %: the step from % to % is not recorded as a '
                        'transition', NEW.id, OLD.state, NEW.state
                        USING ERRCODE = 'check_violation';
                END IF;
                RETURN NEW;
                """,  # noqa: S608
            ),
        ]
        verbose_name_plural = "batches"

    def __str__(self) -> str:
        return f"batch {self.pk} ({self.get_state_display()})"


class ItemOutcome(models.TextChoices):
    PENDING = "pending", "Not validated yet"
    VALID = "valid", "Valid"
    INVALID = "invalid", "Invalid"


class ItemOperation(models.TextChoices):
    CREATE = "create", "Create a fixture"
    CORRECT = "correct", "Correct a published fixture"


class PublicationOutcome(models.TextChoices):
    PENDING = "pending", "Not published"
    PUBLISHED = "published", "Published"
    UNCHANGED = "unchanged", "Already published from the same bytes"
    FAILED = "failed", "Failed at publication"


class BatchItem(models.Model):
    """One submitted match file with what validation found. Its bytes are a stored object
    (private, with an expiry); ``sha256`` and ``byte_size`` repeat the object's, and the
    database refuses an item whose checksum is not its object's."""

    id = models.BigAutoField(primary_key=True)
    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="items")
    ordinal = models.PositiveIntegerField()
    source_identity = models.CharField(max_length=64)  # the Cricsheet match id
    filename = models.CharField(max_length=512)
    stored_object = models.ForeignKey(
        "ingest.StoredObject", on_delete=models.PROTECT, related_name="+"
    )
    sha256 = models.CharField(max_length=64)
    byte_size = models.PositiveIntegerField()
    outcome = models.CharField(
        max_length=16, choices=ItemOutcome.choices, default=ItemOutcome.PENDING
    )
    problems = models.JSONField(default=list, blank=True)
    # Per registry person: name, registry id, and how it resolved (known/new/ambiguous).
    resolution = models.JSONField(default=dict, blank=True)
    operation = models.CharField(
        max_length=16, choices=ItemOperation.choices, default=ItemOperation.CREATE
    )
    corrects_source_identity = models.CharField(max_length=64, blank=True)
    correction_target = models.ForeignKey(
        "sports.Fixture", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    publication = models.CharField(
        max_length=24, choices=PublicationOutcome.choices, default=PublicationOutcome.PENDING
    )
    publication_error = models.TextField(blank=True)
    fixture = models.ForeignKey(
        "sports.Fixture", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The submission publication recorded for this file: where a delivery's provenance
    # leads back to its batch. Empty until published, and for a file whose bytes were
    # already published (nothing new was recorded).
    submission = models.OneToOneField(
        "sports.Submission", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # A correction item: the delivery revisions its publication wrote (one per corrected
    # ball, plus any later ball of the over whose printed label moved).
    published_deliveries = models.ManyToManyField("cricket.Delivery", blank=True, related_name="+")
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["batch", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "ordinal"], name="batch_item_ordinal_unique"),
            models.CheckConstraint(
                condition=Q(sha256__regex=SHA256), name="batch_item_sha256_shape"
            ),
            models.CheckConstraint(
                condition=Q(operation="create", corrects_source_identity="")
                | (Q(operation="correct") & ~Q(corrects_source_identity="")),
                name="batch_item_correction_intent_named",
            ),
            models.CheckConstraint(
                condition=Q(publication="pending", published_at__isnull=True)
                | (~Q(publication="pending") & Q(published_at__isnull=False)),
                name="batch_item_published_at_all_or_none",
            ),
        ]
        triggers = [
            never_truncated("batch_item_no_truncate"),
            # An item's verdict is the latest validation result recorded for it, written
            # while its batch validates; it never goes back to pending.
            pgtrigger.Trigger(
                name="batch_item_outcome_by_validation",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.UpdateOf("outcome", "problems"),
                func="""
                IF TG_OP = 'INSERT' THEN
                    IF NEW.outcome <> 'pending' OR NEW.problems <> '[]'::jsonb THEN
                        RAISE EXCEPTION 'batch item %: an item starts pending, without '
                            'problems', NEW.ordinal USING ERRCODE = 'check_violation';
                    END IF;
                    RETURN NEW;
                END IF;
                IF NEW.outcome IS NOT DISTINCT FROM OLD.outcome
                   AND NEW.problems IS NOT DISTINCT FROM OLD.problems THEN
                    RETURN NEW;
                END IF;
                IF (SELECT state FROM ingest_batch WHERE id = NEW.batch_id) <> 'validating' THEN
                    RAISE EXCEPTION 'batch item %: its outcome changes only while its batch '
                        'validates', NEW.ordinal USING ERRCODE = 'check_violation';
                END IF;
                IF NOT EXISTS (
                    SELECT 1 FROM ingest_batchvalidationresult r
                    WHERE r.id = (SELECT max(id) FROM ingest_batchvalidationresult
                                  WHERE item_id = NEW.id)
                      AND r.outcome = NEW.outcome AND r.problems = NEW.problems
                ) THEN
                    RAISE EXCEPTION 'batch item %: outcome % is not the latest validation '
                        'result recorded for it', NEW.ordinal, NEW.outcome
                        USING ERRCODE = 'check_violation';
                END IF;
                RETURN NEW;
                """,
            ),
            pgtrigger.Protect(name="batch_item_never_deleted", operation=pgtrigger.Delete),
            # The checksum an item shows is the one of the bytes actually kept for it.
            pgtrigger.Trigger(
                name="batch_item_is_its_stored_object",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.Update,
                func="""
                IF NOT EXISTS (
                    SELECT 1 FROM ingest_storedobject o
                    WHERE o.id = NEW.stored_object_id
                      AND o.sha256 = NEW.sha256
                      AND o.byte_size = NEW.byte_size
                ) THEN
                    RAISE EXCEPTION
                        'batch item %: sha256 % and size % are not those of stored object %',
                        NEW.ordinal, NEW.sha256, NEW.byte_size, NEW.stored_object_id
                        USING ERRCODE = 'check_violation';
                END IF;
                RETURN NEW;
                """,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ordinal}. {self.source_identity}"


class CheckpointPhase(models.TextChoices):
    VALIDATE = "validate", "Validation"
    PUBLISH = "publish", "Publication"


class BatchCheckpoint(models.Model):
    """How far a phase got: the last item ordinal done, who holds it (lease) and how often it
    was started. Written in the same transaction as the item it records."""

    id = models.BigAutoField(primary_key=True)
    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="checkpoints")
    phase = models.CharField(max_length=16, choices=CheckpointPhase.choices)
    ordinal = models.PositiveIntegerField(default=0)
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["batch", "phase"], name="batch_checkpoint_per_phase"),
            models.CheckConstraint(
                condition=Q(lease_owner="", lease_expires_at__isnull=True)
                | (~Q(lease_owner="") & Q(lease_expires_at__isnull=False)),
                name="batch_checkpoint_lease_all_or_none",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.batch_id} {self.phase} at {self.ordinal}"


class BatchValidationResult(models.Model):
    """One validation verdict on one item (append-only: a re-validation adds rows)."""

    id = models.BigAutoField(primary_key=True)
    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="validation_results")
    item = models.ForeignKey(BatchItem, on_delete=models.PROTECT, related_name="validation_results")
    outcome = models.CharField(max_length=16, choices=ItemOutcome.choices)
    problems = models.JSONField(default=list, blank=True)
    resolution = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item__ordinal", "created_at"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(outcome="pending"), name="batch_validation_result_decided"
            )
        ]
        triggers = [
            never_truncated("batch_validation_result_no_truncate"),
            pgtrigger.Protect(
                name="batch_validation_result_append_only",
                operation=pgtrigger.Update | pgtrigger.Delete,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.outcome}"


class ReviewDecision(models.TextChoices):
    APPROVE = "approve", "Approve"
    REJECT = "reject", "Reject"


class BatchReviewDecision(models.Model):
    id = models.BigAutoField(primary_key=True)
    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="review_decisions")
    reviewer = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    decision = models.CharField(max_length=16, choices=ReviewDecision.choices)
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(reason=""), name="batch_review_decision_has_reason"
            ),
        ]
        triggers = [
            never_truncated("batch_review_decision_no_truncate"),
            pgtrigger.Protect(
                name="batch_review_decision_append_only",
                operation=pgtrigger.Update | pgtrigger.Delete,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.decision} {self.batch_id}"


class BatchStateTransition(models.Model):
    id = models.BigAutoField(primary_key=True)
    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="transitions")
    from_state = models.CharField(max_length=16, choices=BatchState.choices, blank=True)
    to_state = models.CharField(max_length=16, choices=BatchState.choices)
    actor = models.ForeignKey(
        USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(from_state=models.F("to_state")), name="batch_transition_changes"
            ),
        ]
        triggers = [
            never_truncated("batch_state_transition_no_truncate"),
            pgtrigger.Protect(
                name="batch_state_transition_append_only",
                operation=pgtrigger.Update | pgtrigger.Delete,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_state or '-'} -> {self.to_state}"


class OnboardingReason(models.TextChoices):
    """Why a person a file names needs a reviewer, each with its answers
    (``ONBOARDING_ANSWERS``)."""

    NAMESAKE_UNDER_OTHER_ID = (
        "namesake_under_other_id",
        ("Unknown registry id, but a participant of the same name exists under another id"),
    )
    NO_DURABLE_IDENTIFIER = (
        "no_durable_identifier",
        "Listed in a team with no registry id: nothing lasting says who they are",
    )
    TEAM_NOT_RECOGNISED = (
        "team_not_recognised",
        "Listed under a team that is not one of the match's two teams",
    )


class OnboardingDecision(models.TextChoices):
    OUTSTANDING = "outstanding", "Outstanding"
    LINKED = "linked", "Linked to an existing participant"
    CREATE = "create", "A new participant is created"
    IDENTIFIED = "identified", "Given a registry id"
    PLACED = "placed", "Placed in one of the match's teams"


#: The decisions that answer each reason (the database holds a task to them).
ONBOARDING_ANSWERS: dict[str, tuple[str, ...]] = {
    OnboardingReason.NAMESAKE_UNDER_OTHER_ID: (
        OnboardingDecision.LINKED,
        OnboardingDecision.CREATE,
    ),
    OnboardingReason.NO_DURABLE_IDENTIFIER: (
        OnboardingDecision.LINKED,
        OnboardingDecision.IDENTIFIED,
    ),
    OnboardingReason.TEAM_NOT_RECOGNISED: (OnboardingDecision.PLACED,),
}


def _answers_fit_reasons() -> Q:
    fits = Q()
    for reason, decisions in ONBOARDING_ANSWERS.items():
        fits |= Q(reason=reason, decision__in=[str(d) for d in decisions])
    return fits


class BatchParticipantOnboardingTask(models.Model):
    """A person a batch names that cannot be resolved deterministically. While any task of
    a batch is outstanding the batch stays awaiting review. Addressed by ``task_reference``
    (opaque, unique), never by anything derived from the person."""

    id = models.BigAutoField(primary_key=True)
    task_reference = models.CharField(max_length=40, unique=True)
    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, related_name="onboarding_tasks")
    item = models.ForeignKey(BatchItem, on_delete=models.PROTECT, related_name="onboarding_tasks")
    # How onboarding finds the task (``source:<registry id>``, else ``name:<name>::<team>``);
    # an answer may change it, so nothing addresses a task by it.
    participant_key = models.CharField(max_length=300)
    name = models.CharField(max_length=256)
    # Empty while the person has none (no_durable_identifier); the answer's id after.
    registry_id = models.CharField(max_length=64, blank=True)
    # The team the file lists the person under, as written (for team_not_recognised, the
    # one that is not the match's), and the match's team a reviewer placed them in.
    team = models.CharField(max_length=256, blank=True)
    placed_in = models.CharField(max_length=256, blank=True)
    reason = models.CharField(max_length=32, choices=OnboardingReason.choices)
    candidates = models.JSONField(default=list)
    decision = models.CharField(
        max_length=16, choices=OnboardingDecision.choices, default=OnboardingDecision.OUTSTANDING
    )
    participant = models.ForeignKey(
        "sports.Participant", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_by = models.ForeignKey(
        USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    decision="outstanding", resolved_by__isnull=True, resolved_at__isnull=True
                )
                | (
                    ~Q(decision="outstanding")
                    & Q(resolved_by__isnull=False, resolved_at__isnull=False)
                ),
                name="onboarding_task_resolution_all_or_none",
            ),
            models.CheckConstraint(
                condition=~Q(decision="linked") | Q(participant__isnull=False),
                name="onboarding_task_link_names_participant",
            ),
            models.CheckConstraint(
                condition=Q(decision="outstanding") | _answers_fit_reasons(),
                name="onboarding_task_decision_fits_reason",
            ),
            models.CheckConstraint(
                condition=~Q(decision__in=["linked", "identified"]) | ~Q(registry_id=""),
                name="onboarding_task_answer_names_id",
            ),
            models.CheckConstraint(
                condition=~Q(decision="placed") | ~Q(placed_in=""),
                name="onboarding_task_placement_names_team",
            ),
        ]
        indexes = [
            models.Index(
                fields=["batch"],
                condition=Q(decision="outstanding"),
                name="onboarding_task_outstanding",
            )
        ]
        triggers = [
            never_truncated("onboarding_task_no_truncate"),
            pgtrigger.Protect(name="onboarding_task_never_deleted", operation=pgtrigger.Delete),
        ]

    def __str__(self) -> str:
        return f"{self.task_reference}: {self.name} ({self.registry_id})"
