"""API of staged batches (/api/v1/batches/). Submitters upload and read their own batches;
reviewers read the queue of the competitions their grants cover and decide. Every route
needs a signed-in account; the checks are ingest.batches.permissions, through the services."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from ingest.batches import services
from ingest.batches.filters import BatchFilter
from ingest.batches.models import Batch
from ingest.batches.permissions import visible_batches
from ingest.batches.serializers import (
    BatchDecisionSerializer,
    BatchDetailSerializer,
    BatchSerializer,
    BatchSubmitSerializer,
    BatchUploadSerializer,
    OnboardingAnswerSerializer,
    OnboardingTaskSerializer,
)
from ingest.batches.tasks import publish_after_commit, validate_after_commit
from omnium.auth import signed_in

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=True,
    description="Resending the same key with the same files returns the same batch.",
)


class BatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    permission_classes = (IsAuthenticated,)
    filterset_class = BatchFilter
    cursor_ordering = ("-created_at", "-id")
    parser_classes = (JSONParser, MultiPartParser)

    def get_serializer_class(self):
        return BatchDetailSerializer if self.action == "retrieve" else BatchSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Batch.objects.none()
        queryset = Batch.objects.select_related("submitter", "competition")
        if self.action == "retrieve":
            queryset = queryset.prefetch_related(
                "items", "onboarding_tasks", "review_decisions__reviewer", "transitions"
            )
        return visible_batches(self.request.user, queryset)

    @extend_schema(
        parameters=[IDEMPOTENCY_KEY],
        request={
            "application/json": BatchSubmitSerializer,
            "multipart/form-data": BatchUploadSerializer,
        },
        responses={201: BatchSerializer, 200: BatchSerializer},
    )
    def create(self, request: Request) -> Response:
        """Stage match files as a batch; validation runs in the background."""
        key = request.headers.get("Idempotency-Key", "")
        if not key:
            raise ValidationError({"Idempotency-Key": "this header is required"})
        multipart = request.content_type.startswith("multipart/")
        data = (BatchUploadSerializer if multipart else BatchSubmitSerializer)(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            batch, created = services.batch_submit(
                submitter=signed_in(request.user),
                files=data.files_payload(),
                idempotency_key=key,
                competition=data.validated_data.get("competition"),
            )
            if created:
                validate_after_commit(batch, actor=signed_in(request.user))
        return Response(
            BatchSerializer(batch).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(request=BatchDecisionSerializer, responses=BatchSerializer)
    @action(detail=True, methods=["post"])
    def decision(self, request: Request, pk=None) -> Response:
        """Approve (then publish in the background) or reject, with a reason."""
        data = BatchDecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            batch = services.batch_review(
                batch=self.get_object(), reviewer=signed_in(request.user), **data.validated_data
            )
            if data.validated_data["approve"]:
                publish_after_commit(batch, actor=signed_in(request.user))
        return Response(BatchSerializer(batch).data)

    @extend_schema(request=OnboardingAnswerSerializer, responses=OnboardingTaskSerializer)
    @action(detail=True, methods=["post"])
    def onboarding(self, request: Request, pk=None) -> Response:
        """Answer one of the batch's onboarding tasks with the answer its reason takes: a
        namesake links a participant or creates one; a player without a registry id is
        given one (``registry_id``) or linked to a participant; a player under a team
        that is not the match's is placed in one of its two (``team``)."""
        batch = self.get_object()
        data = OnboardingAnswerSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        reference = data.validated_data["task_reference"]
        if not batch.onboarding_tasks.filter(task_reference=reference).exists():
            raise ValidationError({"task_reference": f"no task {reference} on this batch"})
        task = services.onboarding_task_resolve(
            task_reference=reference,
            reviewer=signed_in(request.user),
            participant=data.validated_data.get("participant"),
            create=data.validated_data["create"],
            registry_id=data.validated_data["registry_id"],
            team=data.validated_data["team"],
        )
        return Response(OnboardingTaskSerializer(task).data)
