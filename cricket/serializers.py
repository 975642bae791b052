"""API shapes of cricket: explicit fields only."""

from __future__ import annotations

from rest_framework import serializers

from cricket.models import (
    Delivery,
    DeliveryCorrectionHistory,
    DeliveryWicket,
    DeliveryWicketFielder,
)


class PersonRefSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()


class FielderSerializer(serializers.ModelSerializer):
    participant = PersonRefSerializer(allow_null=True)

    class Meta:
        model = DeliveryWicketFielder
        fields = ["participant", "substitute"]


class WicketSerializer(serializers.ModelSerializer):
    player_out = PersonRefSerializer()
    kind = serializers.CharField(source="kind.name")
    credits_bowler = serializers.BooleanField(source="kind.credits_bowler")
    fielders = FielderSerializer(many=True)

    class Meta:
        model = DeliveryWicket
        fields = ["player_out", "kind", "kind_raw", "credits_bowler", "fielders"]


class DeliverySerializer(serializers.ModelSerializer):
    """One live delivery. ``over``/``position`` are its identity; ``ball_label`` is the
    printed number, which repeats after wides and no-balls."""

    innings = serializers.IntegerField(source="innings.ordinal")
    super_over = serializers.BooleanField(source="innings.super_over")
    over = serializers.IntegerField(source="over_number")
    batter = PersonRefSerializer()
    bowler = PersonRefSerializer()
    non_striker = PersonRefSerializer()
    extras = serializers.SerializerMethodField()
    wickets = WicketSerializer(many=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "innings",
            "super_over",
            "sequence",
            "over",
            "position",
            "ball_label",
            "actual_delivery",
            "batter",
            "bowler",
            "non_striker",
            "runs_batter",
            "runs_extras",
            "runs_total",
            "non_boundary",
            "extras",
            "wickets",
            "revision",
        ]

    def get_extras(self, delivery: Delivery) -> dict[str, int | None]:
        return {
            "wides": delivery.extra_wides,
            "noballs": delivery.extra_noballs,
            "byes": delivery.extra_byes,
            "legbyes": delivery.extra_legbyes,
            "penalty": delivery.extra_penalty,
        }


class BattingLineSerializer(serializers.Serializer):
    participant_id = serializers.UUIDField()
    name = serializers.CharField()
    runs = serializers.IntegerField()
    balls = serializers.IntegerField()
    fours = serializers.IntegerField()
    sixes = serializers.IntegerField()
    strike_rate = serializers.FloatField(allow_null=True)
    how_out = serializers.CharField()
    out = serializers.BooleanField()


class BowlingLineSerializer(serializers.Serializer):
    participant_id = serializers.UUIDField()
    name = serializers.CharField()
    overs = serializers.CharField()
    legal_balls = serializers.IntegerField()
    maidens = serializers.IntegerField()
    runs = serializers.IntegerField()
    wickets = serializers.IntegerField()
    wides = serializers.IntegerField()
    noballs = serializers.IntegerField()


class FallOfWicketSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    runs = serializers.IntegerField()
    participant_id = serializers.UUIDField()
    name = serializers.CharField()
    over = serializers.CharField()


class InningsCardSerializer(serializers.Serializer):
    ordinal = serializers.IntegerField()
    team_id = serializers.UUIDField()
    team = serializers.CharField()
    super_over = serializers.BooleanField()
    declared = serializers.BooleanField()
    forfeited = serializers.BooleanField()
    target_runs = serializers.IntegerField(allow_null=True)
    batting = BattingLineSerializer(many=True)
    bowling = BowlingLineSerializer(many=True)
    extras = serializers.DictField(child=serializers.IntegerField())
    penalty_runs = serializers.IntegerField()
    runs = serializers.IntegerField(help_text="Delivery totals plus innings penalty runs.")
    wickets = serializers.IntegerField()
    legal_balls = serializers.IntegerField()
    overs = serializers.CharField()
    fall_of_wickets = FallOfWicketSerializer(many=True)
    did_not_bat = serializers.ListField(child=serializers.CharField())


class ScorecardSerializer(serializers.Serializer):
    fixture = serializers.UUIDField(source="pk")
    name = serializers.CharField()
    innings = InningsCardSerializer(many=True)


# --- corrections -----------------------------------------------------------------------------


class FielderInputSerializer(serializers.Serializer):
    participant = serializers.UUIDField(
        allow_null=True, help_text="Empty only for a substitute the source did not name."
    )
    substitute = serializers.BooleanField(default=False)


class WicketInputSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="A dismissal kind as Cricsheet writes it: caught.")
    player_out = serializers.UUIDField()
    fielders = FielderInputSerializer(many=True, required=False, default=list)


class DeliveryCorrectionRequestSerializer(serializers.Serializer):
    """A correction: a required reason and only the fields that change. ``wickets``, when
    given, is the delivery's whole new wicket list (``[]`` removes every wicket); left out,
    the wickets stay as they are. Runs extras, the total and the printed label are derived."""

    reason = serializers.CharField(help_text="Why the delivery is corrected (kept in its history).")
    runs_batter = serializers.IntegerField(min_value=0, required=False)
    non_boundary = serializers.BooleanField(required=False)
    extra_wides = serializers.IntegerField(min_value=0, allow_null=True, required=False)
    extra_noballs = serializers.IntegerField(min_value=0, allow_null=True, required=False)
    extra_byes = serializers.IntegerField(min_value=0, allow_null=True, required=False)
    extra_legbyes = serializers.IntegerField(min_value=0, allow_null=True, required=False)
    extra_penalty = serializers.IntegerField(min_value=0, allow_null=True, required=False)
    batter = serializers.UUIDField(required=False)
    bowler = serializers.UUIDField(required=False)
    non_striker = serializers.UUIDField(required=False)
    wickets = WicketInputSerializer(many=True, required=False)


class DeliveryRevisionSerializer(DeliverySerializer):
    """One revision of a ball, live or superseded, with its lineage links."""

    class Meta(DeliverySerializer.Meta):
        fields = [
            *DeliverySerializer.Meta.fields,
            "is_current",
            "supersedes",
            "superseded_by",
            "superseded_at",
            "source_event_id",
            "submission",
            "submission_event_ordinal",
            "created_at",
        ]


class DeliveryCorrectionResultSerializer(serializers.Serializer):
    delivery = DeliveryRevisionSerializer(help_text="The new live revision.")
    previous = serializers.IntegerField(source="previous.pk", help_text="The superseded one.")
    history = serializers.IntegerField(source="history.pk")
    fixture = serializers.UUIDField(source="fixture_id")
    participant_ids = serializers.ListField(child=serializers.UUIDField())
    relabelled = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="New revisions of later balls of the over whose printed label moved.",
    )


class CorrectionRecordSerializer(serializers.ModelSerializer):
    requested_by = serializers.CharField(source="requested_by_label")
    reviewed_by = serializers.CharField(source="reviewed_by.get_username", allow_null=True)

    class Meta:
        model = DeliveryCorrectionHistory
        fields = [
            "id",
            "requested_by",
            "requested_at",
            "reason",
            "previous_delivery",
            "resulting_delivery",
            "original_submission",
            "correction_submission",
            "previous_snapshot",
            "resulting_snapshot",
            "reviewed_by",
            "review_decision",
            "reviewed_at",
            "review_reason",
        ]


class DeliveryHistorySerializer(serializers.Serializer):
    source_event_id = serializers.UUIDField()
    revisions = DeliveryRevisionSerializer(many=True, help_text="Oldest first.")
    corrections = CorrectionRecordSerializer(many=True, help_text="Oldest first.")
