"""Public records pages: the list of records, and one record under the records filter
(format, gender, season, team, opposition, venue, the row's side's team type, host country,
home/away, result and toss, the innings number, dates; the wicket for partnerships) as
select lists whose choice is the URL, every row linked to its scorecard and its players.

The rows are the records API's (``records.record_rows`` and ``records_decorate``): one
reader, so the page and ``/api/v1/cricket/stats/records/...`` never disagree."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse

from cricket.stats.filter_form import data_options, filter_fields, query_string
from cricket.stats.partnerships import records_ensure
from cricket.stats.records import KIND_EXTRAS, KINDS, record_rows, records_decorate
from cricket.stats.records_filters import records_filter_from_params

# The form's filters, in order; ``format`` is read as the records filter's match_type.
RECORD_FILTERS = (
    "format",
    "gender",
    "season",
    "team",
    "opposition",
    "venue",
    "team_type",
    "host_country",
    "home_away",
    "result",
    "toss",
    "innings",
    "date_from",
    "date_to",
)
PAGE_SIZE = 50
TITLES = {
    "highest-innings": "Highest individual innings",
    "best-bowling-innings": "Best bowling in an innings",
    "best-bowling-match": "Best bowling in a match",
    "highest-totals": "Highest team totals",
    "lowest-totals": "Lowest team totals",
    "most-runs-series": "Most runs in a series",
    "most-runs-season": "Most runs in a season",
    "most-wickets-series": "Most wickets in a series",
    "most-wickets-season": "Most wickets in a season",
    "partnerships": "Highest partnerships",
    "fastest-fifties": "Fastest fifties",
    "fastest-hundreds": "Fastest hundreds",
}


def _page(request: HttpRequest) -> int:
    raw = request.GET.get("page") or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise ValidationError({"page": f"{raw!r} is not a whole number of at least 1"})
    return int(raw)


def _filter(request: HttpRequest, kind: str | None) -> tuple[Any, dict[str, str]]:
    """The validated filter and the parameters it was read from (``format`` renamed)."""
    params = {name: request.GET.get(name, "") for name in request.GET}
    params.pop("page", None)
    if "match_type" in params:
        raise ValidationError({"match_type": "unknown parameter; the format filter is format"})
    if "format" in params:
        params["match_type"] = params.pop("format")
    extra = KIND_EXTRAS.get(kind or "", {}) if kind else None
    return records_filter_from_params(params, extra=extra), params


def _problems(exc: ValidationError, request: HttpRequest) -> str:
    messages = exc.message_dict
    if "match_type" in messages and "format" in request.GET:
        messages["format"] = messages.pop("match_type")
    return "; ".join(f"{name}: {' '.join(m)}" for name, m in sorted(messages.items()))


def records_index(request: HttpRequest) -> HttpResponse:
    """Every record kind, linked under the filter the URL carries."""
    try:
        _filter(request, None)
    except ValidationError as exc:
        return HttpResponseBadRequest(_problems(exc, request))
    suffix = query_string(request.GET)
    kinds = [
        (
            TITLES[name],
            spec.description,
            reverse("cricket_stats:record", args=[name]) + (f"?{suffix}" if suffix else ""),
        )
        for name, spec in KINDS.items()
    ]
    return render(
        request,
        "cricket/records_index.html",
        {
            "kinds": kinds,
            "fields": filter_fields(
                RECORD_FILTERS, request.GET, options=data_options(RECORD_FILTERS)
            ),
            "reset_url": reverse("cricket_stats:records"),
            "crumbs": [
                ("Cricket statistics", reverse("cricket_stats:leaderboards")),
                ("Records", None),
            ],
        },
    )


def record(request: HttpRequest, kind: str) -> HttpResponse:
    """One record kind under the filter, best first, a page of ``PAGE_SIZE`` rows."""
    if kind not in KINDS:
        raise Http404(f"No record {kind!r}")
    try:
        rf, _params = _filter(request, kind)
        page = _page(request)
    except ValidationError as exc:
        return HttpResponseBadRequest(_problems(exc, request))
    records_ensure()
    offset = (page - 1) * PAGE_SIZE
    with rf.moment():
        rows = list(record_rows(kind, rf)[offset : offset + PAGE_SIZE + 1])
    more = len(rows) > PAGE_SIZE
    items = records_decorate(kind, rows[:PAGE_SIZE])
    for rank, item in enumerate(items, start=offset + 1):
        item["rank"] = rank
    names = (*RECORD_FILTERS, *KIND_EXTRAS.get(kind, {}))
    return render(
        request,
        "cricket/records.html",
        {
            "kind": kind,
            "shape": KINDS[kind].shape,
            "title": TITLES[kind],
            "description": KINDS[kind].description,
            "rows": items,
            "fields": filter_fields(names, request.GET, options=data_options(names)),
            "reset_url": reverse("cricket_stats:record", args=[kind]),
            "next_url": f"?{query_string(request.GET, page=page + 1)}" if more else None,
            "previous_url": f"?{query_string(request.GET, page=page - 1)}" if page > 1 else None,
            "index_url": reverse("cricket_stats:records")
            + (f"?{s}" if (s := query_string(request.GET, page=None, wicket=None)) else ""),
            "crumbs": [
                ("Cricket statistics", reverse("cricket_stats:leaderboards")),
                ("Records", reverse("cricket_stats:records")),
                (TITLES[kind], None),
            ],
        },
    )
