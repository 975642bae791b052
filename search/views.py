"""The site-wide search results page: the header's box sends its query here."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from search.selectors import (
    GROUP_KEYS,
    PER_GROUP,
    SearchAnswer,
    search_query_clean,
    site_search,
)


def results(request: HttpRequest) -> HttpResponse:
    text = request.GET.get("q", "")
    kind = request.GET.get("kind")
    group = kind if kind in GROUP_KEYS else None
    answer: SearchAnswer | None = None
    error = ""
    if text.strip():
        try:
            answer = site_search(search_query_clean(text), group=group)
        except ValidationError as exc:
            error = exc.messages[0].removeprefix("q: ")
    return render(
        request,
        "search/results.html",
        {
            "query": text,
            "group": group,
            "per_group": PER_GROUP,
            "answer": answer,
            "error": error,
            "crumbs": [("Search", None)],
        },
    )
