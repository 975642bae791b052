"""The home page's panels. omnium imports no app, so each app registers what it shows on the
home page from its ``AppConfig.ready()``: a template and a function giving its context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest


@dataclass(frozen=True)
class Panel:
    key: str
    template: str
    context: Callable[[HttpRequest], dict[str, Any] | None]
    # Lower comes first.
    order: int = 100


_PANELS: dict[str, Panel] = {}


def panel_register(panel: Panel) -> None:
    """Register (or replace, on a reload) one panel of the home page."""
    _PANELS[panel.key] = panel


def panels(request: HttpRequest) -> list[tuple[str, dict[str, Any]]]:
    """The panels to render, in order, each with its context; a panel whose function answers
    ``None`` has nothing to show and is left out."""
    out = []
    for panel in sorted(_PANELS.values(), key=lambda p: (p.order, p.key)):
        context = panel.context(request)
        if context is not None:
            out.append((panel.template, context))
    return out
