"""The merge-candidate queue over the API: reviewers list pairs and decide them.

Every level is served here (catalogue brands, lines and products, sports participants);
deciding calls the same service as the console.
"""

from __future__ import annotations

from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from accounts.acting import request_actors
from curation.models import MergeCandidate, MergeLevel
from curation.serializers import CandidateDecisionSerializer, CandidateSerializer
from curation.services import DECIDE_PERMISSION, merge_candidate_resolve


class CanDecide(BasePermission):
    """Reviewers, editors and administrators (the role groups' candidate permission)."""

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated) and request.user.has_perm(
            DECIDE_PERMISSION
        )


def _actor(request):
    """The person at the keyboard (not the account they act as, while acting)."""
    return request_actors(request)["actor"]


class CandidateFilter(filters.FilterSet):
    level = filters.ChoiceFilter(choices=MergeLevel.choices)
    status = filters.ChoiceFilter(
        choices=MergeCandidate.Status.choices, help_text="Open pairs when omitted."
    )

    class Meta:
        model = MergeCandidate
        fields = ("level", "status")


class CandidateViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The merge-candidate queue, highest score first (open pairs unless ``status`` says)."""

    serializer_class = CandidateSerializer
    permission_classes = (CanDecide,)
    filterset_class = CandidateFilter
    # Highest score first, unscored pairs last; the cursor keeps one column's position, so
    # the rank folds the NULLs below every score.
    cursor_ordering = ("-rank", "detected_at", "pk")

    def get_queryset(self):
        queryset = (
            MergeCandidate.objects.select_related("decided_by")
            .annotate(rank=Coalesce("score", Value(-1.0)))
            .order_by(F("score").desc(nulls_last=True), "detected_at", "pk")
        )
        if self.action != "list":
            return queryset  # One pair by id, whatever its status.
        params = getattr(self.request, "query_params", {})
        if not params.get("status"):
            queryset = queryset.filter(status=MergeCandidate.Status.OPEN)
        return queryset

    @extend_schema(request=CandidateDecisionSerializer, responses=CandidateSerializer)
    @action(detail=True, methods=["post"])
    def decide(self, request, pk=None):
        """Accept (the merge or alias is applied in the same step) or reject, with a note."""
        data = CandidateDecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        candidate = merge_candidate_resolve(
            candidate=self.get_object(),
            accept=data.validated_data["accept"],
            actor=_actor(request),
            note=data.validated_data["note"],
            survivor_id=data.validated_data.get("survivor"),
            confirm_two_barcodes=data.validated_data["confirm_two_barcodes"],
        )
        candidate = MergeCandidate.objects.select_related("decided_by").get(pk=candidate.pk)
        return Response(CandidateSerializer(candidate).data)
