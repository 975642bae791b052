"""API shapes of cricket statistics: explicit, typed fields only."""

from __future__ import annotations

from rest_framework import serializers

from cricket.stats.aggregates import FIGURES, SUPER_OVER_MODES
from cricket.stats.models import DatasetRelease, DatasetReleaseJob
from cricket.stats.selectors import TRACEABLE


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
    not_outs = serializers.IntegerField()
    ducks = serializers.IntegerField()
    highest_not_out = serializers.BooleanField()
    average = serializers.FloatField(allow_null=True)
    strike_rate = serializers.FloatField(allow_null=True)
    best_match_wickets = serializers.IntegerField(allow_null=True)
    best_match_runs = serializers.IntegerField(allow_null=True)
    four_wickets = serializers.IntegerField()
    five_wickets = serializers.IntegerField()
    ten_wickets = serializers.IntegerField()
    bowling_average = serializers.FloatField(allow_null=True)
    economy = serializers.FloatField(allow_null=True)
    bowling_strike_rate = serializers.FloatField(allow_null=True)


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
    stale = serializers.BooleanField(help_text="A refresh of figures in this scope is owed.")
    refresh_queued_at = serializers.DateTimeField(allow_null=True)
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
    stale = serializers.BooleanField(help_text="A refresh of this player's figures is owed.")
    refresh_queued_at = serializers.DateTimeField(allow_null=True)
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


# --- the query views (cricket.stats.query_apis) --------------------------------------------


class GroupSerializer(serializers.Serializer):
    by = serializers.CharField()
    key = serializers.CharField(allow_null=True)
    name = serializers.CharField(allow_null=True)


class _PlayerRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    participant_id = serializers.UUIDField()
    registry_id = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    group = GroupSerializer(required=False)
    matches = serializers.IntegerField()


class BattingRowSerializer(_PlayerRowSerializer):
    innings = serializers.IntegerField()
    not_outs = serializers.IntegerField()
    runs = serializers.IntegerField()
    highest = serializers.IntegerField(allow_null=True)
    highest_not_out = serializers.BooleanField()
    highest_score = serializers.CharField(allow_null=True, help_text='"152*" when not out.')
    average = serializers.FloatField(allow_null=True, help_text="Empty with no outs.")
    balls_faced = serializers.IntegerField()
    strike_rate = serializers.FloatField(allow_null=True)
    hundreds = serializers.IntegerField()
    fifties = serializers.IntegerField()
    ducks = serializers.IntegerField()
    fours = serializers.IntegerField()
    sixes = serializers.IntegerField()


class BowlingRowSerializer(_PlayerRowSerializer):
    innings = serializers.IntegerField()
    balls = serializers.IntegerField()
    runs = serializers.IntegerField()
    wickets = serializers.IntegerField()
    maidens = serializers.IntegerField()
    best_innings = serializers.CharField(allow_null=True)
    best_wickets = serializers.IntegerField(allow_null=True)
    best_runs = serializers.IntegerField(allow_null=True)
    best_match = serializers.CharField(allow_null=True)
    best_match_wickets = serializers.IntegerField(allow_null=True)
    best_match_runs = serializers.IntegerField(allow_null=True)
    average = serializers.FloatField(allow_null=True)
    economy = serializers.FloatField(allow_null=True)
    strike_rate = serializers.FloatField(allow_null=True)
    four_wickets = serializers.IntegerField()
    five_wickets = serializers.IntegerField()
    ten_wickets = serializers.IntegerField()


class FieldingRowSerializer(_PlayerRowSerializer):
    dismissals = serializers.IntegerField()
    catches = serializers.IntegerField()
    stumpings = serializers.IntegerField()
    run_outs = serializers.IntegerField()
    sub_catches = serializers.IntegerField()
    sub_stumpings = serializers.IntegerField()
    sub_run_outs = serializers.IntegerField()


class TeamRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    team_id = serializers.UUIDField()
    name = serializers.CharField()
    group = GroupSerializer(required=False)
    matches = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()
    tied = serializers.IntegerField()
    drawn = serializers.IntegerField()
    no_result = serializers.IntegerField()
    innings = serializers.IntegerField()
    runs = serializers.IntegerField()
    wickets = serializers.IntegerField()
    balls = serializers.IntegerField()
    run_rate = serializers.FloatField(allow_null=True)
    average = serializers.FloatField(allow_null=True)
    highest_total = serializers.IntegerField(allow_null=True)
    lowest_total = serializers.IntegerField(allow_null=True)


class InningsRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    fixture_id = serializers.UUIDField()
    fixture = serializers.CharField()
    date = serializers.DateField()
    format = serializers.CharField()
    innings = serializers.IntegerField()
    position = serializers.IntegerField()
    score = serializers.CharField(help_text='"45*" when not out.')
    runs = serializers.IntegerField()
    balls_faced = serializers.IntegerField()
    fours = serializers.IntegerField()
    sixes = serializers.IntegerField()
    strike_rate = serializers.FloatField(allow_null=True)
    not_out = serializers.BooleanField()
    how_out = serializers.CharField()
    team_id = serializers.UUIDField()
    team = serializers.CharField()
    opposition_id = serializers.UUIDField(allow_null=True)
    opposition = serializers.CharField(allow_null=True)
    venue_id = serializers.UUIDField(allow_null=True)
    venue = serializers.CharField(allow_null=True)


class _ViewSerializer(serializers.Serializer):
    query = serializers.DictField(child=serializers.CharField())
    stale = serializers.BooleanField(help_text="A refresh of figures in this scope is owed.")
    refresh_queued_at = serializers.DateTimeField(allow_null=True)
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)


class BattingViewSerializer(_ViewSerializer):
    results = BattingRowSerializer(many=True)


class BowlingViewSerializer(_ViewSerializer):
    results = BowlingRowSerializer(many=True)


class FieldingViewSerializer(_ViewSerializer):
    results = FieldingRowSerializer(many=True)


class TeamViewSerializer(_ViewSerializer):
    results = TeamRowSerializer(many=True)


class InningsViewSerializer(_ViewSerializer):
    results = InningsRowSerializer(many=True)


# --- query parameters (validated by omnium.apis.ApiView, documented from the same class) --


class ScopeQuerySerializer(serializers.Serializer):
    """A statistics scope from the query string. ``format`` is the cricket format;
    ``match_type`` is its deprecated old name (docs/api.md)."""

    format = serializers.CharField(
        required=False, help_text="The cricket format: T20, IT20, ODI, ODM, Test, MDM."
    )
    match_type = serializers.CharField(
        required=False, help_text="Deprecated: the old name of format.", allow_blank=True
    )
    gender = serializers.ChoiceField(choices=["male", "female"], required=False)
    competition = serializers.UUIDField(
        required=False, help_text="A competition node: it and its subtree."
    )
    season = serializers.CharField(
        required=False, help_text="The season as the source writes it (2023, 2023/24)."
    )
    date_from = serializers.DateField(required=False, help_text="On or after this day.")
    date_to = serializers.DateField(required=False, help_text="On or before this day.")
    super_overs = serializers.ChoiceField(
        choices=SUPER_OVER_MODES,
        required=False,
        help_text="Super-over innings are excluded by default; 'only' reads them alone.",
    )

    def validate(self, attrs):
        given, old = attrs.get("format"), attrs.get("match_type")
        if given and old and given != old:
            raise serializers.ValidationError(
                {"match_type": "disagrees with format (match_type is its deprecated name)"}
            )
        return attrs

    def scope_params(self) -> dict[str, str]:
        """The validated values in the names ``scope_from_params`` reads."""
        values = self.validated_data
        params = {
            key: str(values[key])
            for key in ("gender", "competition", "season", "date_from", "date_to", "super_overs")
            if values.get(key) not in (None, "")
        }
        match_type = values.get("format") or values.get("match_type")
        if match_type:
            params["match_type"] = match_type
        return params


LEADERBOARD_ORDERINGS = [
    *(f"-{figure}" for figure in FIGURES),
    *FIGURES,
    "name",
    "-name",
]


class LeaderboardQuerySerializer(ScopeQuerySerializer):
    ordering = serializers.ChoiceField(
        choices=LEADERBOARD_ORDERINGS,
        required=False,
        help_text="A figure or name, '-' for descending; ties by name, then id.",
    )


def leaderboard_query(default: str) -> type[LeaderboardQuerySerializer]:
    """The leaderboard's query with its own default ordering (documented as the default)."""
    field = serializers.ChoiceField(
        choices=LEADERBOARD_ORDERINGS,
        required=False,
        default=default,
        help_text=f"A figure or name, '-' for descending (default {default}); ties by name, "
        "then id.",
    )
    name = f"Leaderboard{default.strip('-').title()}QuerySerializer"
    return type(name, (LeaderboardQuerySerializer,), {"ordering": field})


class TraceQuerySerializer(ScopeQuerySerializer):
    figure = serializers.ChoiceField(choices=list(TRACEABLE))


class LeaderboardPageSerializer(LeaderboardSerializer):
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page; null first.")


class TracePageSerializer(TraceSerializer):
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page; null first.")
