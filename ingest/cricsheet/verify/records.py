"""Record rows recomputed from a ``Recomputation``'s folds, and their comparison with
the engine's first rows of each kind."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the fold imports this module to answer its records()
    from ingest.cricsheet.verify.careers import Recomputation


def records(fold: Recomputation) -> dict[str, dict[tuple, tuple[tuple, dict[str, Any]]]]:
    """Every candidate row of each record kind (super overs never count): key ->
    (the figures it is ranked by, record first when sorted; its figures). Keys are
    (registry id, match id, innings number), (registry id, match id), (match id,
    innings number), (registry id, season) or (registry id, series); the innings number
    counts the file's innings in order."""
    kinds: dict[str, dict[tuple, tuple[tuple, dict[str, Any]]]] = defaultdict(dict)
    for rid, c in fold.careers.items():
        for (match_id, index), runs in c.innings.items():
            key = (rid, match_id, index + 1)
            balls = c.innings_balls.get((match_id, index), 0)
            not_out = not c.innings_outs.get((match_id, index), 0)
            if balls:
                kinds["highest-innings"][key] = (
                    (-runs, balls),
                    {"runs": runs, "balls": balls, "not_out": not_out},
                )
            for kind, reached in (
                ("fastest-fifties", c.fifty_balls),
                ("fastest-hundreds", c.hundred_balls),
            ):
                if (match_id, index) in reached:
                    at = reached[(match_id, index)]
                    kinds[kind][key] = (
                        (at, -runs),
                        {"balls": at, "runs": runs, "not_out": not_out},
                    )
        per_match: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for (match_id, index), (wickets, runs) in c.spells.items():
            balls = c.spell_balls.get((match_id, index), 0)
            for i, value in enumerate((wickets, runs, balls)):
                per_match[match_id][i] += value
            if wickets:
                kinds["best-bowling-innings"][(rid, match_id, index + 1)] = (
                    (-wickets, runs, balls),
                    {"wickets": wickets, "runs": runs, "balls": balls},
                )
        for match_id, (wickets, runs, balls) in per_match.items():
            if wickets:
                kinds["best-bowling-match"][(rid, match_id)] = (
                    (-wickets, runs, balls),
                    {"wickets": wickets, "runs": runs, "balls": balls},
                )
        # A season as the file names it; a series as the competition tree's season node
        # under the match's event (``Recomputation.series``).
        for group, of in (("season", fold.seasons), ("series", fold.series)):
            batted: dict[Any, list[int]] = defaultdict(lambda: [0, 0])
            for (match_id, _), runs in c.innings.items():
                batted[of[match_id]][0] += runs
                batted[of[match_id]][1] += 1
            for where, (runs, innings) in batted.items():
                kinds[f"most-runs-{group}"][(rid, where)] = (
                    (-runs, innings),
                    {"runs": runs, "innings": innings},
                )
            bowled: dict[Any, list[int]] = defaultdict(lambda: [0, 0])
            for (match_id, _), (wickets, runs) in c.spells.items():
                bowled[of[match_id]][0] += wickets
                bowled[of[match_id]][1] += runs
            for where, (wickets, runs) in bowled.items():
                if wickets:
                    kinds[f"most-wickets-{group}"][(rid, where)] = (
                        (-wickets, runs),
                        {"wickets": wickets, "runs": runs},
                    )
    for (match_id, index), total in fold.totals.items():
        figures = {k: total[k] for k in ("total", "wickets", "balls")}
        kinds["highest-totals"][(match_id, index + 1)] = (
            (-total["total"], total["balls"]),
            figures,
        )
        if total["complete"]:
            kinds["lowest-totals"][(match_id, index + 1)] = (
                (total["total"], -total["balls"]),
                figures,
            )
    return kinds


# The record kinds ``records`` recomputes; partnerships are compared stand by stand
# (``partnerships_in_file``).
RECORD_KINDS = (
    "highest-innings",
    "best-bowling-innings",
    "best-bowling-match",
    "highest-totals",
    "lowest-totals",
    "most-runs-season",
    "most-wickets-season",
    "most-runs-series",
    "most-wickets-series",
    "fastest-fifties",
    "fastest-hundreds",
)


def compare_records(
    kind: str,
    engine: list[tuple[tuple, tuple, dict[str, Any]]],
    files: dict[tuple, tuple[tuple, dict[str, Any]]],
    *,
    limit: int,
) -> list[str]:
    """The engine's first ``limit`` rows of one record kind, as (key, ranked figures,
    figures) in its order, against every candidate the files give: as many rows, the same
    ranked figures place by place as the files' best (ties may come in any order), and
    each row's figures equal to the files' row of that key. One sentence per difference."""
    problems = []
    best = sorted(rank for rank, _ in files.values())[:limit]
    if len(engine) != len(best):
        problems.append(f"{kind}: engine {len(engine)} rows, files {len(best)}")
    for place, (got, expected) in enumerate(zip(engine, best, strict=False), start=1):
        if got[1] != expected:
            problems.append(f"{kind} #{place}: engine ranks {got[1]}, files {expected}")
            break  # every later place shifts with it
    for key, _, figures in engine:
        label = " ".join(str(part) for part in key)
        if key not in files:
            problems.append(f"{kind} {label}: in the engine only")
            continue
        for column, expected in files[key][1].items():
            if figures.get(column) != expected:
                problems.append(
                    f"{kind} {label} {column}: engine {figures.get(column)}, files {expected}"
                )
    return problems
