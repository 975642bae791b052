"""The cricket panel of the home page (registered in ``CricketConfig.ready``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from omnium.home import Panel, panel_register
from sports.models import Fixture

RECENT = 5


def _cricket(request: HttpRequest) -> dict[str, Any] | None:
    fixtures = list(
        Fixture.objects.public()
        .filter(sport__code="cricket", scheduled_start__isnull=False)
        .order_by("-scheduled_start", "code")[:RECENT]
    )
    return {"fixtures": fixtures} if fixtures else None


def register() -> None:
    panel_register(Panel("cricket", "cricket/home_panel.html", _cricket, 30))
