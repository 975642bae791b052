from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView


class ApiRootView(APIView):
    """Entry point of the API: links to the schema, the docs and each app's resources."""

    @extend_schema(
        responses=inline_serializer(
            "ApiRoot", fields={"schema": serializers.URLField(), "docs": serializers.URLField()}
        )
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                "schema": reverse("api-schema", request=request),
                "docs": reverse("api-docs", request=request),
            }
        )
