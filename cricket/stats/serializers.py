"""API shapes of cricket statistics: explicit, typed fields only."""

from __future__ import annotations

from rest_framework import serializers

from cricket.stats.aggregates import SUPER_OVER_MODES
from cricket.stats.models import DatasetRelease, DatasetReleaseJob


class FiguresSerializer(serializers.Serializer):
    matches = serializers.IntegerField()
    innings = serializers.IntegerField()
    runs = serializers.IntegerField()
    balls_faced = serializers.IntegerField()
    fours = serializers.IntegerField()
    sixes = serializers.IntegerField()
    outs = serializers.IntegerField()
    highest = serializers.IntegerField(allow_null=True)
    fifties = serializers.IntegerField()
    hundreds = serializers.IntegerField()
    catches = serializers.IntegerField()
    stumpings = serializers.IntegerField()
    run_outs = serializers.IntegerField()
    substitute_catches = serializers.IntegerField()
    substitute_stumpings = serializers.IntegerField()
    substitute_run_outs = serializers.IntegerField()
    bowling_innings = serializers.IntegerField()
    legal_balls = serializers.IntegerField()
    runs_conceded = serializers.IntegerField()
    wickets = serializers.IntegerField()
    maidens = serializers.IntegerField()
    best_wickets = serializers.IntegerField(allow_null=True)
    best_runs = serializers.IntegerField(allow_null=True)


class LeaderboardRowSerializer(FiguresSerializer):
    rank = serializers.IntegerField()
    participant_id = serializers.UUIDField()
    registry_id = serializers.CharField(allow_null=True)
    name = serializers.CharField()


class ScopeSerializer(serializers.Serializer):
    match_type = serializers.CharField(allow_null=True)
    gender = serializers.CharField(allow_null=True)
    competition = serializers.CharField(allow_null=True)
    season = serializers.CharField(allow_null=True)
    date_from = serializers.CharField(allow_null=True)
    date_to = serializers.CharField(allow_null=True)
    super_overs = serializers.ChoiceField(choices=SUPER_OVER_MODES)


class LeaderboardSerializer(serializers.Serializer):
    scope = ScopeSerializer()
    ordering = serializers.CharField()
    count = serializers.IntegerField()
    results = LeaderboardRowSerializer(many=True)


class CareerRowSerializer(FiguresSerializer):
    format = serializers.CharField(help_text='A format code, or "all".')


class InningsLineSerializer(serializers.Serializer):
    fixture_id = serializers.UUIDField()
    fixture = serializers.CharField(source="fixture.name")
    occurred_on = serializers.DateField()
    format_code = serializers.CharField()
    innings = serializers.IntegerField(source="innings_ordinal")
    super_over = serializers.BooleanField()
    runs = serializers.IntegerField()
    balls_faced = serializers.IntegerField()
    fours = serializers.IntegerField()
    sixes = serializers.IntegerField()
    outs = serializers.IntegerField()


class PlayerCareerSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    registry_ids = serializers.ListField(child=serializers.CharField())
    formats = CareerRowSerializer(many=True)
    super_overs = CareerRowSerializer(many=True)
    innings = InningsLineSerializer(many=True)


class TraceSubmissionSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.CharField()
    source_code = serializers.CharField()
    original_filename = serializers.CharField()
    sha256 = serializers.CharField()
    accepted = serializers.BooleanField()
    accepted_at = serializers.DateTimeField(allow_null=True)


class TraceDeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    revision = serializers.IntegerField()
    source_event_id = serializers.UUIDField()
    fixture_id = serializers.UUIDField(source="innings.fixture_id")
    fixture = serializers.CharField(source="innings.fixture.name")
    innings = serializers.IntegerField(source="innings.ordinal")
    over = serializers.IntegerField(source="over_number")
    position = serializers.IntegerField()
    ball_label = serializers.CharField()
    runs_batter = serializers.IntegerField()
    runs_total = serializers.IntegerField()
    submission = TraceSubmissionSerializer()


class TraceSerializer(serializers.Serializer):
    participant_id = serializers.UUIDField()
    figure = serializers.CharField()
    scope = ScopeSerializer()
    count = serializers.IntegerField()
    results = TraceDeliverySerializer(many=True)


class ReleaseFileSerializer(serializers.Serializer):
    name = serializers.CharField()
    rows = serializers.IntegerField(required=False)
    bytes = serializers.IntegerField()
    sha256 = serializers.CharField()


class DatasetReleaseSerializer(serializers.ModelSerializer):
    files = ReleaseFileSerializer(many=True)

    class Meta:
        model = DatasetRelease
        fields = ["id", "scope", "actor", "created_at", "files", "manifest_sha256"]


class DatasetReleaseJobSerializer(serializers.ModelSerializer):
    class Meta:
        model = DatasetReleaseJob
        fields = ["id", "scope", "actor", "status", "release", "error", "created_at"]


class ReleaseRequestSerializer(serializers.Serializer):
    match_type = serializers.CharField(required=False, allow_blank=True)
    gender = serializers.ChoiceField(choices=["male", "female"], required=False)
    competition = serializers.UUIDField(required=False)
    season = serializers.CharField(required=False, allow_blank=True)
    date_from = serializers.DateField(required=False)
    date_to = serializers.DateField(required=False)
    super_overs = serializers.ChoiceField(choices=SUPER_OVER_MODES, default="exclude")
