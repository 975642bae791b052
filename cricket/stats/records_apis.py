"""Cricket records, partnerships and points tables over the API.

Public reads of public fixtures only. Every parameter is validated by
``records_filter_from_params`` (the statistics query object's records vocabulary): an
unknown parameter or a bad value is a 400 naming it; ``as_of`` reads a record as it stood
at a moment.
Lists are cursor-paginated (``omnium.pagination.StableCursorPagination``) over the record's
own order (record first, a unique tie-break last), so a page costs the same deep in the
list as at its head.

The cricket format filter is ``format``, as on every other cricket list; ``match_type`` is
its deprecated old name here (docs/api.md), and the two must agree when both are given.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from cricket.points import points_table
from cricket.stats.partnerships import records_ensure
from cricket.stats.query import StatsQuery
from cricket.stats.records import KIND_EXTRAS, KINDS, record_rows, records_decorate
from cricket.stats.records_filters import (
    FILTER_PARAMS,
    FORMATS,
    GENDERS,
    SIDE_CHOICES,
    records_filter_from_params,
)
from omnium.apis import ApiView
from omnium.exceptions import ParameterError
from omnium.pagination import StableCursorPagination
from sports.models import Competition
from sports.querysets import follow_merges

TRANSPORT = ("cursor", "page_size")

AS_OF_PARAMETER = OpenApiParameter(
    "as_of",
    str,
    description=(
        "As it stood at a moment: an ISO 8601 date-time with its zone"
        " (2025-06-01T00:00Z), a date (midnight UTC) or now; not in the future."
    ),
)

FILTER_PARAMETERS = [
    OpenApiParameter("format", str, description=f"One of {', '.join(FORMATS)}, any case."),
    OpenApiParameter(
        "match_type",
        str,
        deprecated=True,
        description="Deprecated: the old name of `format` (docs/api.md).",
    ),
    OpenApiParameter("gender", str, enum=list(GENDERS)),
    OpenApiParameter("season", str, description="2019 or 2019/20, as the source writes it."),
    OpenApiParameter("competition", OpenApiTypes.UUID, description="A node and its subtree."),
    OpenApiParameter("venue", str, description="A venue's name (any case) or id."),
    OpenApiParameter("team", str, description="The side's name (any case) or id."),
    OpenApiParameter("opposition", str, description="The other side's name or id."),
    OpenApiParameter("date_from", OpenApiTypes.DATE),
    OpenApiParameter("date_to", OpenApiTypes.DATE),
    AS_OF_PARAMETER,
    OpenApiParameter("team_type", str, enum=list(SIDE_CHOICES["team_type"])),
    OpenApiParameter("host_country", str, description="The venue's ISO 3166 alpha-3 country."),
    OpenApiParameter(
        "home_away",
        str,
        enum=list(SIDE_CHOICES["home_away"]),
        description="Of the row's side: the batting side, or a bowler's fielding side.",
    ),
    OpenApiParameter(
        "result", str, enum=list(SIDE_CHOICES["result"]), description="Of the row's side."
    ),
    OpenApiParameter(
        "toss", str, enum=list(SIDE_CHOICES["toss"]), description="Of the row's side."
    ),
    OpenApiParameter("innings", int, description="The innings number of the match."),
]
WICKET_PARAMETER = OpenApiParameter("wicket", int, description="Only stands for this wicket.")


class _Batter(serializers.Serializer):
    participant_id = serializers.UUIDField(allow_null=True)
    name = serializers.CharField()
    registry_id = serializers.CharField()
    runs = serializers.IntegerField()
    balls = serializers.IntegerField()


class RecordRowSerializer(serializers.Serializer):
    """One row of a record. The match fields are on every row of a single match (every kind
    but the series and season totals); the figures are the kind's own."""

    fixture_id = serializers.UUIDField(required=False)
    fixture = serializers.CharField(required=False)
    date = serializers.DateField(required=False)
    match_type = serializers.CharField(required=False)
    venue = serializers.CharField(required=False)
    innings = serializers.IntegerField(required=False, help_text="The innings' number.")
    team_id = serializers.UUIDField(required=False, allow_null=True)
    team = serializers.CharField(required=False)
    opposition_id = serializers.UUIDField(required=False, allow_null=True)
    opposition = serializers.CharField(required=False)
    scorecard_url = serializers.CharField(required=False, help_text="The match's scorecard page.")
    scorecard_api_url = serializers.CharField(required=False)
    participant_id = serializers.UUIDField(required=False, allow_null=True)
    name = serializers.CharField(required=False)
    registry_id = serializers.CharField(required=False, help_text="The Cricsheet registry id.")
    score = serializers.CharField(required=False, help_text="As printed: 152*, 243/7, 87*.")
    figures = serializers.CharField(required=False, help_text="Bowling: wickets/runs.")
    runs = serializers.IntegerField(required=False)
    balls = serializers.IntegerField(required=False)
    innings_balls = serializers.IntegerField(
        required=False, help_text="Fastest fifties/hundreds: the whole innings' balls."
    )
    fours = serializers.IntegerField(required=False)
    sixes = serializers.IntegerField(required=False)
    not_out = serializers.BooleanField(required=False)
    wickets = serializers.IntegerField(required=False)
    total = serializers.IntegerField(required=False)
    declared = serializers.BooleanField(required=False)
    matches = serializers.IntegerField(required=False)
    outs = serializers.IntegerField(required=False)
    series_id = serializers.UUIDField(required=False)
    series = serializers.CharField(required=False)
    series_url = serializers.CharField(required=False)
    season = serializers.CharField(required=False)
    wicket = serializers.IntegerField(required=False, help_text="Partnerships: the wicket.")
    unbroken = serializers.BooleanField(required=False)
    ended_by = serializers.CharField(required=False)
    batters = _Batter(many=True, required=False)


class RecordPageSerializer(serializers.Serializer):
    kind = serializers.CharField()
    description = serializers.CharField()
    filters = serializers.DictField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    results = RecordRowSerializer(many=True)


def _filter_params(params) -> dict[str, Any]:
    """The records filter's parameters, ``format`` read as the filter's ``match_type``."""
    values = {name: params.get(name) for name in params}
    given, old = values.pop("format", None), values.get("match_type")
    if given:
        if old and old.lower() != given.lower():
            raise ParameterError(
                "match_type", "disagrees with format (match_type is its deprecated name)."
            )
        values["match_type"] = given
    return values


def record_page(request: Request, view: ApiView, kind: str) -> Response:
    """Validate, make the derived rows current, page and decorate one record kind."""
    params = _filter_params(request.query_params)
    try:
        rf = records_filter_from_params(params, extra=KIND_EXTRAS.get(kind), ignore=TRANSPORT)
    except ValidationError as exc:
        problems = exc.message_dict
        if "format" in request.query_params and "match_type" in problems:
            problems["format"] = problems.pop("match_type")
        raise ParameterError(problems=problems) from exc
    records_ensure()
    paginator = view.paginator
    paginator.ordering = KINDS[kind].ordering
    with rf.moment():
        page = paginator.paginate_queryset(record_rows(kind, rf), request, view=view) or []
        results = records_decorate(kind, list(page))
    data: dict[str, Any] = {
        "kind": kind,
        "description": KINDS[kind].description,
        "filters": rf.as_dict(),
        "next": paginator.get_next_link(),
        "previous": paginator.get_previous_link(),
        "results": results,
    }
    return Response(RecordPageSerializer(data).data)


class _RecordsApi(ApiView):
    """A record list: the records filter's parameters (validated by the filter itself, so
    a value outside a kind's extras is refused there) and the keyset cursor."""

    pagination_class = StableCursorPagination
    list_order = "the record's own: best first, ties by a unique key"

    def query_parameter_names(self) -> set[str]:
        extras = {name for names in KIND_EXTRAS.values() for name in names}
        return super().query_parameter_names() | set(FILTER_PARAMS) | {"format"} | extras


class RecordListApi(_RecordsApi):
    @extend_schema(
        summary="A cricket record under a filter, best first, each row linked to its scorecard",
        description="Kinds: "
        + "; ".join(f"`{name}`: {spec.description}" for name, spec in KINDS.items())
        + ". `partnerships` also takes `wicket`.",
        parameters=[
            OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=list(KINDS)),
            *FILTER_PARAMETERS,
            WICKET_PARAMETER,
        ],
        responses=RecordPageSerializer,
    )
    def get(self, request: Request, kind: str) -> Response:
        if kind not in KINDS:
            raise Http404(f"No record {kind!r}; known: {', '.join(KINDS)}.")
        return record_page(request, self, kind)


class PartnershipListApi(_RecordsApi):
    @extend_schema(
        summary="Partnerships under a filter, highest first (per wicket with wicket=N)",
        description="A stand is two batters together at the crease, derived from the ball "
        "order; `unbroken` unless a dismissal of one of them ended it (a retirement leaves "
        "it unbroken, and the next stand is for the same wicket).",
        parameters=[*FILTER_PARAMETERS, WICKET_PARAMETER],
        responses=RecordPageSerializer,
    )
    def get(self, request: Request) -> Response:
        return record_page(request, self, "partnerships")


class PointsRowSerializer(serializers.Serializer):
    """One side's line in a cricket points table."""

    position = serializers.IntegerField()
    team = serializers.CharField()
    team_id = serializers.UUIDField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()
    tied = serializers.IntegerField()
    drawn = serializers.IntegerField()
    no_result = serializers.IntegerField()
    points = serializers.IntegerField()
    net_run_rate = serializers.FloatField(allow_null=True, help_text="To three places.")
    net_run_rate_text = serializers.CharField(help_text="Signed, as printed: +0.523.")
    runs_for = serializers.IntegerField()
    overs_for = serializers.CharField(help_text="Overs faced for the net run rate (38.2).")
    runs_against = serializers.IntegerField()
    overs_against = serializers.CharField()
    adjustment = serializers.IntegerField(required=False)


class PointsTableApi(ApiView):
    small_fixed_list = "one row per side of the competition"
    list_order = "points, then net run rate"

    def query_parameter_names(self) -> set[str]:
        return super().query_parameter_names() | {"as_of"}

    @extend_schema(
        summary="A cricket competition's points table with net run rate",
        description="Points per result from the competition's config (default win 2, tie 1, "
        "no result 1, loss 0); net run rate = runs scored / overs faced - runs conceded / "
        "overs bowled, an all-out side counted at its full quota, D/L targets as the file "
        "gives them, no-result matches left out.",
        parameters=[AS_OF_PARAMETER],
        responses=PointsRowSerializer(many=True),
    )
    def get(self, request: Request, pk: Any) -> Response:
        try:
            query = StatsQuery.parse({"as_of": request.query_params.get("as_of")}, view="records")
        except ValidationError as exc:
            raise ParameterError(problems=exc.message_dict) from exc
        survivor = follow_merges(Competition, pk)
        node: Competition = get_object_or_404(
            Competition.objects.filter(sport__code="cricket"), pk=survivor
        )
        return Response(PointsRowSerializer(points_table(node, as_of=query.as_of), many=True).data)
