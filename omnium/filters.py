"""Query-parameter validation for every list: a list answers only the parameters it
documents.

``StrictFilterBackend`` (the project's only filter backend) refuses, with a 400 naming
them, a parameter the list does not take and a value its filter does not accept (a choice
outside the enum, a malformed id or date). A list takes its FilterSet's parameters, its
paginator's (``cursor`` or ``page``, ``page_size``), ``ordering`` when the view offers
orderings, and the names in the view's ``extra_query_parameters``.

The shared vocabulary (the same name means the same thing on every list): ``q`` free-text
search, ``sport`` a sport's code, ``competition`` a node and everything under it,
``season``, ``date_from``/``date_to`` inclusive days, ``ordering``.
"""

from __future__ import annotations

from collections.abc import Iterable

from django import forms
from django_filters import rest_framework as filters
from rest_framework.exceptions import ErrorDetail

from omnium.exceptions import ParameterError

# Parameters any view may see without declaring them: none. Content negotiation is by the
# Accept header only (URL_FORMAT_OVERRIDE is off), so ``format`` is an ordinary name.
ALWAYS_ALLOWED: frozenset[str] = frozenset()


def unknown_parameters(given: Iterable[str], allowed: Iterable[str]) -> None:
    """A 400 naming every given parameter that is not allowed."""
    allowed = set(allowed) | ALWAYS_ALLOWED
    unknown = sorted(set(given) - allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed)) or "none"
        raise ParameterError(
            problems={
                name: [ErrorDetail(f"unknown parameter (this list takes: {accepted}).", "unknown")]
                for name in unknown
            }
        )


def form_problems(form: forms.Form) -> dict[str, list[ErrorDetail]]:
    """A bound form's errors as DRF details, keeping each error's code."""
    return {
        name: [ErrorDetail(" ".join(error.messages), error.code or "invalid") for error in errors]
        for name, errors in form.errors.as_data().items()
    }


def filterset_parameters(filterset_class) -> set[str]:
    """The query names a FilterSet reads (a range filter reads ``<name>_<suffix>``)."""
    names: set[str] = set()
    for name, filter_ in filterset_class.base_filters.items():
        widget = filter_.field_class.widget if hasattr(filter_.field_class, "widget") else None
        widget = filter_.extra.get("widget", widget)
        suffixes = getattr(widget, "suffixes", None)
        if suffixes:
            names.update(f"{name}_{suffix}" if suffix else name for suffix in suffixes)
        else:
            names.add(name)
    return names


def paginator_parameters(view) -> set[str]:
    paginator = getattr(view, "paginator", None)
    if paginator is None:
        return set()
    names = {
        getattr(paginator, attribute, None)
        for attribute in ("cursor_query_param", "page_query_param", "page_size_query_param")
    }
    if getattr(view, "cursor_orderings", None):
        names.add("ordering")
    return {name for name in names if name}


class StrictFilterBackend(filters.DjangoFilterBackend):
    def filter_queryset(self, request, queryset, view):
        if getattr(view, "action", None) != "retrieve":
            filterset_class = self.get_filterset_class(view, queryset)
            allowed = paginator_parameters(view) | set(getattr(view, "extra_query_parameters", ()))
            if filterset_class is not None:
                allowed |= filterset_parameters(filterset_class)
            unknown_parameters(request.query_params.keys(), allowed)
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        if not filterset.is_valid():
            raise ParameterError(problems=form_problems(filterset.form))
        return filterset.qs
