"""Partnerships straight from a match's ball order."""

from __future__ import annotations

from typing import Any

from ingest.cricsheet.verify.rules import NOT_OUT_KINDS, wide


def partnerships_in_file(document: dict, *, match_id: str) -> dict[str, dict[str, Any]]:
    """Every stand of a match straight from its ball order, keyed ``"<match id>#<innings
    number>.<n>"`` (the n-th stand of two batters in that innings, super overs included):
    the pair at the crease (registry ids), the wicket it was for, its runs (the whole total
    of each ball, extras too) and balls (wides not counted), and whether it was unbroken.
    A stand ends at a dismissal of either batter, a retirement (the next stand is for the
    same wicket), or the innings' end."""
    registry = document["info"]["registry"]["people"]
    rows: dict[str, dict[str, Any]] = {}
    for number, inning in enumerate(document["innings"], start=1):
        fallen, previous, broke = 0, None, True
        stands: list[dict[str, Any]] = []
        for over in inning.get("overs", []):
            for delivery in over["deliveries"]:
                pair = frozenset({delivery["batter"], delivery["non_striker"]})
                if pair != previous or broke:
                    stands.append({"pair": pair, "wicket": fallen + 1, "runs": 0, "balls": 0})
                stand = stands[-1]
                stand["runs"] += delivery["runs"]["total"]
                stand["balls"] += 0 if wide(delivery) else 1
                wickets = delivery.get("wickets") or []
                dismissed = any(
                    w["player_out"] in pair and w["kind"] not in NOT_OUT_KINDS for w in wickets
                )
                retired = any(
                    w["player_out"] in pair and w["kind"] in NOT_OUT_KINDS for w in wickets
                )
                fallen += sum(1 for w in wickets if w["kind"] not in NOT_OUT_KINDS)
                stand["unbroken"] = not dismissed
                previous, broke = pair, dismissed or retired
        pairs = [s for s in stands if len(s["pair"]) == 2]
        for n, stand in enumerate(pairs, start=1):
            rows[f"{match_id}#{number}.{n}"] = {
                "pair": " ".join(sorted(registry[name] for name in stand["pair"])),
                "wicket": stand["wicket"],
                "runs": stand["runs"],
                "balls": stand["balls"],
                "unbroken": stand["unbroken"],
            }
    return rows
