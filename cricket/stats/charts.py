"""A player page's charts, drawn by the site's one chart component (``omnium.charts``): the
career progression (cumulative runs innings by innings, the average after each in the
notes) and the runs of each innings as bars, not-out innings marked. Both read the innings
list the page shows (``figures.innings_rows``), oldest first, so the charts and the table
are the same figures under the same filter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omnium.charts import Chart, Series


def _average(runs: int, outs: int) -> str:
    return f"{runs / outs:.2f}" if outs else "none (no outs)"


def career_charts(innings: Sequence[dict[str, Any]]) -> list[Chart]:
    """The progression and runs-per-innings charts of ``innings`` (oldest first); nothing
    for a player without a batting innings."""
    if not innings:
        return []
    labels = [str(n) for n in range(1, len(innings) + 1)]
    cumulative: list[float | int | None] = []
    per_innings: list[float | int | None] = []
    progression_notes, bar_notes, not_outs = [], [], []
    runs = outs = 0
    for i, row in enumerate(innings):
        runs += row["runs"]
        outs += 0 if row["not_out"] else 1
        cumulative.append(runs)
        per_innings.append(row["runs"])
        where = f"{row['date']:%Y-%m-%d} v {row['opposition'] or 'unknown'}"
        progression_notes.append(f"{where}; average {_average(runs, outs)}")
        bar_notes.append(f"{where}{', not out' if row['not_out'] else ''}")
        if row["not_out"]:
            not_outs.append(i)
    count = len(innings)
    return [
        Chart(
            key="progression",
            title="Career progression",
            summary=(
                f"Cumulative runs over {count} innings, {runs} in all at an average of "
                f"{_average(runs, outs)}; each point's note gives the average after it."
            ),
            labels=labels,
            series=[Series("Runs", cumulative, notes=progression_notes)],
            kind="line",
            x_label="Innings",
            y_label="Career runs",
        ),
        Chart(
            key="runs-per-innings",
            title="Runs per innings",
            summary=(
                f"Runs scored in each of {count} innings, oldest first; "
                f"{len(not_outs)} not-out innings are marked."
            ),
            labels=labels,
            series=[Series("Runs", per_innings, marks=not_outs, notes=bar_notes)],
            kind="bar",
            x_label="Innings",
            y_label="Runs",
        ),
    ]
