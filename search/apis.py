"""``/api/v1/search/``: the answers of the results page, as JSON."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from omnium.exceptions import ParameterError
from search.selectors import GROUP_KEYS, site_search
from search.serializers import SearchAnswerSerializer, SearchParamsSerializer

PARAMETERS = ("q", "kind")


class SearchApi(APIView):
    @extend_schema(
        summary="Search competitions, teams, players, countries, venues, products, brands "
        "and articles",
        description="Grouped results, best first. Misspellings and missing accents are "
        "forgiven; a player's every known name, a merged record's names and a brand's "
        "other spellings find the record. Only what the public pages show is found.",
        parameters=[
            OpenApiParameter("q", str, required=True, description="What to find."),
            OpenApiParameter(
                "kind", str, enum=list(GROUP_KEYS), description="Only this group of results."
            ),
        ],
        responses=SearchAnswerSerializer,
    )
    def get(self, request: Request) -> Response:
        unknown = sorted(set(request.query_params) - set(PARAMETERS))
        if unknown:
            raise ParameterError(
                problems={
                    name: [f"Unknown parameter; this endpoint takes {', '.join(PARAMETERS)}."]
                    for name in unknown
                }
            )
        params = SearchParamsSerializer(data=request.query_params)
        if not params.is_valid():
            raise ParameterError(problems=params.errors)
        answer = site_search(params.validated_data["q"], group=params.validated_data.get("kind"))
        return Response(SearchAnswerSerializer(answer).data)
