"""Pagination styles for the API.

Small lists page by number; large or append-only lists use ``CursorPagination`` so a page
costs the same at the millionth row as at the first and rows appended meanwhile are not
skipped or repeated.
"""

from rest_framework.pagination import CursorPagination, PageNumberPagination


class PagePagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class StableCursorPagination(CursorPagination):
    """Cursor pagination over a unique, immutable ordering (default: the primary key)."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
    ordering: str | tuple[str, ...] = "pk"
