"""Hand-made Cricsheet matches for statistics tests: small JSON documents imported through
the real importer, so every rule is proven from a file to a figure."""

from __future__ import annotations

import json
from itertools import count

from ingest.cricsheet.importer import import_bytes
from sports.models import Fixture

_match_ids = count(910_001)

HOME = ["A Batter", "B Batter", "C Batter"]
AWAY = ["X Bowler", "Y Bowler", "Z Keeper"]
REGISTRY = {
    "A Batter": "aaaa0001",
    "B Batter": "aaaa0002",
    "C Batter": "aaaa0003",
    "X Bowler": "bbbb0001",
    "Y Bowler": "bbbb0002",
    "Z Keeper": "bbbb0003",
}


def ball(batter="A Batter", bowler="X Bowler", non_striker="B Batter", runs=0, extras=None,
         *, non_boundary=False, wickets=None) -> dict:  # fmt: skip
    extra_runs = sum((extras or {}).values())
    delivery = {
        "batter": batter,
        "bowler": bowler,
        "non_striker": non_striker,
        "runs": {"batter": runs, "extras": extra_runs, "total": runs + extra_runs},
    }
    if non_boundary:
        delivery["runs"]["non_boundary"] = True
    if extras is not None:
        delivery["extras"] = extras
    if wickets:
        delivery["wickets"] = wickets
    return delivery


def innings(*overs: list[dict], team="Home", **more) -> dict:
    return {
        "team": team,
        "overs": [{"over": n, "deliveries": list(d)} for n, d in enumerate(overs)],
        **more,
    }


def document(
    *innings_list: dict,
    players=None,
    registry=None,
    match_type="T20",
    gender="male",
    day="2024-05-01",
    balls_per_over=6,
    event="Hand Trophy",
) -> dict:
    players = players or {"Home": HOME, "Away": AWAY}
    return {
        "meta": {"data_version": "1.1.0", "created": "2024-05-02", "revision": 1},
        "info": {
            "balls_per_over": balls_per_over,
            "dates": [day],
            "event": {"name": event},
            "gender": gender,
            "match_type": match_type,
            "outcome": {"winner": "Home", "by": {"runs": 1}},
            "players": players,
            "registry": {"people": registry or REGISTRY},
            "season": day[:4],
            "team_type": "club",
            "teams": list(players),
            "venue": "Hand Ground",
        },
        "innings": list(innings_list),
    }


def import_match(doc: dict, *, match_id: str | None = None) -> Fixture:
    match_id = match_id or str(next(_match_ids))
    result = import_bytes(json.dumps(doc).encode(), filename=f"{match_id}.json")
    assert result.outcome == "new", result.error
    return Fixture.objects.get(pk=result.fixture_id)
