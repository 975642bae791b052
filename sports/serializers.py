"""Serializers of the sports API (reads, and the input of its few writes). Every field is
named; nothing is ``__all__``.

Choice columns are plain strings here: they are varchar + ``TextChoices`` whose value sets
grow without DDL (a new status is a state-only migration), so clients must accept values
they have not seen, and OpenAPI enums would promise a closed set.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from sports.models import (
    Competition,
    CoverageTier,
    ExternalIdMap,
    Fixture,
    FixtureCompetitor,
    FixtureStatus,
    Participant,
    ParticipantAlias,
    Sport,
    TimelineItem,
    Venue,
)


# Two gaps in the DRF stubs, ignored by code where they bite:
# - ``Serializer(..., many=True)`` builds a ListSerializer whose ``data`` is a list, but the
#   stubs type it as the single serializer's dict (``# many=True`` below);
# - a field named like an attribute the stubs give every Field (``parent``, ``source``,
#   ``label``) reads as overriding that attribute; DRF keeps declared fields apart.
class SportSerializer(serializers.ModelSerializer):
    parent = serializers.SlugRelatedField(  # type: ignore[assignment, var-annotated]
        slug_field="code", read_only=True, allow_null=True
    )
    archetype = serializers.CharField(
        read_only=True, allow_null=True, help_text="Default for new fixtures."
    )
    competitor_kind = serializers.CharField(read_only=True, allow_null=True)
    status = serializers.CharField(read_only=True)

    class Meta:
        model = Sport
        fields = ("code", "name", "parent", "archetype", "competitor_kind", "status")
        read_only_fields = fields


class CompetitionSummarySerializer(serializers.ModelSerializer):
    sport: serializers.SlugRelatedField[Sport] = serializers.SlugRelatedField(
        slug_field="code", read_only=True, allow_null=True
    )

    class Meta:
        model = Competition
        fields = ("id", "code", "name", "type", "sport", "level")
        read_only_fields = fields


class CompetitionSerializer(serializers.ModelSerializer):
    sport: serializers.SlugRelatedField[Sport] = serializers.SlugRelatedField(
        slug_field="code", read_only=True, allow_null=True
    )
    status = serializers.CharField(read_only=True)
    effective_fixture_type = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="The nearest fixture_type set on this node or an ancestor.",
    )
    effective_format_code = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="The nearest format_code set on this node or an ancestor.",
    )

    class Meta:
        model = Competition
        fields: tuple[str, ...] = (
            "id",
            "code",
            "name",
            "type",
            "sport",
            "parent",
            "level",
            "status",
            "ordinal",
            "start_date",
            "end_date",
            "fixture_type",
            "format_code",
            "effective_fixture_type",
            "effective_format_code",
        )
        read_only_fields = fields


class CompetitionDetailSerializer(CompetitionSerializer):
    """One node with its place in the tree. The view supplies ``children`` and
    ``breadcrumb`` (one query each) in the serializer context."""

    children = serializers.SerializerMethodField()
    breadcrumb = serializers.SerializerMethodField(
        help_text="The ancestors from the root down to this node's parent."
    )

    class Meta(CompetitionSerializer.Meta):
        fields = (*CompetitionSerializer.Meta.fields, "config", "breadcrumb", "children")
        read_only_fields = fields

    @extend_schema_field(CompetitionSummarySerializer(many=True))
    def get_children(self, obj: Competition) -> list[dict[str, Any]]:
        rows = CompetitionSummarySerializer(self.context["children"], many=True)
        return rows.data  # type: ignore[return-value]  # many=True

    @extend_schema_field(CompetitionSummarySerializer(many=True))
    def get_breadcrumb(self, obj: Competition) -> list[dict[str, Any]]:
        rows = CompetitionSummarySerializer(self.context["breadcrumb"], many=True)
        return rows.data  # type: ignore[return-value]  # many=True


class VenueSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Venue
        fields = ("code", "name", "city", "country")
        read_only_fields = fields


class ParticipantSummarySerializer(serializers.ModelSerializer):
    type = serializers.CharField(read_only=True)

    class Meta:
        model = Participant
        fields = ("id", "code", "name", "type", "country")
        read_only_fields = fields


class FixtureCompetitorSerializer(serializers.ModelSerializer):
    """A side or entrant; ``members`` are the players nested under a side."""

    participant = ParticipantSummarySerializer(read_only=True, allow_null=True)
    result_status = serializers.CharField(read_only=True)
    win_method = serializers.CharField(read_only=True)
    members = serializers.SerializerMethodField()

    class Meta:
        model = FixtureCompetitor
        fields = (
            "id",
            "participant",
            "placeholder_label",
            "alignment",
            "ordinal",
            "slot",
            "result_status",
            "status_code",
            "rank",
            "win_method",
            "entry",
            "result",
            "members",
        )
        read_only_fields = fields

    @extend_schema_field(
        {"type": "array", "items": {"$ref": "#/components/schemas/FixtureCompetitor"}}
    )
    def get_members(self, obj: FixtureCompetitor) -> list[dict[str, Any]]:
        members = self.context["members_of"].get(obj.pk, [])
        rows = FixtureCompetitorSerializer(members, many=True, context=self.context)
        return rows.data  # type: ignore[return-value]  # many=True


class FixtureSerializer(serializers.ModelSerializer):
    sport: serializers.SlugRelatedField[Sport] = serializers.SlugRelatedField(
        slug_field="code", read_only=True
    )
    competition = CompetitionSummarySerializer(read_only=True, allow_null=True)
    venue = VenueSummarySerializer(read_only=True, allow_null=True)
    archetype = serializers.CharField(read_only=True)
    status = serializers.CharField(read_only=True)
    coverage_tier = serializers.CharField(read_only=True)

    class Meta:
        model = Fixture
        fields: tuple[str, ...] = (
            "id",
            "code",
            "name",
            "sport",
            "competition",
            "venue",
            "archetype",
            "fixture_type",
            "format_code",
            "status",
            "results_official",
            "coverage_tier",
            "scheduled_start",
            "result",
        )
        read_only_fields = fields


class FixtureDetailSerializer(FixtureSerializer):
    definition_version = serializers.IntegerField(
        source="definition_version.version",
        read_only=True,
        allow_null=True,
        help_text="The version of the sport's definition this fixture was made with.",
    )
    competitors = serializers.SerializerMethodField(
        help_text="Sides and entrants in order, each with its players under ``members``."
    )

    class Meta(FixtureSerializer.Meta):
        fields = (
            *FixtureSerializer.Meta.fields,
            "format",
            "meta",
            "live_state",
            "pinned",
            "version",
            "last_seq",
            "definition_version",
            "competitors",
        )
        read_only_fields = fields

    @extend_schema_field(FixtureCompetitorSerializer(many=True))
    def get_competitors(self, obj: Fixture) -> list[dict[str, Any]]:
        # The competitors arrive prefetched (Fixture.objects.with_competitors()); the tree
        # of sides and players is assembled here without another query.
        members_of: dict[Any, list[FixtureCompetitor]] = {}
        for competitor in obj.competitors.all():
            members_of.setdefault(competitor.parent_id, []).append(competitor)
        rows = FixtureCompetitorSerializer(
            members_of.get(None, []), many=True, context={"members_of": members_of}
        )
        return rows.data  # type: ignore[return-value]  # many=True


class AliasSerializer(serializers.ModelSerializer):
    source = serializers.CharField(source="source_code", read_only=True)  # type: ignore[assignment]

    class Meta:
        model = ParticipantAlias
        fields = ("name", "source", "first_seen", "last_seen")
        read_only_fields = fields


class ExternalIdSerializer(serializers.ModelSerializer):
    source = serializers.CharField(source="source_code", read_only=True)  # type: ignore[assignment]
    internal_id = serializers.UUIDField(
        read_only=True,
        help_text="The row the id was given to: this participant, or one merged into it.",
    )

    class Meta:
        model = ExternalIdMap
        fields = ("source", "external_id", "internal_id")
        read_only_fields = fields


class ParticipantSerializer(serializers.ModelSerializer):
    sport: serializers.SlugRelatedField[Sport] = serializers.SlugRelatedField(
        slug_field="code",
        read_only=True,
        allow_null=True,
        help_text="The sport the record was created in.",
    )
    type = serializers.CharField(read_only=True)

    class Meta:
        model = Participant
        fields: tuple[str, ...] = ("id", "code", "name", "type", "country", "born_on", "sport")
        read_only_fields = fields


class ParticipantDetailSerializer(ParticipantSerializer):
    aliases = AliasSerializer(many=True, read_only=True)
    seen_by = serializers.SerializerMethodField(
        help_text="Codes of the sports that see this record; empty means every sport."
    )
    external_ids = serializers.SerializerMethodField()

    class Meta(ParticipantSerializer.Meta):
        fields = (*ParticipantSerializer.Meta.fields, "meta", "aliases", "seen_by", "external_ids")
        read_only_fields = fields

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_seen_by(self, obj: Participant) -> list[str]:
        return [link.sport.code for link in obj.sports.all()]

    @extend_schema_field(ExternalIdSerializer(many=True))
    def get_external_ids(self, obj: Participant) -> list[dict[str, Any]]:
        rows = ExternalIdSerializer(self.context["external_ids"], many=True)
        return rows.data  # type: ignore[return-value]  # many=True


class LookupQuerySerializer(serializers.Serializer):
    source = serializers.CharField(help_text="The source's code, e.g. cricsheet.")  # type: ignore[assignment]
    external_id = serializers.CharField(help_text="The participant's id at that source.")


class TimelineItemSerializer(serializers.ModelSerializer):
    status = serializers.CharField(read_only=True)
    supersedes: serializers.PrimaryKeyRelatedField[TimelineItem] = (
        serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    )
    payload = serializers.JSONField(read_only=True)

    class Meta:
        model = TimelineItem
        # ``actor`` stays out: it names staff accounts, which the public API does not show.
        fields: tuple[str, ...] = (
            "id",
            "seq",
            "event_type",
            "unit",
            "source_code",
            "status",
            "supersedes",
            "payload",
            "created_at",
        )
        read_only_fields = fields


__all__ = [
    "CompetitionDetailSerializer",
    "CompetitionSerializer",
    "FixtureDetailSerializer",
    "FixtureSerializer",
    "LookupQuerySerializer",
    "ParticipantDetailSerializer",
    "ParticipantSerializer",
    "SportSerializer",
    "TimelineItemSerializer",
]


class MedalRowSerializer(serializers.Serializer):
    """One country's line in a medal table."""

    rank = serializers.IntegerField(help_text="Shared by countries with equal counts.")
    country = serializers.CharField(help_text="NOC code, e.g. FRA, AIN, EOR.")
    gold = serializers.IntegerField()
    silver = serializers.IntegerField()
    bronze = serializers.IntegerField()
    total = serializers.IntegerField()


class StandingRowSerializer(serializers.Serializer):
    """One team's line in a league table."""

    position = serializers.IntegerField()
    team = serializers.CharField()
    team_id = serializers.UUIDField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    drawn = serializers.IntegerField()
    lost = serializers.IntegerField()
    goals_for = serializers.IntegerField()
    goals_against = serializers.IntegerField()
    goal_difference = serializers.IntegerField()
    points = serializers.IntegerField()
    adjustment = serializers.IntegerField(
        required=False, help_text="Points added (or deducted, negative) by decisions."
    )


class FixtureAmendRequestSerializer(serializers.Serializer):
    """A hand amendment: the fields to change (only those sent), the reason, and whether
    to pin them. Applied by ``fixture_amend``, as in the console."""

    name = serializers.CharField(max_length=256, allow_blank=True, required=False)
    scheduled_start = serializers.DateTimeField(allow_null=True, required=False)
    venue = serializers.PrimaryKeyRelatedField(
        queryset=Venue.objects.all(), allow_null=True, required=False
    )
    status = serializers.ChoiceField(choices=FixtureStatus.choices, required=False)
    coverage_tier = serializers.ChoiceField(choices=CoverageTier.choices, required=False)
    results_official = serializers.BooleanField(required=False)
    meta = serializers.JSONField(
        required=False,
        help_text="The fixture's own facts, whole; checked against the sport's definition "
        "(the version the fixture pinned).",
    )
    reason = serializers.CharField(
        max_length=2000, help_text="Why: kept on each amendment and in the fixture's log."
    )
    pin = serializers.BooleanField(
        default=True, help_text="Pin the changed fields, so later imports leave them alone."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not set(attrs) - {"reason", "pin"}:
            raise serializers.ValidationError("Name at least one field to change.")
        return attrs

    def validate_meta(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise serializers.ValidationError("A fixture's meta is an object of named facts.")
        return value

    def changes(self) -> dict[str, Any]:
        return {k: v for k, v in self.validated_data.items() if k not in ("reason", "pin")}


class VoidRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=2000, help_text="Why the item is withdrawn: kept in the log beside it."
    )


class CorrectionRequestSerializer(serializers.Serializer):
    payload = serializers.JSONField(
        help_text="The command's corrected input, whole (the sport's schema for the command)."
    )
    reason = serializers.CharField(
        max_length=2000, help_text="Why the item is corrected: kept in the log beside it."
    )

    def validate_payload(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise serializers.ValidationError("A command's payload is an object.")
        return value
