"""The catalogue panel of the home page (registered in ``CatalogueConfig.ready``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from catalogue.models import Location, Product
from omnium.home import Panel, panel_register


def _catalogue(request: HttpRequest) -> dict[str, Any] | None:
    airports = list(Location.objects.visible().order_by("name").only("code", "name", "iata"))
    if not airports:
        return None
    return {"products": Product.objects.visible().count(), "airports": airports}


def register() -> None:
    panel_register(Panel("catalogue", "catalogue/home_panel.html", _catalogue, 40))
