"""Careers, innings lists and team rows folded from match documents one at a time
(``Recomputation``), by the rules of ``rules``."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ingest.cricsheet.importer import match_id_of
from ingest.cricsheet.verify.records import records
from ingest.cricsheet.verify.rules import (
    BOWLER_KINDS,
    NOT_OUT_KINDS,
    conceded,
    noball,
    rate,
    series_of,
    side_result,
    team_display,
    team_innings,
    venue_key,
    wide,
)


@dataclass
class _Career:
    matches: set = field(default_factory=set)
    innings: dict = field(default_factory=dict)  # (match, innings index) -> runs
    innings_outs: dict = field(default_factory=dict)  # (match, innings index) -> outs
    # (match, innings index) -> balls faced, fours, sixes of that innings
    innings_balls: dict = field(default_factory=dict)
    innings_fours: dict = field(default_factory=dict)
    innings_sixes: dict = field(default_factory=dict)
    balls_faced: int = 0
    fours: int = 0
    sixes: int = 0
    outs: int = 0
    catches: int = 0
    stumpings: int = 0
    run_outs: int = 0
    substitute_catches: int = 0
    substitute_stumpings: int = 0
    substitute_run_outs: int = 0
    spells: dict = field(default_factory=dict)  # (match, innings index) -> [wickets, runs]
    spell_balls: dict = field(default_factory=dict)  # (match, innings index) -> legal balls
    # (match, innings index) -> balls faced when the runs off the bat reached 50 / 100
    fifty_balls: dict = field(default_factory=dict)
    hundred_balls: dict = field(default_factory=dict)
    overs: Fraction = Fraction(0)  # legal balls / the match's balls per over
    legal_balls: int = 0
    runs_conceded: int = 0
    maidens: int = 0
    # (match, innings index) -> the innings list's where and how: date, team, opposition,
    # venue, batting position, how out
    innings_detail: dict = field(default_factory=dict)


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
        # team (as shown) -> result counts and [total, wickets, legal balls, overs] per innings
        self.team_results: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.team_innings: dict[str, list[tuple[int, int, int, Fraction]]] = defaultdict(list)
        self.names: dict[str, str] = {}
        # (match, innings index) -> a side's innings total, its wickets and legal balls, and
        # whether it was complete (all out, or a limited-overs quota bowled)
        self.totals: dict[tuple, dict[str, Any]] = {}
        self.seasons: dict[str, str] = {}  # match -> its season as the file writes it
        self.series: dict[str, str] = {}  # match -> its series (``rules.series_of``)
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
        self.seasons[match_id] = str(info.get("season", ""))
        self.series[match_id] = series_of(info)
        registry = info["registry"]["people"]
        for name, rid in registry.items():
            self.names.setdefault(rid, name)
        only = self.super_overs == "only"
        balls_per_over = int(info.get("balls_per_over", 6))
        if not only:
            for players in (info.get("players") or {}).values():
                for name in players:
                    self.careers[registry[name]].matches.add(match_id)
            # A supersub the players list left out still played.
            for name in (info.get("supersubs") or {}).values():
                self.careers[registry[name]].matches.add(match_id)
        if not only:
            for team in info["teams"]:
                counts = self.team_results[team_display(team, info["gender"])]
                counts["matches"] += 1
                result = side_result(info.get("outcome") or {}, team)
                if result:
                    counts[result] += 1
        for index, inning in enumerate(document["innings"]):
            if bool(inning.get("super_over")) != only:
                continue
            batting = team_display(inning["team"], info["gender"])
            where = {
                "date": info["dates"][0],
                "team": batting,
                "opposition": next(
                    (
                        shown
                        for shown in (team_display(t, info["gender"]) for t in info["teams"])
                        if shown != batting
                    ),
                    None,
                ),
                "venue": venue_key(info.get("venue")),
            }
            self._innings(inning, (match_id, index), registry, balls_per_over, where)
            if not only:
                figures = team_innings(inning, balls_per_over)
                self.team_innings[team_display(inning["team"], info["gender"])].append(figures)
                total, wickets, legal, _ = figures
                absent = len(inning.get("absent_hurt") or [])
                quota = info["overs"] * balls_per_over if info.get("overs") else None
                self.totals[(match_id, index)] = {
                    "total": total,
                    "wickets": wickets,
                    "balls": legal,
                    "complete": not inning.get("forfeited")
                    and (wickets >= 10 - absent or (quota is not None and legal >= quota)),
                }

    def _innings(
        self, inning: dict, key: tuple, registry: dict, balls_per_over: int, where: dict
    ) -> None:
        match_id = key[0]
        # The batting order is first appearance: at a ball the striker, the non-striker,
        # then the players out in wicket order. How an innings ended is the kind of the
        # last wicket naming the batter (a retirement too), hyphenated as the site shows it.
        order: dict[str, int] = {}
        how_out: dict[str, str] = {}
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
                order.setdefault(delivery["batter"], len(order) + 1)
                order.setdefault(delivery["non_striker"], len(order) + 1)
                batter.innings.setdefault(key, 0)
                non_striker.innings.setdefault(key, 0)
                batter.innings_outs.setdefault(key, 0)
                non_striker.innings_outs.setdefault(key, 0)
                # A match replacement (concussion, covid, impact player) plays the match.
                for entry in (delivery.get("replacements") or {}).get("match") or []:
                    person(entry["in"])
                bowler.spells.setdefault(key, [0, 0])
                bowlers.add(delivery["bowler"])
                runs = delivery["runs"]["batter"]
                before = batter.innings[key]
                batter.innings[key] += runs
                if not wide(delivery):
                    batter.balls_faced += 1
                    batter.innings_balls[key] = batter.innings_balls.get(key, 0) + 1
                for mark, reached in ((50, batter.fifty_balls), (100, batter.hundred_balls)):
                    if before < mark <= batter.innings[key]:
                        reached[key] = batter.innings_balls.get(key, 0)
                if not delivery["runs"].get("non_boundary"):
                    batter.fours += runs == 4
                    batter.sixes += runs == 6
                    batter.innings_fours[key] = batter.innings_fours.get(key, 0) + (runs == 4)
                    batter.innings_sixes[key] = batter.innings_sixes.get(key, 0) + (runs == 6)
                given = conceded(delivery)
                bowler.runs_conceded += given
                bowler.spells[key][1] += given
                over_runs += given
                if not (wide(delivery) or noball(delivery)):
                    bowler.legal_balls += 1
                    bowler.spell_balls[key] = bowler.spell_balls.get(key, 0) + 1
                    bowler.overs += Fraction(1, balls_per_over)
                    over_legal += 1
                for wicket in delivery.get("wickets") or []:
                    out = person(wicket["player_out"])
                    order.setdefault(wicket["player_out"], len(order) + 1)
                    how_out[wicket["player_out"]] = wicket["kind"].replace(" ", "-")
                    out.innings.setdefault(key, 0)
                    out.innings_outs.setdefault(key, 0)
                    kind = wicket["kind"]
                    if kind not in NOT_OUT_KINDS:
                        out.outs += 1
                        out.innings_outs[key] += 1
                    if kind in BOWLER_KINDS:
                        bowler.spells[key][0] += 1
                    if kind == "caught and bowled":
                        bowler.catches += 1
                    for fielder in wicket.get("fielders") or []:
                        if not fielder.get("name"):
                            continue  # an unnamed substitute is no one's
                        if fielder.get("substitute"):
                            # A substitute fielder does not play: no match, counted apart.
                            catcher = self.careers[registry[fielder["name"]]]
                            if kind == "caught":
                                catcher.substitute_catches += 1
                            elif kind == "stumped":
                                catcher.substitute_stumpings += 1
                            elif kind == "run out":
                                catcher.substitute_run_outs += 1
                            continue
                        catcher = person(fielder["name"])
                        if kind == "caught":
                            catcher.catches += 1
                        elif kind == "stumped":
                            catcher.stumpings += 1
                        elif kind == "run out":
                            catcher.run_outs += 1
            expected = miscounted.get(over["over"], balls_per_over)
            if len(bowlers) == 1 and over_runs == 0 and over_legal >= expected:
                self.careers[registry[next(iter(bowlers))]].maidens += 1
        for name, position in order.items():
            self.careers[registry[name]].innings_detail[key] = {
                **where,
                "position": position,
                "how_out": how_out.get(name, "not out"),
            }

    def batting(self) -> dict[str, dict[str, Any]]:
        rows = {}
        for rid, c in self.careers.items():
            if not c.matches:
                continue
            scores = list(c.innings.values())
            runs = sum(scores)
            # the highest score is marked not out when any innings of that score was
            top = max(scores) if scores else None
            top_not_out = any(
                score == top and not c.innings_outs.get(key, 0) for key, score in c.innings.items()
            )
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
                "run_outs": c.run_outs,
                "substitute_catches": c.substitute_catches,
                "substitute_stumpings": c.substitute_stumpings,
                "substitute_run_outs": c.substitute_run_outs,
                "not_outs": len(scores) - c.outs,
                "ducks": sum(
                    1
                    for key, score in c.innings.items()
                    if score == 0 and c.innings_outs.get(key, 0)
                ),
                "highest_not_out": top_not_out,
                "average": rate(runs, c.outs),
                "strike_rate": rate(100 * runs, c.balls_faced),
            }
        return rows

    def innings_lists(self) -> dict[str, dict[str, Any]]:
        """Every batting innings of every player, keyed ``"<registry id> <match id>#<innings
        number>"`` (the number counts the file's innings in order, super overs included):
        the innings list's figures, where it was played and how it ended."""
        rows = {}
        for rid, c in self.careers.items():
            for (match_id, index), runs in c.innings.items():
                rows[f"{rid} {match_id}#{index + 1}"] = {
                    "runs": runs,
                    "balls_faced": c.innings_balls.get((match_id, index), 0),
                    "fours": c.innings_fours.get((match_id, index), 0),
                    "sixes": c.innings_sixes.get((match_id, index), 0),
                    "not_out": not c.innings_outs.get((match_id, index), 0),
                    **c.innings_detail[(match_id, index)],
                }
        return rows

    def bowling(self) -> dict[str, dict[str, Any]]:
        rows = {}
        for rid, c in self.careers.items():
            if not c.spells:
                continue
            best = sorted(c.spells.values(), key=lambda s: (-s[0], s[1]))[0]
            per_match: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for (match_id, _), (wickets, runs) in c.spells.items():
                per_match[match_id][0] += wickets
                per_match[match_id][1] += runs
            best_match = sorted(per_match.values(), key=lambda s: (-s[0], s[1]))[0]
            wickets = sum(s[0] for s in c.spells.values())
            rows[rid] = {
                "legal_balls": c.legal_balls,
                "runs_conceded": c.runs_conceded,
                "wickets": wickets,
                "maidens": c.maidens,
                "best_wickets": best[0],
                "best_runs": best[1],
                "best_match_wickets": best_match[0],
                "best_match_runs": best_match[1],
                "four_wickets": sum(1 for s in c.spells.values() if s[0] == 4),
                "five_wickets": sum(1 for s in c.spells.values() if s[0] >= 5),
                "ten_wickets": sum(1 for s in per_match.values() if s[0] >= 10),
                "bowling_average": rate(c.runs_conceded, wickets),
                "economy": rate(c.runs_conceded, c.overs),
                "bowling_strike_rate": rate(c.legal_balls, wickets),
            }
        return rows

    def teams(self) -> dict[str, dict[str, Any]]:
        """The team view (standard innings) keyed by the team's shown name."""
        rows = {}
        for team, counts in self.team_results.items():
            innings = self.team_innings.get(team, [])
            runs = sum(i[0] for i in innings)
            wickets = sum(i[1] for i in innings)
            rows[team] = {
                "matches": counts["matches"],
                **{r: counts[r] for r in ("won", "lost", "tied", "drawn", "no_result")},
                "innings": len(innings),
                "runs": runs,
                "wickets": wickets,
                "balls": sum(i[2] for i in innings),
                "run_rate": rate(runs, sum((i[3] for i in innings), Fraction(0))),
                "average": rate(runs, wickets),
                "highest_total": max((i[0] for i in innings), default=None),
                "lowest_total": min((i[0] for i in innings), default=None),
            }
        return rows

    def records(self) -> dict[str, dict[tuple, tuple[tuple, dict[str, Any]]]]:
        """Every candidate row of each record kind (``records.records``)."""
        return records(self)


def recompute(
    sources: Iterable[tuple[str, bytes]], **scope: Any
) -> tuple[dict[str, dict], dict[str, dict]]:
    """(batting, bowling) careers by registry id from (file name, bytes) pairs."""
    fold = Recomputation(**scope)
    for filename, raw in sources:
        fold.add_file(raw, match_id=match_id_of(filename))
    return fold.batting(), fold.bowling()
