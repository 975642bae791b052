"""The sample data ``make run`` loads on a fresh machine, through the real import code.

Each entry is (label, callable). A loader must be idempotent: ``make run`` calls every loader
on every start, and a second call changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

SAMPLE_LOADERS: list[tuple[str, Callable[[], str]]] = []
