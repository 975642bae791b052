"""An independent recomputation of batting and bowling careers straight from Cricsheet
files, for acceptance: it reads the JSON, never the database or the engine, and applies
the issue's rules in plain Python, so agreement with the engine means two separate
implementations of one rulebook agree.

Careers are keyed by registry identifier (``info.registry.people``), never by name. The
dismissal kinds are written here from the Laws rather than read from ``DismissalKind``.

``compare(engine_rows, files_rows)`` lists every difference, figure by figure.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ingest.cricsheet.importer import match_id_of

# Kinds where the bowler takes the wicket (Laws 32-39), and retirements that are not outs.
BOWLER_KINDS = frozenset({"bowled", "caught", "caught and bowled", "lbw", "stumped", "hit wicket"})
NOT_OUT_KINDS = frozenset({"retired hurt", "retired not out"})

BATTING_COLUMNS = (
    "matches",
    "innings",
    "runs",
    "balls_faced",
    "fours",
    "sixes",
    "outs",
    "highest",
    "fifties",
    "hundreds",
    "catches",
    "stumpings",
)
BOWLING_COLUMNS = (
    "legal_balls",
    "runs_conceded",
    "wickets",
    "maidens",
    "best_wickets",
    "best_runs",
)


@dataclass
class _Career:
    matches: set = field(default_factory=set)
    innings: dict = field(default_factory=dict)  # (match, innings index) -> runs
    balls_faced: int = 0
    fours: int = 0
    sixes: int = 0
    outs: int = 0
    catches: int = 0
    stumpings: int = 0
    spells: dict = field(default_factory=dict)  # (match, innings index) -> [wickets, runs]
    legal_balls: int = 0
    runs_conceded: int = 0
    maidens: int = 0


def _wide(delivery: dict) -> bool:
    return (delivery.get("extras") or {}).get("wides", 0) > 0


def _noball(delivery: dict) -> bool:
    return (delivery.get("extras") or {}).get("noballs", 0) > 0


def _conceded(delivery: dict) -> int:
    extras = delivery.get("extras") or {}
    runs = delivery["runs"]["batter"] + extras.get("wides", 0) + extras.get("noballs", 0)
    if _wide(delivery):  # Law 22.6: byes and leg-byes off a wide are wide runs
        runs += extras.get("byes", 0) + extras.get("legbyes", 0)
    return runs


class Recomputation:
    """Fold match documents one at a time; ``batting()`` and ``bowling()`` give the
    careers keyed by registry id."""

    def __init__(
        self,
        *,
        format_code: str | None = None,
        gender: str | None = None,
        super_overs: str = "exclude",
    ) -> None:
        self.format_code = format_code
        self.gender = gender
        self.super_overs = super_overs
        self.careers: dict[str, _Career] = defaultdict(_Career)
        self.names: dict[str, str] = {}
        self.matches = 0

    def add_file(self, raw: bytes, *, match_id: str) -> None:
        self.add(json.loads(raw), match_id=match_id)

    def add(self, document: dict, *, match_id: str) -> None:
        info = document["info"]
        if self.format_code and info["match_type"] != self.format_code:
            return
        if self.gender and info["gender"] != self.gender:
            return
        self.matches += 1
        registry = info["registry"]["people"]
        for name, rid in registry.items():
            self.names.setdefault(rid, name)
        only = self.super_overs == "only"
        balls_per_over = int(info.get("balls_per_over", 6))
        if not only:
            for players in (info.get("players") or {}).values():
                for name in players:
                    self.careers[registry[name]].matches.add(match_id)
        for index, inning in enumerate(document["innings"]):
            if bool(inning.get("super_over")) != only:
                continue
            self._innings(inning, (match_id, index), registry, balls_per_over)

    def _innings(self, inning: dict, key: tuple, registry: dict, balls_per_over: int) -> None:
        match_id = key[0]
        miscounted = {
            int(over): int(value["balls"])
            for over, value in (inning.get("miscounted_overs") or {}).items()
        }

        def person(name: str) -> _Career:
            career = self.careers[registry[name]]
            career.matches.add(match_id)
            return career

        for over in inning.get("overs", []):
            bowlers = set()
            over_runs = 0
            over_legal = 0
            for delivery in over["deliveries"]:
                batter = person(delivery["batter"])
                non_striker = person(delivery["non_striker"])
                bowler = person(delivery["bowler"])
                batter.innings.setdefault(key, 0)
                non_striker.innings.setdefault(key, 0)
                bowler.spells.setdefault(key, [0, 0])
                bowlers.add(delivery["bowler"])
                runs = delivery["runs"]["batter"]
                batter.innings[key] += runs
                if not _wide(delivery):
                    batter.balls_faced += 1
                if not delivery["runs"].get("non_boundary"):
                    batter.fours += runs == 4
                    batter.sixes += runs == 6
                conceded = _conceded(delivery)
                bowler.runs_conceded += conceded
                bowler.spells[key][1] += conceded
                over_runs += conceded
                if not (_wide(delivery) or _noball(delivery)):
                    bowler.legal_balls += 1
                    over_legal += 1
                for wicket in delivery.get("wickets") or []:
                    out = person(wicket["player_out"])
                    out.innings.setdefault(key, 0)
                    kind = wicket["kind"]
                    if kind not in NOT_OUT_KINDS:
                        out.outs += 1
                    if kind in BOWLER_KINDS:
                        bowler.spells[key][0] += 1
                    if kind == "caught and bowled":
                        bowler.catches += 1
                    for fielder in wicket.get("fielders") or []:
                        if not fielder.get("name"):
                            continue
                        catcher = person(fielder["name"])
                        if fielder.get("substitute"):
                            continue
                        if kind == "caught":
                            catcher.catches += 1
                        elif kind == "stumped":
                            catcher.stumpings += 1
            expected = miscounted.get(over["over"], balls_per_over)
            if len(bowlers) == 1 and over_runs == 0 and over_legal >= expected:
                self.careers[registry[next(iter(bowlers))]].maidens += 1

    def batting(self) -> dict[str, dict[str, Any]]:
        rows = {}
        for rid, c in self.careers.items():
            if not c.matches:
                continue
            scores = list(c.innings.values())
            rows[rid] = {
                "matches": len(c.matches),
                "innings": len(scores),
                "runs": sum(scores),
                "balls_faced": c.balls_faced,
                "fours": c.fours,
                "sixes": c.sixes,
                "outs": c.outs,
                "highest": max(scores) if scores else None,
                "fifties": sum(50 <= s <= 99 for s in scores),
                "hundreds": sum(s >= 100 for s in scores),
                "catches": c.catches,
                "stumpings": c.stumpings,
            }
        return rows

    def bowling(self) -> dict[str, dict[str, Any]]:
        rows = {}
        for rid, c in self.careers.items():
            if not c.spells:
                continue
            best = sorted(c.spells.values(), key=lambda s: (-s[0], s[1]))[0]
            rows[rid] = {
                "legal_balls": c.legal_balls,
                "runs_conceded": c.runs_conceded,
                "wickets": sum(s[0] for s in c.spells.values()),
                "maidens": c.maidens,
                "best_wickets": best[0],
                "best_runs": best[1],
            }
        return rows


def recompute(
    sources: Iterable[tuple[str, bytes]], **scope: Any
) -> tuple[dict[str, dict], dict[str, dict]]:
    """(batting, bowling) careers by registry id from (file name, bytes) pairs."""
    fold = Recomputation(**scope)
    for filename, raw in sources:
        fold.add_file(raw, match_id=match_id_of(filename))
    return fold.batting(), fold.bowling()


def engine_rows(rows: Iterable[dict[str, Any]], columns: tuple[str, ...]) -> dict[str, dict]:
    """Engine career rows (``aggregates.careers``) keyed by registry id, on ``columns``.
    Bowling rows are those with at least one bowling innings."""
    keyed = {}
    for row in rows:
        if columns is BOWLING_COLUMNS and not row["bowling_innings"]:
            continue
        keyed[row["registry_id"]] = {c: row[c] for c in columns}
    return keyed


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
