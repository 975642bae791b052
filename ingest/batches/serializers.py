"""API shapes of staged batches: typed input serializers and read-only output ones."""

from __future__ import annotations

import base64
import binascii

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from ingest.batches.limits import batch_limits_check
from ingest.batches.models import (
    Batch,
    BatchItem,
    BatchParticipantOnboardingTask,
    BatchReviewDecision,
    BatchStateTransition,
)
from sports.models import Competition, Participant


class BatchFileSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=512)
    content_base64 = serializers.CharField()

    def validate(self, attrs):
        try:
            attrs["content"] = base64.b64decode(attrs["content_base64"], validate=True)
        except (binascii.Error, ValueError):
            raise serializers.ValidationError(
                {"content_base64": f"{attrs['name']}: not valid base64"}
            ) from None
        return attrs


def _competition(code: str | None) -> Competition | None:
    if not code:
        return None
    matches = list(Competition.objects.filter(code=code)[:2])
    if len(matches) != 1:
        raise serializers.ValidationError(
            f"{code!r} names {'no' if not matches else 'more than one'} competition"
        )
    return matches[0]


class BatchSubmitSerializer(serializers.Serializer):
    """JSON body: the match files, base64-encoded, in payload order."""

    competition = serializers.CharField(max_length=64, required=False, allow_blank=True)
    # many=True makes a ListSerializer, which takes the length bounds; the stubs type the
    # call as the item serializer's own constructor.
    files = BatchFileSerializer(many=True, min_length=1, max_length=settings.BATCH_MAX_FILES)  # type: ignore[call-arg]

    def validate_competition(self, value):
        return _competition(value)

    def files_payload(self) -> list[tuple[str, bytes]]:
        return [(f["name"], f["content"]) for f in self.validated_data["files"]]


class BatchUploadSerializer(serializers.Serializer):
    """Multipart body: one or more ``files`` parts, in payload order."""

    competition = serializers.CharField(max_length=64, required=False, allow_blank=True)
    files = serializers.ListField(
        child=serializers.FileField(), min_length=1, max_length=settings.BATCH_MAX_FILES
    )

    def validate_competition(self, value):
        return _competition(value)

    def validate_files(self, value):
        """The parts' sizes (they are on disk or in memory by now, counted by the upload
        handlers) against the batch limits, before any is read into memory."""
        limit = settings.BATCH_MAX_FILE_BYTES
        for upload in value:
            if upload.size > limit:
                raise serializers.ValidationError(
                    f"{upload.name}: {upload.size} bytes; "
                    f"the limit is BATCH_MAX_FILE_BYTES = {limit}"
                )
        try:
            batch_limits_check(count=len(value), total_bytes=sum(f.size for f in value))
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None
        return value

    def files_payload(self) -> list[tuple[str, bytes]]:
        return [(f.name, f.read()) for f in self.validated_data["files"]]


class BatchDecisionSerializer(serializers.Serializer):
    approve = serializers.BooleanField()
    reason = serializers.CharField(max_length=2000)


class OnboardingAnswerSerializer(serializers.Serializer):
    task_reference = serializers.CharField(max_length=40)
    participant = serializers.PrimaryKeyRelatedField(
        queryset=Participant.objects.all(), required=False, allow_null=True
    )
    # A declared field leaves the class attributes (DRF's metaclass collects it), so it
    # does not replace Serializer.create; the stubs see an override.
    create = serializers.BooleanField(default=False)  # type: ignore[assignment]
    registry_id = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=True,
        default="",
        help_text="For no_durable_identifier: the person's Cricsheet registry id.",
    )
    team = serializers.CharField(
        max_length=256,
        required=False,
        allow_blank=True,
        default="",
        help_text="For team_not_recognised: the match's team the person played for.",
    )


class BatchItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = BatchItem
        fields = (
            "ordinal",
            "source_identity",
            "filename",
            "stored_object",
            "sha256",
            "byte_size",
            "outcome",
            "problems",
            "resolution",
            "operation",
            "corrects_source_identity",
            "correction_target",
            "publication",
            "publication_error",
            "fixture",
        )
        read_only_fields = fields


class OnboardingTaskSerializer(serializers.ModelSerializer):
    class Meta:
        model = BatchParticipantOnboardingTask
        fields = (
            "task_reference",
            "participant_key",
            "name",
            "registry_id",
            "team",
            "reason",
            "candidates",
            "decision",
            "participant",
            "placed_in",
            "resolved_at",
        )
        read_only_fields = fields


class ReviewDecisionSerializer(serializers.ModelSerializer):
    reviewer = serializers.CharField(source="reviewer.username", read_only=True)

    class Meta:
        model = BatchReviewDecision
        fields = ("decision", "reason", "reviewer", "created_at")
        read_only_fields = fields


class TransitionSerializer(serializers.ModelSerializer):
    # Plain text: the states are the batch's ``state`` enum (or "" before the first).
    from_state = serializers.CharField(read_only=True)
    to_state = serializers.CharField(read_only=True)

    class Meta:
        model = BatchStateTransition
        fields = ("from_state", "to_state", "reason", "created_at")
        read_only_fields = fields


class BatchSerializer(serializers.ModelSerializer):
    submitter = serializers.CharField(source="submitter.username", read_only=True)
    competition = serializers.CharField(
        source="competition.code", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = Batch
        fields: tuple[str, ...] = (
            "id",
            "submitter",
            "competition",
            "idempotency_key",
            "package_version",
            "sha256",
            "state",
            "superseded_by",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields


class BatchDetailSerializer(BatchSerializer):
    items = BatchItemSerializer(many=True, read_only=True)
    onboarding_tasks = OnboardingTaskSerializer(many=True, read_only=True)
    review_decisions = ReviewDecisionSerializer(many=True, read_only=True)
    transitions = TransitionSerializer(many=True, read_only=True)

    class Meta(BatchSerializer.Meta):
        fields = (
            *BatchSerializer.Meta.fields,
            "items",
            "onboarding_tasks",
            "review_decisions",
            "transitions",
        )
        read_only_fields = fields
