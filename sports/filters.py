"""Query filters of the sports API."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q
from django_filters import rest_framework as filters

from sports.models import (
    Competition,
    CompetitionStatus,
    Fixture,
    FixtureStatus,
    Participant,
    ParticipantAlias,
    ParticipantType,
    TimelineItem,
    TimelineStatus,
)


class CompetitionFilter(filters.FilterSet):
    sport = filters.CharFilter(field_name="sport__code", help_text="A sport's code.")
    parent = filters.UUIDFilter(field_name="parent", help_text="Only the children of this node.")
    root = filters.BooleanFilter(
        field_name="parent", lookup_expr="isnull", help_text="true: only the roots of trees."
    )
    type = filters.CharFilter(help_text="The node's free word: games, league, season, event…")
    status = filters.ChoiceFilter(choices=CompetitionStatus.choices)

    class Meta:
        model = Competition
        fields = ("sport", "parent", "root", "type", "status")


class FixtureFilter(filters.FilterSet):
    sport = filters.CharFilter(field_name="sport__code", help_text="A sport's code.")
    status = filters.MultipleChoiceFilter(
        choices=FixtureStatus.choices, help_text="Repeat for several statuses."
    )
    scheduled_start = filters.DateFromToRangeFilter(
        help_text="Days, inclusive: scheduled_start_after=2024-07-27&scheduled_start_before=…"
    )

    class Meta:
        model = Fixture
        fields = ("sport", "status", "scheduled_start")


class ParticipantFilter(filters.FilterSet):
    name = filters.CharFilter(
        method="filter_name",
        help_text="Part of a name: the current one or any alias ever observed.",
    )
    type = filters.ChoiceFilter(choices=ParticipantType.choices)
    country = filters.CharFilter(help_text="A three-letter country code.")

    class Meta:
        model = Participant
        fields = ("name", "type", "country")

    def filter_name(self, queryset, name, value):
        # An EXISTS rather than a join on aliases: a participant seen under three matching
        # spellings comes back once, without a DISTINCT over the whole result.
        aliases = ParticipantAlias.objects.filter(participant=OuterRef("pk"), name__icontains=value)
        return queryset.filter(Q(name__icontains=value) | Exists(aliases))


class TimelineFilter(filters.FilterSet):
    event_type = filters.CharFilter(help_text="e.g. football.goal, fixture.amend")
    status = filters.ChoiceFilter(choices=TimelineStatus.choices)

    class Meta:
        model = TimelineItem
        fields = ("event_type", "status")
