"""The site's top navigation. A section appears as a link once its page exists."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

SECTIONS = (
    ("Competitions", "sports:competition-list", ""),
    ("Cricket", "sports:competition-list", "?sport=cricket"),
    ("Catalogue", "catalogue:product-list", ""),
    ("Articles", "discussions:article-list", ""),
)


def navigation(request: HttpRequest) -> dict[str, list[dict[str, str | None]]]:
    items = []
    for label, url_name, query in SECTIONS:
        try:
            url = reverse(url_name) + query
        except NoReverseMatch:
            url = None
        items.append({"label": label, "url": url})
    return {"site_navigation": items}
