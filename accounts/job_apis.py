"""Jobs over the API: the long work a person may follow (their own; staff see all)."""

from __future__ import annotations

from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field
from rest_framework import mixins, serializers, viewsets
from rest_framework.permissions import IsAuthenticated

from accounts.models import Job, JobKind, JobState, User


class JobSerializer(serializers.ModelSerializer):
    started_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Who started the job; null for scheduled work.",
    )
    percent = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Whole percent done; null while unknown."
    )
    eta = serializers.SerializerMethodField(
        help_text="When a running job should finish; null unless it is running with a known total."
    )

    class Meta:
        model = Job
        fields = (
            "id",
            "kind",
            "state",
            "started_by",
            "via",
            "target",
            "target_label",
            "done",
            "total",
            "percent",
            "step",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
            "eta",
            "result",
            "error",
            "retry_of",
        )
        read_only_fields = fields

    @extend_schema_field({"type": "string", "format": "date-time", "nullable": True})
    def get_eta(self, job: Job) -> str | None:
        eta = job.eta()
        return serializers.DateTimeField().to_representation(eta) if eta else None


class JobFilter(filters.FilterSet):
    state = filters.ChoiceFilter(choices=JobState.choices)
    kind = filters.ChoiceFilter(choices=JobKind.choices)

    class Meta:
        model = Job
        fields = ("state", "kind")


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Jobs newest first: a signed-in person's own, every job for staff. A job another
    person started is "not found" to someone who may not see it."""

    serializer_class = JobSerializer
    permission_classes = (IsAuthenticated,)
    filterset_class = JobFilter
    cursor_ordering = ("-pk",)

    def get_queryset(self):
        jobs = Job.objects.select_related("started_by").order_by("-pk")
        user = self.request.user
        if user.is_staff and user.is_active:
            return jobs
        return jobs.filter(started_by=user.pk)
