"""API shapes of the provenance trace: explicit, typed fields only (read from the dicts
``ingest.provenance.selectors`` builds)."""

from __future__ import annotations

from rest_framework import serializers

from cricket.stats.selectors import TRACEABLE
from cricket.stats.serializers import ScopeQuerySerializer, ScopeSerializer
from ingest.provenance.selectors import DEFAULT_FIXTURES, FIGURES_OF, MAX_FIXTURES


class ProvenancePersonSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField(help_text='The display name, or "deleted account".')
    tombstoned = serializers.BooleanField()
    tombstoned_at = serializers.DateTimeField(allow_null=True)


class ProvenanceParticipantSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()


class ProvenanceCompetitionSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()


class ProvenanceFixtureSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    occurred_on = serializers.DateField()
    competition = ProvenanceCompetitionSerializer(allow_null=True)


class ProvenanceExtrasSerializer(serializers.Serializer):
    wides = serializers.IntegerField(allow_null=True)
    noballs = serializers.IntegerField(allow_null=True)
    byes = serializers.IntegerField(allow_null=True)
    legbyes = serializers.IntegerField(allow_null=True)
    penalty = serializers.IntegerField(allow_null=True)


class ProvenanceFielderSerializer(serializers.Serializer):
    participant = ProvenanceParticipantSerializer(allow_null=True)
    substitute = serializers.BooleanField()


class ProvenanceWicketSerializer(serializers.Serializer):
    kind = serializers.CharField()
    player_out = ProvenanceParticipantSerializer()
    fielders = ProvenanceFielderSerializer(many=True)


class ProvenanceChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    previous = serializers.JSONField(allow_null=True)
    resulting = serializers.JSONField(allow_null=True)


class ProvenanceReviewSerializer(serializers.Serializer):
    reviewer = ProvenancePersonSerializer()
    decision = serializers.CharField()
    reason = serializers.CharField()
    decided_at = serializers.DateTimeField()


class ProvenanceCorrectionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    requested_at = serializers.DateTimeField()
    requested_by = ProvenancePersonSerializer(allow_null=True)
    requested_by_label = serializers.CharField(
        allow_blank=True, help_text="The automated writer, when no person asked."
    )
    reason = serializers.CharField()
    previous_revision = serializers.IntegerField()
    resulting_revision = serializers.IntegerField()
    previous_delivery_id = serializers.IntegerField()
    resulting_delivery_id = serializers.IntegerField()
    changes = ProvenanceChangeSerializer(many=True)
    correction_submission_id = serializers.UUIDField(allow_null=True)
    review = ProvenanceReviewSerializer(allow_null=True)


class ProvenanceTracedDeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The live revision's row.")
    revision = serializers.IntegerField()
    source_event_id = serializers.UUIDField()
    fixture_id = serializers.UUIDField()
    innings = serializers.IntegerField()
    over = serializers.IntegerField()
    position = serializers.IntegerField(help_text="0-based index in the over's array.")
    sequence = serializers.IntegerField()
    ball_label = serializers.CharField()
    batter = ProvenanceParticipantSerializer()
    bowler = ProvenanceParticipantSerializer()
    non_striker = ProvenanceParticipantSerializer()
    runs_batter = serializers.IntegerField()
    runs_extras = serializers.IntegerField()
    runs_total = serializers.IntegerField()
    non_boundary = serializers.BooleanField()
    extras = ProvenanceExtrasSerializer()
    wickets = ProvenanceWicketSerializer(many=True)
    contribution = serializers.IntegerField(help_text="What this ball adds to the figure.")
    submission_id = serializers.UUIDField()
    corrections = ProvenanceCorrectionSerializer(many=True)


class ProvenanceSubmissionSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.CharField()
    source_code = serializers.CharField()
    original_filename = serializers.CharField(allow_blank=True)
    sha256 = serializers.CharField(allow_blank=True)
    byte_size = serializers.IntegerField(allow_null=True)
    submitted_at = serializers.DateTimeField()
    accepted = serializers.BooleanField()
    accepted_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField(allow_blank=True)


class ProvenanceBatchItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ordinal = serializers.IntegerField()
    source_identity = serializers.CharField()
    filename = serializers.CharField()
    sha256 = serializers.CharField()
    byte_size = serializers.IntegerField()
    operation = serializers.CharField()
    publication = serializers.CharField()
    published_at = serializers.DateTimeField(allow_null=True)


class ProvenanceBatchSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    state = serializers.CharField()
    competition = ProvenanceCompetitionSerializer(allow_null=True)
    idempotency_key = serializers.CharField()
    package_sha256 = serializers.CharField()
    created_at = serializers.DateTimeField()
    submitter = ProvenancePersonSerializer()


class ProvenanceStoredObjectSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    sha256 = serializers.CharField()
    byte_size = serializers.IntegerField()
    media_type = serializers.CharField()
    original_name = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    retention_state = serializers.CharField(help_text='"retained", or "expired" (bytes deleted).')
    bytes_available = serializers.BooleanField()
    deleted_at = serializers.DateTimeField(allow_null=True)


class ProvenanceSourceSerializer(serializers.Serializer):
    submission = ProvenanceSubmissionSerializer()
    submitter = ProvenancePersonSerializer(
        allow_null=True, help_text="Empty for an automated import."
    )
    batch_item = ProvenanceBatchItemSerializer(allow_null=True)
    batch = ProvenanceBatchSerializer(allow_null=True)
    stored_object = ProvenanceStoredObjectSerializer(allow_null=True)
    review_decisions = ProvenanceReviewSerializer(many=True)
    explanation = serializers.CharField(
        allow_blank=True, help_text="Why a link of the chain is absent or its bytes are gone."
    )


class ProvenanceLineSerializer(serializers.Serializer):
    kind = serializers.CharField()
    id = serializers.IntegerField()
    innings = serializers.IntegerField()
    super_over = serializers.BooleanField()
    fixture = ProvenanceFixtureSerializer()


class ProvenanceLineTraceSerializer(serializers.Serializer):
    figure = serializers.CharField()
    participant = ProvenanceParticipantSerializer()
    value = serializers.IntegerField(help_text="The figure as the statistic line states it.")
    contributed = serializers.IntegerField(help_text="The sum of the deliveries' contributions.")
    line = ProvenanceLineSerializer()
    deliveries = ProvenanceTracedDeliverySerializer(many=True)
    sources = ProvenanceSourceSerializer(many=True)


class ProvenanceFixtureGroupSerializer(serializers.Serializer):
    fixture = ProvenanceFixtureSerializer()
    value = serializers.IntegerField(help_text="The figure in this fixture, from its lines.")
    contributed = serializers.IntegerField()
    deliveries = ProvenanceTracedDeliverySerializer(many=True)


class ProvenanceAggregateTraceSerializer(serializers.Serializer):
    figure = serializers.CharField()
    participant = ProvenanceParticipantSerializer()
    scope = ScopeSerializer()
    value = serializers.IntegerField(help_text="The whole figure in the scope.")
    fixtures_total = serializers.IntegerField()
    fixtures = ProvenanceFixtureGroupSerializer(many=True)
    next_cursor = serializers.CharField(allow_null=True)
    sources = ProvenanceSourceSerializer(many=True)


# --- query parameters (validated by omnium.apis.ApiView) ---------------------------------


class LineTraceQuerySerializer(serializers.Serializer):
    figure = serializers.ChoiceField(
        choices=list(TRACEABLE),
        required=False,
        help_text="One of the line's figures: "
        + "; ".join(f"{k}: {', '.join(v)}" for k, v in FIGURES_OF.items())
        + ". The first of the line's kind when omitted.",
    )


class AggregateTraceQuerySerializer(ScopeQuerySerializer):
    figure = serializers.ChoiceField(choices=list(TRACEABLE))
    fixtures = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_FIXTURES,
        help_text=f"Fixtures a page (default {DEFAULT_FIXTURES}, at most {MAX_FIXTURES}), "
        "oldest first.",
    )
    cursor = serializers.CharField(required=False, help_text="The previous page's next_cursor.")
