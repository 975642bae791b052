"""One progress callback for long work, read by a terminal's bar and a job record alike.

A service that takes a while (a collection, suggest, a statistics rebuild, a batch's
validation) accepts ``progress``: a callable it calls as ``progress(done)``, optionally with
``total=`` (once known) and ``step=`` (a short name of what it is doing now). ``Progress`` is
that callable. It keeps the latest state and hands it on:

- to ``bar`` (a tqdm bar, the CLI's) on every call: tqdm throttles its own drawing;
- to ``record`` (the job row's writer, ``accounts.services.jobs``) at most once every
  ``every`` seconds by ``clock``, so a loop over a million rows writes about one row a
  second, and once more on ``close()`` so the last state is always written.

``omnium`` imports no app: the record is any callable taking a ``ProgressState``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

__all__ = ["Progress", "ProgressCallback", "ProgressState"]


@dataclass(frozen=True)
class ProgressState:
    done: int = 0
    total: int | None = None
    step: str = ""

    @property
    def fraction(self) -> float | None:
        """How much is done, 0 to 1; None while the total is unknown."""
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


class ProgressCallback(Protocol):
    """What a service calls: ``progress(done, total=..., step=...)``. A plain
    ``Callable[[int], None]`` (the older signature) is accepted where only ``done`` is passed."""

    def __call__(self, done: int, *, total: int | None = ..., step: str | None = ...) -> None: ...


class Progress:
    """The progress of one piece of work; call it as ``progress(done, total=, step=)``."""

    def __init__(
        self,
        *,
        bar: Any = None,
        record: Callable[[ProgressState], None] | None = None,
        every: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bar = bar
        self.record = record
        self.every = every
        self.clock = clock
        self.state = ProgressState()
        self.writes = 0  # how many times the record was written
        self._written_at: float | None = None
        self._written: ProgressState | None = None

    def __call__(self, done: int, *, total: int | None = None, step: str | None = None) -> None:
        changes: dict[str, Any] = {"done": done}
        if total is not None:
            changes["total"] = total
        if step is not None:
            changes["step"] = step
        self.state = replace(self.state, **changes)
        if self.bar is not None:
            self._draw()
        now = self.clock()
        if self._written_at is None or now - self._written_at >= self.every:
            self._write(now)

    def close(self) -> None:
        """Write the last state (if the record has not seen it) and close the bar."""
        if self.record is not None and self._written != self.state:
            self._write(self.clock())
        if self.bar is not None:
            self.bar.close()

    def _draw(self) -> None:
        bar, state = self.bar, self.state
        if state.total is not None and bar.total != state.total:
            bar.total = state.total
            bar.refresh()
        if state.step and getattr(bar, "postfix", None) != state.step:
            bar.set_postfix_str(state.step, refresh=False)
        if state.done != bar.n:
            bar.update(state.done - bar.n)

    def _write(self, now: float) -> None:
        if self.record is None:
            return
        self._written_at = now
        self._written = self.state
        self.writes += 1
        self.record(self.state)
