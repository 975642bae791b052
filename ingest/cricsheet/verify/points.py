"""Cricket points tables straight from the files: one table per series (``series_of``),
each team's played, won, lost, tied, drawn, no result, points and net run rate.

Results, from ``info.outcome``: no outcome or ``no result`` is a no result (an abandoned
match); a winner wins; a tie decided by an eliminator or a bowl-out is the decider's win
(or a tie where the competition says a decider counts as a tie); a tie with no decider
is a tie; a draw is a draw.

Net run rate, by the standard definition, over the matches with a result: runs scored /
overs faced - runs conceded / overs bowled, an over being the match's balls per over.
A side bowled out (ten wickets, counting its batters absent hurt) faces its full quota:
the match's overs, or a target's overs where the file sets the side one. When the chase
carries a revised target (a D/L or DLS method, or target overs under the quota), the side
batting first is credited with the target less one run off the target's overs. Super-over
innings never count.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ingest.cricsheet.verify.rules import series_of, team_display, team_innings

# The result word of a side -> the table's column.
_COLUMN = {"win": "won", "loss": "lost", "tie": "tied", "draw": "drawn", "no_result": "no_result"}
_REVISING_METHODS = frozenset({"D/L", "DLS"})


@dataclass
class _Match:
    teams: list[str]  # as shown
    outcome: dict
    winner: str | None  # as shown: the winner, or the decider of a tie
    balls_per_over: int
    quota: int | None  # legal balls of the match's overs, if limited
    # per regular innings: (team, total, wickets, legal balls, absent hurt, target runs,
    # target balls)
    innings: list[tuple[str, int, int, int, int, int | None, int | None]]


@dataclass
class _Standing:
    played: int = 0
    won: int = 0
    lost: int = 0
    tied: int = 0
    drawn: int = 0
    no_result: int = 0
    points: int = 0
    runs_for: int = 0
    runs_against: int = 0
    overs_faced: Fraction = field(default_factory=Fraction)
    overs_bowled: Fraction = field(default_factory=Fraction)
    legal_for: int = 0
    legal_against: int = 0
    per_over: set = field(default_factory=set)


def _target_balls(overs: Any, balls_per_over: int) -> int | None:
    """A target's overs as written (38.2: 38 overs and 2 balls) in balls."""
    if overs is None:
        return None
    whole, _, part = f"{float(overs):.1f}".partition(".")
    return int(whole) * balls_per_over + int(part)


def _words(match: _Match, tie_decider: str) -> dict[str, str]:
    outcome, teams, winner = match.outcome, match.teams, match.winner
    if not outcome or outcome.get("result") == "no result":
        return dict.fromkeys(teams, "no_result")
    if winner is None:
        return dict.fromkeys(teams, "tie" if outcome.get("result") == "tie" else "draw")
    if outcome.get("result") == "tie" and tie_decider == "tie":
        return dict.fromkeys(teams, "tie")
    return {t: "win" if t == winner else "loss" for t in teams}


class PointsFold:
    """Fold match documents one at a time; ``tables`` gives every series' table."""

    def __init__(self) -> None:
        self.series: dict[str, list[_Match]] = defaultdict(list)

    def add(self, document: dict, *, match_id: str) -> None:
        info = document["info"]
        if len(info["teams"]) != 2:
            return
        per_over = int(info.get("balls_per_over", 6))
        innings = []
        for inning in document["innings"]:
            if inning.get("super_over"):
                continue
            total, wickets, legal, _ = team_innings(inning, per_over)
            target = inning.get("target") or {}
            innings.append(
                (
                    inning["team"],
                    total,
                    wickets,
                    legal,
                    len(inning.get("absent_hurt") or []),
                    target.get("runs"),
                    _target_balls(target.get("overs"), per_over),
                )
            )
        outcome = info.get("outcome") or {}
        winner = outcome.get("winner") or outcome.get("eliminator") or outcome.get("bowl_out")
        self.series[series_of(info)].append(
            _Match(
                teams=[team_display(t, info["gender"]) for t in info["teams"]],
                outcome=outcome,
                winner=None if winner is None else team_display(winner, info["gender"]),
                balls_per_over=per_over,
                quota=info["overs"] * per_over if info.get("overs") else None,
                innings=[(team_display(i[0], info["gender"]), *i[1:]) for i in innings],
            )
        )

    def tables(
        self, rules: dict[str, tuple[dict[str, int], str, dict[str, int]]]
    ) -> dict[str, dict[str, Any]]:
        """Every team's row of every series in ``rules``, keyed ``"<series> | <team>"``.
        ``rules`` gives each series' points per result word (win, loss, tie, draw,
        no_result), how a decided tie counts ("win" or "tie") and the points adjustments
        decided under it (team -> points): the competition's settings, not the files'."""
        rows = {}
        for series, (points, tie_decider, adjustments) in rules.items():
            standings: dict[str, _Standing] = defaultdict(_Standing)
            for match in self.series.get(series, []):
                self._match(match, points, tie_decider, standings)
            for team, delta in adjustments.items():
                standings[team].points += delta
            for team, s in standings.items():
                rows[f"{series} | {team}"] = _row(s)
        return rows

    @staticmethod
    def _match(
        match: _Match, points: dict[str, int], tie_decider: str, standings: dict[str, _Standing]
    ) -> None:
        words = _words(match, tie_decider)
        for team, word in words.items():
            standing = standings[team]
            standing.played += 1
            setattr(standing, _COLUMN[word], getattr(standing, _COLUMN[word]) + 1)
            standing.points += points[word]
        if next(iter(words.values())) == "no_result":
            return
        method = match.outcome.get("method")
        credited: dict[int, tuple[int, int]] = {}
        for index, (_, total, wickets, legal, absent, target_runs, target_balls) in enumerate(
            match.innings
        ):
            quota = target_balls or match.quota
            credited[index] = (total, quota if quota and wickets + absent >= 10 else legal)
            revised = target_balls is not None and (
                method in _REVISING_METHODS
                or (match.quota is not None and target_balls < match.quota)
            )
            if index == 1 and revised and target_balls and target_runs:
                credited[0] = (target_runs - 1, target_balls)
        for index, (runs, balls) in credited.items():
            team = match.innings[index][0]
            others = [t for t in match.teams if t != team]
            if not balls or len(others) != 1:
                continue
            batting, bowling = standings[team], standings[others[0]]
            overs = Fraction(balls, match.balls_per_over)
            batting.runs_for += runs
            batting.overs_faced += overs
            batting.legal_for += balls
            bowling.runs_against += runs
            bowling.overs_bowled += overs
            bowling.legal_against += balls
            batting.per_over.add(match.balls_per_over)
            bowling.per_over.add(match.balls_per_over)


def _overs(balls: int, per_over: int) -> str:
    whole, rest = divmod(balls, per_over)
    return f"{whole}.{rest}" if rest else str(whole)


def _row(s: _Standing) -> dict[str, Any]:
    nrr = (
        s.runs_for / s.overs_faced - s.runs_against / s.overs_bowled
        if s.overs_faced and s.overs_bowled
        else None
    )
    row: dict[str, Any] = {
        "played": s.played,
        "won": s.won,
        "lost": s.lost,
        "tied": s.tied,
        "drawn": s.drawn,
        "no_result": s.no_result,
        "points": s.points,
        "net_run_rate": None if nrr is None else round(float(nrr), 3),
        "runs_for": s.runs_for,
        "runs_against": s.runs_against,
    }
    if len(s.per_over) <= 1:  # overs as written need one length of over
        per_over = next(iter(s.per_over), 6)
        row["overs_for"] = _overs(s.legal_for, per_over)
        row["overs_against"] = _overs(s.legal_against, per_over)
    return row


POINTS_COLUMNS = (
    "played",
    "won",
    "lost",
    "tied",
    "drawn",
    "no_result",
    "points",
    "net_run_rate",
    "runs_for",
    "runs_against",
    "overs_for",
    "overs_against",
)
