"""API of the sports spine: sports, the competition tree, fixtures, participants and each
fixture's log. Reads are public (AllowAny is the project default); the few writes are for
editors and call the same services as the console.

Optimistic concurrency: a fixture's ETag starts with its version (``"7-3f2a…"``). A write
to the fixture that sends it back in ``If-Match`` is applied only if the fixture is still at
that version when the service holds its row lock; otherwise it answers 412 in the one error
shape and nothing changes. Without ``If-Match`` the write is not checked.

Merged records: the URL of a merged competition, fixture or participant answers
``301 Moved Permanently`` with the survivor's URL in ``Location`` (the query string kept).
A merge is permanent and the loser keeps its row, so old links and stored ids keep
working for any client that follows redirects, and a client that does not can see that
the record moved. Lists show canonical rows only. ``participants/lookup/`` is a question
rather than a resource, so it answers with the survivor directly.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.core.exceptions import ValidationError
from django.db.models import BigIntegerField, F, Prefetch, Value
from django.db.models.functions import Cast, Coalesce
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from accounts.acting import request_actors
from omnium.auth import signed_in
from omnium.conditional import conditional, etag_for, if_match_version
from omnium.exceptions import ParameterError
from omnium.filters import unknown_parameters
from omnium.pagination import CountedPagePagination
from sports.api_examples import COMPETITIONS_EXAMPLE, FIXTURES_EXAMPLE
from sports.filters import CompetitionFilter, FixtureFilter, ParticipantFilter, TimelineFilter
from sports.freshness import competition_freshness, fixture_freshness, participant_freshness
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    Fixture,
    Participant,
    ParticipantAlias,
    ParticipantSport,
    Sport,
    TableKind,
    TimelineItem,
)
from sports.querysets import follow_merges
from sports.serializers import (
    CompetitionDetailSerializer,
    CompetitionSerializer,
    CorrectionRequestSerializer,
    FixtureAmendRequestSerializer,
    FixtureDetailSerializer,
    FixtureSerializer,
    LookupQuerySerializer,
    MedalRowSerializer,
    ParticipantDetailSerializer,
    ParticipantSerializer,
    SportSerializer,
    StandingRowSerializer,
    TimelineItemSerializer,
    VoidRequestSerializer,
)
from sports.services import fixture_amend, fixture_command_correct, stat_table, timeline_void
from sports.services.common import may_edit

UUID_PATTERN = "[0-9a-fA-F-]{36}"
# Sorts fixtures without a start time after every scheduled one.
UNSCHEDULED = datetime(9999, 12, 31, tzinfo=UTC)

MOVED = OpenApiResponse(
    description="The record was merged: Location names the survivor's URL (query string kept)."
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description='The fixture\'s ETag from your read (or its version in quotes, "7"): the '
    "write is applied only if the fixture is still at that version. Without it, unchecked.",
)
STALE = OpenApiResponse(
    description="If-Match names another version than the fixture's: someone wrote first. "
    "Nothing changed; read the fixture again."
)
# The fixture's version in its freshness tuple (sports.freshness), which heads its ETag.
FIXTURE_VERSION_AT = 1


class MayEditFixtures(BasePermission):
    message = "Only editors and administrators may change fixtures."

    def has_permission(self, request, view) -> bool:
        return may_edit(request.user)


# Fixture lists by start time, then id. The cursor compares one column and cannot compare
# NULL, so it pages on ``kickoff``: the start time, or the far future for unscheduled ones.
FIXTURE_ORDERINGS = {
    "scheduled_start": ("kickoff", "id"),
    "-scheduled_start": ("-kickoff", "-id"),
}
# Tree order in one sortable number (the cursor keeps one column's position): the tree,
# then the node's left value, which is unique within its tree.
TREE_ORDER = Cast("tree_id", BigIntegerField()) * 100_000_000 + F("lft")


def _with_kickoff(fixtures):
    return fixtures.annotate(kickoff=Coalesce("scheduled_start", Value(UNSCHEDULED)))


def _fixture_list(fixtures):
    return _with_kickoff(
        fixtures.canonical().select_related("sport", "competition__sport", "venue")
    )


def _moved_to_survivor(request: Request, model, pk, url_name: str) -> Response:
    survivor = follow_merges(model, pk)
    location = reverse(url_name, kwargs={"pk": survivor}, request=request)
    query = request.META.get("QUERY_STRING")
    return Response(status=301, headers={"Location": f"{location}?{query}" if query else location})


@extend_schema_view(
    list=extend_schema(summary="Sports"),
    retrieve=extend_schema(summary="One sport, by code"),
)
class SportViewSet(viewsets.ReadOnlyModelViewSet):
    # A small, fixed list: page numbers with the count.
    pagination_class = CountedPagePagination
    queryset = Sport.objects.select_related("parent").order_by("name")
    serializer_class = SportSerializer
    lookup_field = "code"


@extend_schema_view(
    list=extend_schema(
        summary="Competition nodes (canonical), in tree order", examples=[COMPETITIONS_EXAMPLE]
    ),
)
class CompetitionViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = CompetitionSerializer
    filterset_class = CompetitionFilter
    lookup_value_regex = UUID_PATTERN
    cursor_ordering = ("tree_order",)
    cursor_orderings: dict | None = None
    # Set on the tables (actions): why the list is answered whole (omnium.api_lists).
    small_fixed_list = ""
    list_order = ""

    def get_queryset(self):
        if self.action == "fixtures":
            return _fixture_list(Fixture.objects.visible_to(self.request.user))
        nodes = Competition.objects.with_effective().select_related("sport")
        if self.action == "list":
            nodes = nodes.canonical()
        return nodes.annotate(tree_order=TREE_ORDER).order_by("tree_id", "lft")

    @extend_schema(
        summary="One node with its children, breadcrumb and effective type and format",
        responses={200: CompetitionDetailSerializer, 301: MOVED},
    )
    @conditional(competition_freshness, cache_seconds=300)
    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        node = self.get_object()
        if node.merged_into_id is not None:
            return _moved_to_survivor(request, Competition, node.pk, "competition-detail")
        children = (
            Competition.objects.canonical()
            .filter(parent=node)
            .select_related("sport")
            .order_by("lft")
        )
        context = {
            **self.get_serializer_context(),
            "children": children,
            "breadcrumb": node.get_ancestors().select_related("sport"),
        }
        return Response(CompetitionDetailSerializer(node, context=context).data)

    @extend_schema(
        summary="Every fixture on this node or anywhere below it",
        responses={200: FixtureSerializer(many=True), 301: MOVED},
    )
    @action(
        detail=True,
        serializer_class=FixtureSerializer,
        filterset_class=FixtureFilter,
        cursor_orderings=FIXTURE_ORDERINGS,
    )
    def fixtures(self, request: Request, pk=None) -> Response:
        node: Competition = get_object_or_404(Competition.objects.all(), pk=pk)
        if node.merged_into_id is not None:
            return _moved_to_survivor(request, Competition, node.pk, "competition-fixtures")
        fixtures = self.filter_queryset(
            _fixture_list(Fixture.objects.visible_to(request.user).under(node))
        )
        page = self.paginate_queryset(fixtures)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def _table(self, request: Request, pk, kind: str, url_name: str) -> Response:
        unknown_parameters(request.query_params.keys(), ())
        node: Competition = get_object_or_404(Competition.objects.all(), pk=pk)
        if node.merged_into_id is not None:
            return _moved_to_survivor(request, Competition, node.pk, url_name)
        return Response(stat_table(node=node, kind=kind))

    @extend_schema(
        summary="Medal table folded over this node (a Games root, a sport, an event)",
        description="Counts per country (NOC code) from the recorded medals only; ranked by "
        "gold, then silver, then bronze; equal counts share a rank.",
        responses={200: MedalRowSerializer(many=True), 301: MOVED},
    )
    @action(
        detail=True,
        url_path="medal-table",
        pagination_class=None,
        filterset_class=None,
        small_fixed_list="one row per country with a medal",
        list_order="gold, then silver, then bronze",
    )
    def medal_table(self, request: Request, pk=None) -> Response:
        return self._table(request, pk, TableKind.MEDALS, "competition-medal-table")

    @extend_schema(
        summary="League table folded over the completed fixtures under this node",
        description="Points per result and the tie-break order come from the competition's "
        "config, inherited down the tree; points adjustments are included. A sport with its "
        "own table answers with that table's rows: a cricket competition gives its points "
        "table (as /cricket/competitions/{id}/points-table/), never goal columns.",
        responses={200: StandingRowSerializer(many=True), 301: MOVED},
    )
    @action(
        detail=True,
        url_path="standings",
        pagination_class=None,
        filterset_class=None,
        small_fixed_list="one row per side of the league",
        list_order="the competition's points and tie-breaks",
    )
    def standings(self, request: Request, pk=None) -> Response:
        return self._table(request, pk, TableKind.STANDINGS, "competition-standings")


@extend_schema_view(
    list=extend_schema(summary="Fixtures (canonical), by start time", examples=[FIXTURES_EXAMPLE]),
)
class FixtureViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = FixtureSerializer
    filterset_class = FixtureFilter
    lookup_value_regex = UUID_PATTERN
    cursor_orderings: dict | None = FIXTURE_ORDERINGS
    cursor_ordering: tuple[str, ...] = ("kickoff", "id")

    def get_queryset(self):
        if self.action == "timeline":
            return TimelineItem.objects.all()
        if self.action in ("retrieve", "partial_update", "void", "correct"):
            return (
                Fixture.objects.visible_to(self.request.user)
                .with_competitors()
                .select_related("competition__sport", "definition_version")
            )
        return _fixture_list(Fixture.objects.visible_to(self.request.user))

    @extend_schema(
        summary="One fixture with its sides, entrants and their players",
        responses={200: FixtureDetailSerializer, 301: MOVED},
    )
    @conditional(fixture_freshness, cache_seconds=300, version_at=FIXTURE_VERSION_AT)
    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        fixture = self.get_object()
        if fixture.merged_into_id is not None:
            return _moved_to_survivor(request, Fixture, fixture.pk, "fixture-detail")
        return Response(
            FixtureDetailSerializer(fixture, context=self.get_serializer_context()).data
        )

    def get_permissions(self):
        if self.action == "partial_update":
            return [MayEditFixtures()]
        return super().get_permissions()

    @extend_schema(
        summary="Amend a fixture by hand (editors)",
        description="Each field sent is changed and recorded as an amendment with the reason "
        "(pinned unless ``pin`` is false), as in the console. Answers the fixture as its "
        "detail read does, with its new ETag.",
        parameters=[IF_MATCH],
        request=FixtureAmendRequestSerializer,
        responses={
            200: FixtureDetailSerializer,
            400: OpenApiResponse(description="No field, no reason, or a value is invalid."),
            403: OpenApiResponse(description="Not an editor or administrator."),
            404: OpenApiResponse(description="No such fixture."),
            412: STALE,
        },
    )
    def partial_update(self, request: Request, pk=None) -> Response:
        fixture = get_object_or_404(
            Fixture.objects.visible_to(request.user).only("pk", "merged_into"), pk=pk
        )
        if fixture.merged_into_id is not None:
            raise ValidationError(
                f"This fixture is merged into {fixture.merged_into_id}; amend that one."
            )
        data = FixtureAmendRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        expected_version = if_match_version(request)
        fixture_amend(
            fixture=fixture,
            changes=data.changes(),
            reason=data.validated_data["reason"],
            pin=data.validated_data["pin"],
            actor=signed_in(request_actors(request)["actor"]),
            expected_version=expected_version,
        )
        return self._written(request, pk)

    @extend_schema(
        summary="Void an item of the fixture's log (editors)",
        description="The item (by its ``seq``) stays in the log, marked voided, and the void "
        "is logged with the reason. When it is one of the sport's commands, the scoreboard, "
        "result and statistics are rebuilt from the rest of the log in the same step. Answers "
        "the fixture as its detail read does, with its new ETag.",
        parameters=[IF_MATCH],
        request=VoidRequestSerializer,
        responses={
            200: FixtureDetailSerializer,
            400: OpenApiResponse(
                description="No reason; the item is not live (already voided or superseded); "
                "or the rest of the log would no longer replay."
            ),
            403: OpenApiResponse(description="Not an editor or administrator."),
            404: OpenApiResponse(description="No such fixture, or no item at that seq."),
            412: STALE,
        },
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"timeline/(?P<seq>[0-9]{1,18})/void",
        permission_classes=(MayEditFixtures,),
        filterset_class=None,
        pagination_class=None,
    )
    def void(self, request: Request, pk=None, seq=None) -> Response:
        item = self._log_item(request, pk, seq)
        data = VoidRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        timeline_void(
            item=item,
            reason=data.validated_data["reason"],
            actor=signed_in(request_actors(request)["actor"]),
            expected_version=if_match_version(request),
        )
        return self._written(request, pk)

    @extend_schema(
        summary="Correct a command on the fixture's log (editors)",
        description="A new item of the same command with the corrected payload supersedes the "
        "item at ``seq`` (which becomes SUPERSEDED; both stay), and the fixture is rebuilt "
        "from the live log in the same step. Answers the fixture with its new ETag.",
        parameters=[IF_MATCH],
        request=CorrectionRequestSerializer,
        responses={
            200: FixtureDetailSerializer,
            400: OpenApiResponse(
                description="No reason; a payload the command does not take; the item is "
                "not a live command; or the log would no longer replay."
            ),
            403: OpenApiResponse(description="Not an editor or administrator."),
            404: OpenApiResponse(description="No such fixture, or no item at that seq."),
            412: STALE,
        },
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"timeline/(?P<seq>[0-9]{1,18})/correct",
        permission_classes=(MayEditFixtures,),
        filterset_class=None,
        pagination_class=None,
    )
    def correct(self, request: Request, pk=None, seq=None) -> Response:
        item = self._log_item(request, pk, seq)
        data = CorrectionRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fixture_command_correct(
            item=item,
            payload=data.validated_data["payload"],
            reason=data.validated_data["reason"],
            actor=signed_in(request_actors(request)["actor"]),
            expected_version=if_match_version(request),
        )
        return self._written(request, pk)

    @staticmethod
    def _log_item(request: Request, pk, seq) -> TimelineItem:
        fixture = get_object_or_404(Fixture.objects.visible_to(request.user).only("pk"), pk=pk)
        item = TimelineItem.objects.filter(fixture=fixture, seq=seq).order_by("id").first()
        if item is None:
            raise NotFound(f"The fixture's log has no item {seq}.")
        return item

    def _written(self, request: Request, pk) -> Response:
        """The fixture after a write, as its detail read shows it, with the ETag a read
        would carry now (so the next write can name this version)."""
        fixture = self.get_queryset().get(pk=pk)
        response = Response(
            FixtureDetailSerializer(fixture, context=self.get_serializer_context()).data
        )
        etag = etag_for(
            request,
            fixture_freshness,
            url=reverse("fixture-detail", kwargs={"pk": pk}, request=request),
            version_at=FIXTURE_VERSION_AT,
            pk=pk,
        )
        if etag is not None:
            response["ETag"] = etag
        return response

    @extend_schema(
        summary="The fixture's log, in sequence order",
        responses=TimelineItemSerializer(many=True),
        description="A merged fixture keeps its own log (ending with the merge item); it is "
        "not redirected.",
    )
    @action(
        detail=True,
        serializer_class=TimelineItemSerializer,
        filterset_class=TimelineFilter,
        # In log order: ``seq`` is gap-free and unique within one fixture's stream.
        cursor_orderings=None,
        cursor_ordering=("seq",),
    )
    def timeline(self, request: Request, pk=None) -> Response:
        fixture = get_object_or_404(Fixture.objects.visible_to(request.user).only("pk"), pk=pk)
        items = self.filter_queryset(TimelineItem.objects.filter(fixture=fixture))
        page = self.paginate_queryset(items)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


def _external_ids(participant: Participant):
    """The map rows naming ``participant`` or any row merged into it, in one query however
    long the merge chains are."""
    participants, ids = Participant._meta.db_table, ExternalIdMap._meta.db_table
    return ExternalIdMap.objects.raw(
        f"""
        WITH RECURSIVE merged(id) AS (
            SELECT %s::uuid
            UNION
            SELECT p.id FROM {participants} p JOIN merged ON p.merged_into_id = merged.id
        )
        SELECT m.* FROM {ids} m JOIN merged ON m.internal_id = merged.id
         WHERE m.entity_type = %s
         ORDER BY m.source_code, m.external_id
        """,  # noqa: S608 (table names come from the models, values are parameters)
        [participant.pk, EntityType.PARTICIPANT.value],
    )


@extend_schema_view(
    list=extend_schema(summary="Participants (canonical), by name"),
)
class ParticipantViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ParticipantSerializer
    filterset_class = ParticipantFilter
    cursor_ordering = ("name", "id")
    lookup_value_regex = UUID_PATTERN

    def get_queryset(self):
        if self.action == "list":
            return Participant.objects.canonical().select_related("sport")
        return self._detail_queryset()

    @staticmethod
    def _detail_queryset():
        return Participant.objects.select_related("sport").prefetch_related(
            Prefetch("aliases", queryset=ParticipantAlias.objects.order_by("name", "source_code")),
            Prefetch("sports", queryset=ParticipantSport.objects.select_related("sport")),
        )

    def _detail(self, participant: Participant) -> Response:
        context = {**self.get_serializer_context(), "external_ids": _external_ids(participant)}
        return Response(ParticipantDetailSerializer(participant, context=context).data)

    @extend_schema(
        summary="One participant with aliases, sports and external ids",
        responses={200: ParticipantDetailSerializer, 301: MOVED},
    )
    @conditional(participant_freshness, cache_seconds=300)
    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        participant = self.get_object()
        if participant.merged_into_id is not None:
            return _moved_to_survivor(request, Participant, participant.pk, "participant-detail")
        return self._detail(participant)

    @extend_schema(
        summary="Find a participant by a source's id for it",
        description="Follows merges: an id given to a record later merged answers with the "
        "survivor.",
        parameters=[LookupQuerySerializer],
        responses={
            200: ParticipantDetailSerializer,
            400: OpenApiResponse(description="source or external_id missing."),
            404: OpenApiResponse(description="No participant is known by that id."),
        },
    )
    @action(detail=False, filter_backends=(), pagination_class=None)
    def lookup(self, request: Request) -> Response:
        unknown_parameters(request.query_params.keys(), LookupQuerySerializer().fields)
        query = LookupQuerySerializer(data=request.query_params)
        if not query.is_valid():
            raise ParameterError(problems=query.errors)
        source, external_id = query.validated_data["source"], query.validated_data["external_id"]
        internal_id = (
            ExternalIdMap.objects.filter(
                source_code=source, entity_type=EntityType.PARTICIPANT, external_id=external_id
            )
            .values_list("internal_id", flat=True)
            .first()
        )
        if internal_id is None:
            raise NotFound(f"No participant is known to {source!r} by the id {external_id!r}.")
        participant = self._detail_queryset().filter(pk=follow_merges(Participant, internal_id))
        found = participant.first()
        if found is None:
            raise NotFound(
                f"{source!r} id {external_id!r} points at a participant that no longer exists."
            )
        return self._detail(found)
