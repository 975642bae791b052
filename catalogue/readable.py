"""Who may read the catalogue's public rows, registered with ``omnium.readable``: the
public reads what the site shows (``visible()``: live products with a listing at a visible
storefront, those listings and storefronts); the console's readers read every row."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from catalogue.models import Listing, Location, Product
from omnium.readable import console_may_view, readable_register


def _visible_or_console(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    if console_may_view(user, queryset.model):
        return queryset
    return queryset.visible()  # type: ignore[attr-defined]  # each model's own queryset


def register() -> None:
    """Called from ``CatalogueConfig.ready()``."""
    for model in (Product, Listing, Location):
        readable_register(model, _visible_or_console)
