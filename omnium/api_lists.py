"""Every list endpoint of the API, read from the URLconf and the schema: what the
conventions test walks (tests/test_api_lists.py) and what writes the table of lists in
docs/api.md (``make api-lists``, checked by the same test).

A GET operation is a list when its 200 body is an array or a page (an object with
``results``). Each must page with one of the project's paging classes
(``omnium.pagination``) at the shared sizes, or say on its view why it is answered whole:
``small_fixed_list = "<why>"`` (a table with one row per side, say).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drf_spectacular.generators import SchemaGenerator

from omnium.pagination import (
    CountedPagePagination,
    PositionCursorPagination,
    StableCursorPagination,
)

STYLES = {
    StableCursorPagination: "cursor",
    PositionCursorPagination: "position cursor",
    CountedPagePagination: "page number",
}
PAGING_PARAMETERS = ("cursor", "page", "page_size", "ordering")
TABLE_START = "<!-- api-lists:start (make api-lists writes this table; a test checks it) -->"
TABLE_END = "<!-- api-lists:end -->"


@dataclass(frozen=True)
class ListEndpoint:
    path: str
    view: str  # module.Class, for messages
    style: str  # a STYLES value, or "whole" for a small fixed list
    paginator: Any  # the view's paginator instance, or None
    small_fixed_list: str  # why it is answered whole ("" when paged)
    parameters: tuple[str, ...]  # documented query parameters other than paging
    orderings: tuple[str, ...]  # the ``ordering`` choices, or () for a fixed order
    deprecated: tuple[str, ...]  # documented parameters marked deprecated
    fixed_order: tuple[str, ...]  # a keyset list's order when the client cannot choose

    @property
    def default_size(self) -> int | None:
        return getattr(self.paginator, "page_size", None)

    @property
    def max_size(self) -> int | None:
        return getattr(self.paginator, "max_page_size", None)


def _resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = document["components"]["schemas"][name]
    return schema


def _is_list(document: dict, operation: dict) -> bool:
    content = operation.get("responses", {}).get("200", {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    if schema is None:
        return False
    schema = _resolve(document, schema)
    if schema.get("type") == "array":
        return True
    results = schema.get("properties", {}).get("results")
    return results is not None and _resolve(document, results).get("type") == "array"


def _fixed_order(view: Any, paginator: Any) -> tuple[str, ...]:
    """The order of a list the client cannot reorder: the view's ``list_order`` (words, for
    an order chosen per request), its keyset, or its queryset's."""
    if getattr(view, "list_order", None):
        return (view.list_order,)
    ordering = getattr(view, "cursor_ordering", None)
    if ordering is None and isinstance(paginator, StableCursorPagination):
        ordering = paginator.ordering
    if ordering is None and isinstance(paginator, CountedPagePagination):
        try:
            queryset = view.get_queryset()
        except Exception:  # a queryset that needs the request: no order to read here
            queryset = None
        if queryset is not None:
            ordering = queryset.query.order_by or queryset.model._meta.ordering
    if isinstance(ordering, str):
        return (ordering,)
    return tuple(ordering or ())


def _orderings(parameter: dict | None) -> tuple[str, ...]:
    """An ``ordering`` parameter's choices, its default first."""
    if parameter is None:
        return ()
    choices = list(parameter["schema"].get("enum", ()))
    default = parameter["schema"].get("default")
    if default in choices:
        choices.remove(default)
        choices.insert(0, default)
    return tuple(choices)


def list_endpoints() -> tuple[dict, list[ListEndpoint]]:
    """The schema document and every list operation in it, in path order."""
    generator = SchemaGenerator()
    document = generator.get_schema(request=None, public=True)
    views = {
        path: view
        for path, _regex, method, view in generator._get_paths_and_endpoints()
        if method == "GET"
    }
    found = []
    for path, item in sorted(document["paths"].items()):
        operation = item.get("get")
        if operation is None or not _is_list(document, operation):
            continue
        view = views[path]
        paginator = getattr(view, "paginator", None)
        style = next(
            (name for cls, name in STYLES.items() if type(paginator) is cls),
            type(paginator).__name__ if paginator is not None else "whole",
        )
        query = [p for p in operation.get("parameters", []) if p["in"] == "query"]
        ordering = next((p for p in query if p["name"] == "ordering"), None)
        found.append(
            ListEndpoint(
                path=path,
                view=f"{type(view).__module__}.{type(view).__name__}",
                style=style,
                paginator=paginator,
                small_fixed_list=getattr(view, "small_fixed_list", "") or "",
                parameters=tuple(p["name"] for p in query if p["name"] not in PAGING_PARAMETERS),
                orderings=_orderings(ordering),
                deprecated=tuple(p["name"] for p in query if p.get("deprecated")),
                fixed_order=_fixed_order(view, paginator if style != "whole" else None),
            )
        )
    return document, found


def _cell(values: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{v}`" for v in values) if values else "none"


def _ordering_cell(choices: tuple[str, ...]) -> str:
    """``-runs`` (default); ``[-]runs``, ... : a name offered both ways is written once."""
    default, rest = choices[0], choices[1:]
    names: list[str] = []
    for choice in rest:
        bare = choice.lstrip("-")
        both = bare in choices and f"-{bare}" in choices
        label = f"[-]{bare}" if both else choice
        if label not in names:
            names.append(label)
    return f"`{default}` (default)" + (f"; {_cell(names)}" if names else "")


def markdown_table(endpoints: list[ListEndpoint]) -> str:
    """The table of lists for docs/api.md."""
    lines = [
        "| list | paging | default | max | filters | ordering |",
        "|---|---|---|---|---|---|",
    ]
    for e in endpoints:
        if e.style == "whole":
            sizes = ["whole", "whole"]
            style = f"none ({e.small_fixed_list})"
        else:
            sizes = [str(e.default_size), str(e.max_size)]
            style = e.style
        filters = [f"{p} (deprecated)" if p in e.deprecated else p for p in e.parameters]
        if e.orderings:
            ordering = _ordering_cell(e.orderings)
        elif e.fixed_order:
            ordering = "fixed: " + ", ".join(e.fixed_order)
        else:
            ordering = "fixed"
        row = [f"`GET {e.path}`", style, *sizes, _cell(filters), ordering]
        lines.append(f"| {' | '.join(row)} |")
    return "\n".join(lines)


def document_with_table(text: str, table: str) -> str:
    """``text`` (docs/api.md) with the table between its markers replaced."""
    head, _, rest = text.partition(TABLE_START)
    _, _, tail = rest.partition(TABLE_END)
    if not rest:
        raise ValueError(f"docs/api.md has no {TABLE_START!r} marker")
    return f"{head}{TABLE_START}\n{table}\n{TABLE_END}{tail}"
