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
    ParticipantSport,
    ParticipantType,
    Sport,
    TimelineItem,
    TimelineStatus,
)


def sport_filter() -> filters.ModelChoiceFilter:
    """``sport``: a sport's code; an unknown code is a 400 (not an empty list)."""
    return filters.ModelChoiceFilter(
        field_name="sport",
        to_field_name="code",
        queryset=Sport.objects.all(),
        help_text="A sport's code (cricket, football, …).",
    )


class CompetitionFilter(filters.FilterSet):
    q = filters.CharFilter(field_name="name", lookup_expr="icontains", help_text="Part of a name.")
    sport = sport_filter()
    parent = filters.UUIDFilter(field_name="parent", help_text="Only the children of this node.")
    root = filters.BooleanFilter(
        field_name="parent", lookup_expr="isnull", help_text="true: only the roots of trees."
    )
    type = filters.CharFilter(help_text="The node's free word: games, league, season, event…")
    status = filters.ChoiceFilter(choices=CompetitionStatus.choices)

    class Meta:
        model = Competition
        fields = ("q", "sport", "parent", "root", "type", "status")


class FixtureFilter(filters.FilterSet):
    q = filters.CharFilter(field_name="name", lookup_expr="icontains", help_text="Part of a name.")
    sport = sport_filter()
    competition = filters.ModelChoiceFilter(
        queryset=Competition.objects.all(),
        method="filter_competition",
        help_text="A competition node's id: fixtures on it or anywhere below it.",
    )
    status = filters.MultipleChoiceFilter(
        choices=FixtureStatus.choices, help_text="Repeat for several statuses."
    )
    date_from = filters.DateFilter(
        field_name="scheduled_start",
        lookup_expr="date__gte",
        help_text="Scheduled on or after this day (YYYY-MM-DD).",
    )
    date_to = filters.DateFilter(
        field_name="scheduled_start",
        lookup_expr="date__lte",
        help_text="Scheduled on or before this day (YYYY-MM-DD).",
    )

    class Meta:
        model = Fixture
        fields = ("q", "sport", "competition", "status", "date_from", "date_to")

    def filter_competition(self, queryset, name, value):
        return queryset.under(value)


class ParticipantFilter(filters.FilterSet):
    q = filters.CharFilter(
        method="filter_name",
        help_text="Part of a name: the current one or any alias ever observed.",
    )
    name = filters.CharFilter(
        method="filter_name", help_text="Deprecated: the old name of ``q`` (docs/api.md)."
    )
    sport = filters.ModelChoiceFilter(
        to_field_name="code",
        queryset=Sport.objects.all(),
        method="filter_sport",
        help_text="A sport's code: participants listed under it.",
    )
    type = filters.ChoiceFilter(choices=ParticipantType.choices)
    country = filters.CharFilter(help_text="A three-letter country code.")

    class Meta:
        model = Participant
        fields = ("q", "name", "sport", "type", "country")

    def filter_sport(self, queryset, name, value):
        return queryset.filter(
            Exists(ParticipantSport.objects.filter(participant=OuterRef("pk"), sport=value))
        )

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
