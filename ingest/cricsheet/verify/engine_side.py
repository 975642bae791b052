"""The engine's rows keyed as the files' rows are, and the comparison of two keyed tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ingest.cricsheet.verify.rules import BOWLING_COLUMNS, TEAM_COLUMNS, venue_key


def engine_rows(rows: Iterable[dict[str, Any]], columns: tuple[str, ...]) -> dict[str, dict]:
    """Engine career rows (``aggregates.careers``) keyed by registry id, on ``columns``.
    Bowling rows are those with at least one bowling innings."""
    keyed = {}
    for row in rows:
        if columns is BOWLING_COLUMNS and not row["bowling_innings"]:
            continue
        keyed[row["registry_id"]] = {c: row[c] for c in columns}
    return keyed


INNINGS_COLUMNS = (
    "runs",
    "balls_faced",
    "fours",
    "sixes",
    "not_out",
    "date",
    "team",
    "opposition",
    "venue",
    "position",
    "how_out",
)


def engine_innings_rows(
    lists: Iterable[tuple[str, Iterable[dict[str, Any]]]], match_ids: dict[str, str]
) -> dict[str, dict]:
    """Innings list rows (``figures.innings_rows``), given as (registry id, rows) per
    player, keyed as ``Recomputation.innings_lists`` keys them; ``match_ids`` maps a
    fixture id to its Cricsheet match id."""
    keyed = {}
    for rid, rows in lists:
        for row in rows:
            match_id = match_ids.get(row["fixture_id"], row["fixture_id"])
            figures = {c: row[c] for c in INNINGS_COLUMNS}
            figures["date"] = row["date"].isoformat() if row["date"] else None
            figures["venue"] = venue_key(row["venue"])
            keyed[f"{rid} {match_id}#{row['innings']}"] = figures
    return keyed


def engine_team_rows(rows: Iterable[dict[str, Any]]) -> dict[str, dict]:
    """Team view rows (``figures.team_rows``) keyed by the team's shown name."""
    return {row["name"]: {c: row[c] for c in TEAM_COLUMNS} for row in rows}


def compare(engine: dict[str, dict], files: dict[str, dict]) -> list[str]:
    """Every difference between two keyed tables, one sentence each."""
    problems = []
    for rid in sorted(engine.keys() - files.keys()):
        problems.append(f"{rid}: in the engine only")
    for rid in sorted(files.keys() - engine.keys()):
        problems.append(f"{rid}: in the files only")
    for rid in sorted(engine.keys() & files.keys()):
        for column, expected in files[rid].items():
            got = engine[rid].get(column)
            if got != expected:
                problems.append(f"{rid} {column}: engine {got}, files {expected}")
    return problems
