"""One chart component for every public page.

A view builds a :class:`Chart`; ``templates/omnium/_chart.html`` renders it as a figure with
a canvas drawn by the vendored Chart.js (``static/vendor/chartjs``), a text alternative and
the same figures as a table, so a reader without scripts or a screen reader loses nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

ChartKind = Literal["line", "bar"]


@dataclass(frozen=True)
class Series:
    label: str
    values: Sequence[float | int | None]
    # Indexes of points to highlight (a wicket's over, the latest price).
    marks: Sequence[int] = ()
    # Optional per-point notes shown in the tooltip and the table ("2 wickets").
    notes: Sequence[str] = ()

    def __post_init__(self) -> None:
        if any(not 0 <= i < len(self.values) for i in self.marks):
            raise ValueError(
                f"series {self.label!r}: a mark is outside its {len(self.values)} points"
            )
        if self.notes and len(self.notes) != len(self.values):
            raise ValueError(f"series {self.label!r}: notes and values differ in length")


@dataclass(frozen=True)
class Chart:
    key: str
    title: str
    summary: str
    labels: Sequence[str]
    series: Sequence[Series]
    kind: ChartKind = "line"
    x_label: str = ""
    y_label: str = ""
    stacked: bool = False
    # Bars drawn horizontally (long category names, such as countries).
    horizontal: bool = False
    options: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for s in self.series:
            if len(s.values) != len(self.labels):
                raise ValueError(
                    f"chart {self.key!r}: series {s.label!r} has {len(s.values)} points "
                    f"for {len(self.labels)} labels"
                )

    @property
    def points(self) -> str:
        """Points per series, counting only the points drawn (a ``None`` is a gap)."""
        return ",".join(str(sum(v is not None for v in s.values)) for s in self.series)

    @property
    def rows(self) -> list[tuple[str, list[str]]]:
        """The table fallback: one row per label, one cell per series."""
        out = []
        for i, label in enumerate(self.labels):
            cells = []
            for s in self.series:
                value = s.values[i]
                text = "" if value is None else f"{value:g}"
                if s.notes and s.notes[i]:
                    text = f"{text} ({s.notes[i]})" if text else s.notes[i]
                cells.append(text)
            out.append((label, cells))
        return out

    def spec(self) -> dict[str, object]:
        """What the browser script needs, as JSON-safe data."""
        return {
            "kind": self.kind,
            "title": self.title,
            "labels": list(self.labels),
            "x_label": self.x_label,
            "y_label": self.y_label,
            "stacked": self.stacked,
            "horizontal": self.horizontal,
            "series": [
                {
                    "label": s.label,
                    "values": list(s.values),
                    "marks": list(s.marks),
                    "notes": list(s.notes),
                }
                for s in self.series
            ],
            "options": self.options,
        }
