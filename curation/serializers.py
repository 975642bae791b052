"""API shapes of the merge-candidate queue."""

from __future__ import annotations

from rest_framework import serializers

from curation.models import MergeCandidate


class CandidateSerializer(serializers.ModelSerializer):
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True, default=None)

    class Meta:
        model = MergeCandidate
        fields = [
            "id",
            "level",
            "left_id",
            "right_id",
            "score",
            "why",
            "status",
            "detected_at",
            "decided_by",
            "decided_at",
            "decision_note",
        ]


class CandidateDecisionSerializer(serializers.Serializer):
    accept = serializers.BooleanField()
    note = serializers.CharField(help_text="Why you decided this way (required).")
    survivor = serializers.UUIDField(
        required=False, allow_null=True, help_text="Accepting: the side to keep."
    )
    confirm_two_barcodes = serializers.BooleanField(default=False)
