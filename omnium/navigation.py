"""The site's header: its sections and their sub-pages. A link appears once its page exists.

Pages are found by URL name, so the shell names pages of any app without importing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse


@dataclass(frozen=True)
class Section:
    label: str
    url_name: str
    query: str = ""
    # (label, url name, query) of the sub-pages shown under the section.
    children: tuple[tuple[str, str, str], ...] = ()


@dataclass
class NavItem:
    label: str
    url: str | None
    current: bool = False
    children: list[NavItem] = field(default_factory=list)


SECTIONS = (
    Section("Competitions", "sports:competition-list"),
    Section(
        "Cricket",
        "sports:competition-list",
        "?sport=cricket",
        children=(
            ("Competitions", "sports:competition-list", "?sport=cricket"),
            ("Statistics", "cricket_stats:leaderboards", ""),
            ("Records", "cricket_stats:records", ""),
        ),
    ),
    Section("Catalogue", "catalogue:product-list"),
    Section("Articles", "discussions:article-list"),
)


def _url(url_name: str, query: str) -> str | None:
    try:
        return reverse(url_name) + query
    except NoReverseMatch:
        return None


def _is_current(request: HttpRequest, url: str | None) -> bool:
    if not url:
        return False
    path, _, query = url.partition("?")
    if query:
        return request.path == path and request.META.get("QUERY_STRING", "") == query
    return request.path.startswith(path) and not (
        request.path == path and request.META.get("QUERY_STRING")
    )


def site_sections(request: HttpRequest) -> list[NavItem]:
    items = []
    for section in SECTIONS:
        url = _url(section.url_name, section.query)
        children = [
            NavItem(label, child_url, _is_current(request, child_url))
            for label, name, query in section.children
            if (child_url := _url(name, query))
        ]
        current = _is_current(request, url) or any(c.current for c in children)
        items.append(NavItem(section.label, url, current, children))
    return items


def navigation(request: HttpRequest) -> dict[str, object]:
    try:
        search_url = reverse("search:results")
    except NoReverseMatch:
        search_url = None
    return {"site_navigation": site_sections(request), "site_search_url": search_url}
