"""Reading results: win, draw and loss are derived from ranks, never stored."""

from __future__ import annotations

from sports.models import Fixture, FixtureCompetitor


def head_to_head_outcomes(
    fixture: Fixture, sides: list[FixtureCompetitor]
) -> dict[object, str | None]:
    """win / draw / loss per side of a completed two-sided fixture, or None when undecided.

    The one representation every writer uses is both sides on rank 1 with
    ``result.outcome == "draw"``; the older form (both ranks empty on a completed fixture
    whose result says draw, or whose scores are level) is read as a draw too.
    """
    if len(sides) != 2:
        return {s.pk: None for s in sides}
    a, b = sides
    if a.rank is not None and b.rank is not None:
        if a.rank == b.rank:
            return {a.pk: "draw", b.pk: "draw"}
        return {
            a.pk: "win" if a.rank < b.rank else "loss",
            b.pk: "win" if b.rank < a.rank else "loss",
        }
    outcome = (fixture.result or {}).get("outcome")
    scores = (a.result.get("score"), b.result.get("score"))
    level = None not in scores and scores[0] == scores[1]
    if a.rank is None and b.rank is None and (outcome == "draw" or (outcome is None and level)):
        return {a.pk: "draw", b.pk: "draw"}
    return {a.pk: None, b.pk: None}
