"""The API's shared view bases and the root.

``ApiView`` is the base of every non-generic API view: it validates the query string
against ``query_serializer_class`` before the handler runs (an unknown parameter or a bad
value is a 400 naming it, as ``omnium.filters`` does for generic lists) and hands the
handler ``self.query``, the validated values. The schema documents the same serializer as
the operation's query parameters (``omnium.schema``), so the document and the check cannot
drift apart.

A paginated computed list also sets ``pagination_class`` (``PositionCursorPagination``):
its ``cursor`` and ``page_size`` are accepted and documented without being declared.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from omnium.exceptions import ParameterError
from omnium.filters import unknown_parameters


class QueryParametersMixin:
    """Validates ``request.query_params`` with ``query_serializer_class`` in ``initial``."""

    query_serializer_class: type[serializers.Serializer] | None = None
    pagination_class: Any = None
    query: dict[str, Any]
    query_serializer: Any

    @property
    def paginator(self):
        if not hasattr(self, "_paginator"):
            self._paginator = self.pagination_class() if self.pagination_class else None
        return self._paginator

    def query_parameter_names(self) -> set[str]:
        names: set[str] = set()
        if self.query_serializer_class is not None:
            names.update(self.query_serializer_class().fields)
        paginator = self.paginator
        if paginator is not None:
            names.update({paginator.cursor_query_param, paginator.page_size_query_param})
        return names

    def initial(self, request: Request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        if request.method not in ("GET", "HEAD"):
            self.query = {}
            return
        unknown_parameters(request.query_params.keys(), self.query_parameter_names())
        self.query = {}
        if self.query_serializer_class is not None:
            data = self.query_serializer_class(data=request.query_params)
            if not data.is_valid():
                raise ParameterError(problems=data.errors)
            self.query_serializer = data
            self.query = dict(data.validated_data)


class ApiView(QueryParametersMixin, APIView):
    """An ``APIView`` that refuses query parameters it does not declare."""


class ApiRootView(ApiView):
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
