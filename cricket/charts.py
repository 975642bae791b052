"""The scorecard's charts: an innings worm (cumulative runs by over, wickets marked) and a
manhattan (runs per over, wicket overs marked), one query over the live deliveries."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count, Q, Sum

from cricket.models import Delivery
from omnium.charts import Chart, Series


def _over_totals(fixture_id: Any) -> dict[int, dict[int, tuple[int, int]]]:
    """{innings ordinal: {over number (0-based): (runs, wickets)}} over live deliveries of
    regular innings (super overs are not drawn). Penalty runs awarded outside a delivery
    are not part of any over."""
    rows = (
        Delivery.objects.current()
        .filter(innings__fixture_id=fixture_id, innings__super_over=False)
        .values("innings__ordinal", "over_number")
        .annotate(
            runs=Sum("runs_total"),
            dismissals=Count("wickets", filter=Q(wickets__kind__is_dismissal=True)),
        )
        .order_by("innings__ordinal", "over_number")
    )
    out: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    for row in rows:
        out[row["innings__ordinal"]][row["over_number"]] = (row["runs"] or 0, row["dismissals"])
    return out


def scorecard_charts(fixture_id: Any, team_names: dict[int, str]) -> list[Chart]:
    """The worm and the manhattan of a fixture, or nothing when it has no deliveries.
    ``team_names`` maps an innings ordinal to the batting side's label."""
    totals = _over_totals(fixture_id)
    if not totals:
        return []
    overs = max(max(by_over) for by_over in totals.values()) + 1
    labels = [str(n + 1) for n in range(overs)]
    worm, manhattan = [], []
    seen: dict[str, int] = defaultdict(int)
    for ordinal in sorted(totals):
        by_over = totals[ordinal]
        last = max(by_over)
        cumulative: list[float | int | None] = []
        per_over: list[float | int | None] = []
        marks, notes = [], []
        running = 0
        for n in range(overs):
            runs, wickets = by_over.get(n, (0, 0))
            if n > last:
                cumulative.append(None)
                per_over.append(None)
                notes.append("")
                continue
            running += runs
            cumulative.append(running)
            per_over.append(runs)
            if wickets:
                marks.append(n)
            notes.append(f"{wickets} wicket{'s' if wickets != 1 else ''}" if wickets else "")
        label = team_names.get(ordinal, f"Innings {ordinal}")
        seen[label] += 1
        if sum(1 for name in team_names.values() if name == label) > 1:
            # A side that bats twice (a Test): "India, 2nd innings".
            label = f"{label}, {_ordinal_word(seen[label])} innings"
        worm.append(Series(label, cumulative, marks=marks, notes=notes))
        manhattan.append(Series(label, per_over, marks=marks, notes=notes))
    finals = ", ".join(
        f"{s.label} {next(v for v in reversed(s.values) if v is not None)} after "
        f"{sum(v is not None for v in s.values)} overs"
        for s in worm
    )
    wickets_text = "Marked points are overs in which a wicket fell."
    return [
        Chart(
            key="worm",
            title="Innings worm",
            summary=f"Cumulative runs by over: {finals}. {wickets_text}",
            labels=labels,
            series=worm,
            kind="line",
            x_label="Over",
            y_label="Runs",
        ),
        Chart(
            key="manhattan",
            title="Manhattan",
            summary=f"Runs scored in each over. {wickets_text}",
            labels=labels,
            series=manhattan,
            kind="bar",
            x_label="Over",
            y_label="Runs in the over",
        ),
    ]


def _ordinal_word(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
