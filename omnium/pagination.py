"""The API's paging styles, one class per kind. Every list endpoint uses one of them.

- ``StableCursorPagination``: the default, for any list whose size is not small and fixed
  and for every append-only or time-ordered list. Keyset paging over a unique, immutable
  ordering, so a page costs the same at the millionth row as at the first and rows added
  meanwhile are neither skipped nor repeated. No total count.
- ``PositionCursorPagination``: for lists computed in SQL that take a limit and an offset
  (leaderboards, traces). The cursor is opaque like the keyset one; it carries the position
  in an order that breaks every tie (the view's contract), so pages do not overlap while
  the data stands still.
- ``CountedPagePagination``: page numbers and a total ``count``, only where the count is
  cheap (a small table) and a client asks for it.

All three share ``page_size``: a whole number from 1 to ``max_page_size`` (200), default
50; anything else is a 400 naming the parameter and the limit, never a silent clamp. A
cursor or page that does not parse is a 400 as well (DRF answers 404).
"""

from __future__ import annotations

import base64
from collections import OrderedDict
from typing import Any
from urllib import parse

from django.core.paginator import InvalidPage
from rest_framework.pagination import CursorPagination, PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from omnium.exceptions import ParameterError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200

PAGE_SIZE_DESCRIPTION = (
    f"Rows per page: 1 to {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE}); more is a 400."
)


def page_size_from(request, *, default: int, maximum: int, name: str = "page_size") -> int:
    """The requested page size, validated: a 400 naming ``name`` and the limit otherwise."""
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ParameterError(name, f"{raw!r} is not a whole number.", code="invalid") from None
    if value < 1:
        raise ParameterError(name, "must be at least 1.", code="min_value")
    if value > maximum:
        raise ParameterError(
            name, f"must be at most {maximum} (the maximum page size).", "max_value"
        )
    return value


class _SizedPages:
    page_size: int | None = DEFAULT_PAGE_SIZE
    page_size_query_param: str | None = "page_size"
    max_page_size: int | None = MAX_PAGE_SIZE

    def get_page_size(self, request) -> int:
        return page_size_from(
            request,
            default=self.page_size or DEFAULT_PAGE_SIZE,
            maximum=self.max_page_size or MAX_PAGE_SIZE,
        )


def _page_schema(schema: dict, *, counted: bool = False) -> dict:
    properties: dict[str, Any] = {
        "next": {
            "type": "string",
            "nullable": True,
            "format": "uri",
            "description": "The next page's URL; null on the last page.",
            "example": "https://omnium.example/api/v1/fixtures/?cursor=cD0yMDI0LTExLTEw",
        },
        "previous": {
            "type": "string",
            "nullable": True,
            "format": "uri",
            "description": "The previous page's URL; null on the first page.",
            "example": None,
        },
        "results": schema,
    }
    required = ["next", "previous", "results"]
    if counted:
        properties = {"count": {"type": "integer", "example": 123}, **properties}
        required.insert(0, "count")
    return {"type": "object", "required": required, "properties": properties}


class StableCursorPagination(_SizedPages, CursorPagination):
    """Cursor pagination over a unique, immutable ordering (default: the primary key).

    A subclass names its ``ordering``; the last field must be unique (the key) so the
    order is total and a page boundary is never ambiguous.
    """

    ordering: str | tuple[str, ...] = "pk"
    invalid_cursor_message = "This cursor is not one this list gave out."

    def paginate_queryset(self, queryset, request, view=None):
        self.page_size = self.get_page_size(request)
        return super().paginate_queryset(queryset, request, view)

    def get_ordering(self, request, queryset, view):
        """The view's ``cursor_orderings`` ({name: fields}, the first the default) when it
        lets the client choose with ``ordering``; else its ``cursor_ordering``, else the
        class's. An ordering the view does not offer is a 400 naming it."""
        choices = getattr(view, "cursor_orderings", None)
        if choices:
            name = request.query_params.get("ordering") or next(iter(choices))
            if name not in choices:
                raise ParameterError(
                    "ordering",
                    f"{name!r} is not one of {', '.join(choices)}.",
                    code="invalid_choice",
                )
            return tuple(choices[name])
        ordering = getattr(view, "cursor_ordering", None) or self.ordering
        return (ordering,) if isinstance(ordering, str) else tuple(ordering)

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except Exception as exc:  # DRF raises NotFound; a bad cursor is bad input
            raise ParameterError(
                self.cursor_query_param, self.invalid_cursor_message, code="invalid_cursor"
            ) from exc

    def get_paginated_response_schema(self, schema):
        return _page_schema(schema)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_page_size,
                    "default": self.page_size,
                }
                parameter["description"] = PAGE_SIZE_DESCRIPTION
        choices = getattr(view, "cursor_orderings", None)
        if choices:
            parameters.append(
                {
                    "name": "ordering",
                    "required": False,
                    "in": "query",
                    "description": "The order of the list (a '-' prefix is descending).",
                    "schema": {
                        "type": "string",
                        "enum": list(choices),
                        "default": next(iter(choices)),
                    },
                }
            )
        return parameters


MAX_POSITION = 2**31


class PositionCursorPagination(_SizedPages):
    """Opaque cursors over a position, for lists computed with LIMIT/OFFSET.

    The view calls ``window(request)`` for ``(limit, offset)``, runs its query for
    ``limit + 1`` rows (the extra one says whether there is a next page) and answers with
    ``response(rows, extra)``. The order must be total (ties broken down to a key).
    """

    cursor_query_param = "cursor"

    def window(self, request) -> tuple[int, int]:
        self.request = request
        self.limit = self.get_page_size(request)
        self.offset = self._decode(request.query_params.get(self.cursor_query_param))
        return self.limit, self.offset

    def _decode(self, raw: str | None) -> int:
        if not raw:
            return 0
        try:
            tokens = parse.parse_qs(base64.b64decode(raw.encode("ascii")).decode("ascii"))
            offset = int(tokens["o"][0])
        except Exception:
            offset = -1
        # No list is this long; a larger offset would overflow the database's bigint.
        if offset < 0 or offset > MAX_POSITION:
            raise ParameterError(
                self.cursor_query_param,
                "This cursor is not one this list gave out.",
                code="invalid_cursor",
            )
        return offset

    def _link(self, offset: int) -> str:
        url = self.request.build_absolute_uri()
        if offset <= 0:
            return remove_query_param(url, self.cursor_query_param)
        token = base64.b64encode(parse.urlencode({"o": offset}).encode("ascii")).decode("ascii")
        return replace_query_param(url, self.cursor_query_param, token)

    def links(self, *, has_next: bool) -> dict[str, str | None]:
        return {
            "next": self._link(self.offset + self.limit) if has_next else None,
            "previous": self._link(max(self.offset - self.limit, 0)) if self.offset else None,
        }

    def get_paginated_response_schema(self, schema):
        return _page_schema(schema)

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "The pagination cursor value.",
                "schema": {"type": "string"},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": PAGE_SIZE_DESCRIPTION,
                "schema": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_page_size,
                    "default": self.page_size,
                },
            },
        ]


class CountedPagePagination(_SizedPages, PageNumberPagination):
    """Page numbers with a total count: only for small tables where the count is cheap."""

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        page_size = self.get_page_size(request)
        paginator = self.django_paginator_class(queryset, page_size)
        number = request.query_params.get(self.page_query_param) or 1
        try:
            self.page = paginator.page(number)
        except InvalidPage as exc:
            raise ParameterError(self.page_query_param, str(exc), code="invalid_page") from exc
        return list(self.page)

    def get_paginated_response(self, data):
        return Response(
            OrderedDict(
                [
                    ("count", self.page.paginator.count),
                    ("next", self.get_next_link()),
                    ("previous", self.get_previous_link()),
                    ("results", data),
                ]
            )
        )

    def get_paginated_response_schema(self, schema):
        return _page_schema(schema, counted=True)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_page_size,
                    "default": self.page_size,
                }
                parameter["description"] = PAGE_SIZE_DESCRIPTION
        return parameters
