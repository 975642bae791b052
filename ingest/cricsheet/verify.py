"""An independent recomputation of batting and bowling careers straight from Cricsheet
files, for acceptance: it reads the JSON, never the database or the engine, and applies
the issue's rules in plain Python, so agreement with the engine means two separate
implementations of one rulebook agree.

Careers are keyed by registry identifier (``info.registry.people``), never by name. The
dismissal kinds are written here from the Laws rather than read from ``DismissalKind``.

Matches follow the issue's definition: listed players, players entering through
``replacements.match``, and anyone named as batter, non-striker, bowler, player out or a
fielder who is not a substitute (a substitute fielder does not play). Derived figures are
computed exactly (fractions) and rounded half away from zero to two places, as
PostgreSQL rounds a numeric.

Innings lists (``Recomputation.innings_lists``) and partnerships
(``partnerships_in_file``) are keyed per innings and per stand the same way.

``compare(engine_rows, files_rows)`` lists every difference, figure by figure.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
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
    "run_outs",
    "substitute_catches",
    "substitute_stumpings",
    "substitute_run_outs",
    "not_outs",
    "ducks",
    "highest_not_out",
    "average",
    "strike_rate",
)
BOWLING_COLUMNS = (
    "legal_balls",
    "runs_conceded",
    "wickets",
    "maidens",
    "best_wickets",
    "best_runs",
    "best_match_wickets",
    "best_match_runs",
    "four_wickets",
    "five_wickets",
    "ten_wickets",
    "bowling_average",
    "economy",
    "bowling_strike_rate",
)


TEAM_COLUMNS = (
    "matches",
    "won",
    "lost",
    "tied",
    "drawn",
    "no_result",
    "innings",
    "runs",
    "wickets",
    "balls",
    "run_rate",
    "average",
    "highest_total",
    "lowest_total",
)


def team_display(name: str, gender: str) -> str:
    """A team's name as the site shows it: Cricsheet names men's and women's sides alike."""
    return f"{name} (women)" if gender == "female" and "women" not in name.lower() else name


def _result(outcome: dict, team: str) -> str:
    if outcome.get("result") == "no result":
        return "no_result"
    if outcome.get("result") == "tie":
        return "tied"  # decided by an eliminator or a bowl-out or not, a tie is a tie
    if outcome.get("result") == "draw":
        return "drawn"
    winner = outcome.get("winner") or outcome.get("eliminator") or outcome.get("bowl_out")
    if winner:
        return "won" if winner == team else "lost"
    return ""


def _rate(numerator: int | Fraction, denominator: int | Fraction) -> float | None:
    """numerator / denominator to two places, half away from zero; None over zero."""
    if not denominator:
        return None
    exact = Fraction(numerator) / Fraction(denominator)
    value = Decimal(exact.numerator) / Decimal(exact.denominator)
    return float(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


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
        # team (as shown) -> result counts and [total, wickets, legal balls, overs] per innings
        self.team_results: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.team_innings: dict[str, list[tuple[int, int, int, Fraction]]] = defaultdict(list)
        self.names: dict[str, str] = {}
        # (match, innings index) -> a side's innings total, its wickets and legal balls, and
        # whether it was complete (all out, or a limited-overs quota bowled)
        self.totals: dict[tuple, dict[str, Any]] = {}
        self.seasons: dict[str, str] = {}  # match -> its season as the file writes it
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
                result = _result(info.get("outcome") or {}, team)
                if result:
                    counts[result] += 1
        for index, inning in enumerate(document["innings"]):
            if bool(inning.get("super_over")) != only:
                continue
            self._innings(inning, (match_id, index), registry, balls_per_over)
            if not only:
                figures = _team_innings(inning, balls_per_over)
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
                if not _wide(delivery):
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
                conceded = _conceded(delivery)
                bowler.runs_conceded += conceded
                bowler.spells[key][1] += conceded
                over_runs += conceded
                if not (_wide(delivery) or _noball(delivery)):
                    bowler.legal_balls += 1
                    bowler.spell_balls[key] = bowler.spell_balls.get(key, 0) + 1
                    bowler.overs += Fraction(1, balls_per_over)
                    over_legal += 1
                for wicket in delivery.get("wickets") or []:
                    out = person(wicket["player_out"])
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
                "average": _rate(runs, c.outs),
                "strike_rate": _rate(100 * runs, c.balls_faced),
            }
        return rows

    def innings_lists(self) -> dict[str, dict[str, Any]]:
        """Every batting innings of every player, keyed ``"<registry id> <match id>#<innings
        number>"`` (the number counts the file's innings in order, super overs included):
        the innings list's figures."""
        rows = {}
        for rid, c in self.careers.items():
            for (match_id, index), runs in c.innings.items():
                rows[f"{rid} {match_id}#{index + 1}"] = {
                    "runs": runs,
                    "balls_faced": c.innings_balls.get((match_id, index), 0),
                    "fours": c.innings_fours.get((match_id, index), 0),
                    "sixes": c.innings_sixes.get((match_id, index), 0),
                    "not_out": not c.innings_outs.get((match_id, index), 0),
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
                "bowling_average": _rate(c.runs_conceded, wickets),
                "economy": _rate(c.runs_conceded, c.overs),
                "bowling_strike_rate": _rate(c.legal_balls, wickets),
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
                "run_rate": _rate(runs, sum((i[3] for i in innings), Fraction(0))),
                "average": _rate(runs, wickets),
                "highest_total": max((i[0] for i in innings), default=None),
                "lowest_total": min((i[0] for i in innings), default=None),
            }
        return rows

    def records(self) -> dict[str, dict[tuple, tuple[tuple, dict[str, Any]]]]:
        """Every candidate row of each record kind (super overs never count): key ->
        (the figures it is ranked by, record first when sorted; its figures). Keys are
        (registry id, match id, innings number), (registry id, match id), (match id,
        innings number) or (registry id, season); the innings number counts the file's
        innings in order."""
        kinds: dict[str, dict[tuple, tuple[tuple, dict[str, Any]]]] = defaultdict(dict)
        for rid, c in self.careers.items():
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
            seasons: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for match_id, _ in c.innings:
                seasons[self.seasons[match_id]][1] += 1
            for (match_id, _), runs in c.innings.items():
                seasons[self.seasons[match_id]][0] += runs
            for season, (runs, innings) in seasons.items():
                kinds["most-runs-season"][(rid, season)] = (
                    (-runs, innings),
                    {"runs": runs, "innings": innings},
                )
            bowled: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for (match_id, _), (wickets, runs) in c.spells.items():
                bowled[self.seasons[match_id]][0] += wickets
                bowled[self.seasons[match_id]][1] += runs
            for season, (wickets, runs) in bowled.items():
                if wickets:
                    kinds["most-wickets-season"][(rid, season)] = (
                        (-wickets, runs),
                        {"wickets": wickets, "runs": runs},
                    )
        for (match_id, index), total in self.totals.items():
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


# The record kinds ``Recomputation.records`` recomputes; partnerships are compared stand by
# stand (``partnerships_in_file``), and series need the competition tree, not the files.
RECORD_KINDS = (
    "highest-innings",
    "best-bowling-innings",
    "best-bowling-match",
    "highest-totals",
    "lowest-totals",
    "most-runs-season",
    "most-wickets-season",
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


def _team_innings(inning: dict, balls_per_over: int) -> tuple[int, int, int, Fraction]:
    """(total with penalty runs, wickets, legal balls, overs of the match's length)."""
    penalty = inning.get("penalty_runs") or {}
    total = penalty.get("pre", 0) + penalty.get("post", 0)
    wickets = legal = 0
    for over in inning.get("overs", []):
        for delivery in over["deliveries"]:
            total += delivery["runs"]["total"]
            legal += not (_wide(delivery) or _noball(delivery))
            wickets += sum(
                1 for w in delivery.get("wickets") or [] if w["kind"] not in NOT_OUT_KINDS
            )
    return total, wickets, legal, Fraction(legal, balls_per_over)


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
                stand["balls"] += 0 if _wide(delivery) else 1
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


INNINGS_COLUMNS = ("runs", "balls_faced", "fours", "sixes", "not_out")


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
            keyed[f"{rid} {match_id}#{row['innings']}"] = {c: row[c] for c in INNINGS_COLUMNS}
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
