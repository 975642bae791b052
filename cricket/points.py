"""A cricket competition's points table: played, won, lost, tied, drawn, no result, points
and net run rate, folded over the public fixtures under a competition node.

Points per result come from the node's config, inherited down the tree (key ``points``:
``win``, ``loss``, ``tie``, ``draw``, ``no_result``; default 2, 0, 1, 1, 1). A tie decided
by a super over or a bowl-out counts as a win and a loss unless the config sets
``"tie_decider_counts": "tie"``. Points adjustments decided under the node are added.
Ordering: the config's ``tiebreaks`` (any of ``points``, ``won``, ``net_run_rate``,
default in that order), then the team's name.

Net run rate, by the standard definition: runs scored / overs faced - runs conceded /
overs bowled, over the matches with a result (no result and abandoned matches count in
neither). Overs are legal balls over the match's balls per over, so an 8-ball over is one
over. A side bowled out (ten wickets, counting batters absent hurt as out) is counted as
facing its full quota of overs: the match's overs, or for a side chasing a revised target
the target's overs. When the file gives a revised target for the chase (a D/L or DLS
method, or target overs below the match's quota), the side batting first is credited with
the target less one run off the target's overs. Super-over innings never count.

The figures come from the team innings lines, which are made current first (a fixture
whose refresh is still queued is rebuilt now), so the table is never stale in silence.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from itertools import groupby
from typing import Any

from django.core.exceptions import ValidationError

from cricket.models import Innings, InningsAbsent
from cricket.stats.as_of import lines_as_of
from cricket.stats.models import CricketTeamInningsLine
from cricket.stats.refresh import statistics_lines_ensure
from sports.models import (
    Competition,
    Fixture,
    FixtureCompetitor,
    FixtureStatus,
    Participant,
    PointsAdjustment,
)
from sports.services import effective_config

DEFAULT_POINTS = {"win": 2, "loss": 0, "tie": 1, "draw": 1, "no_result": 1}
TIEBREAKS = ("points", "won", "net_run_rate")
TIE_DECIDER = ("win", "tie")
DL_METHODS = {"D/L", "DLS"}

COLUMNS = (
    ("team", "Team"),
    ("played", "P"),
    ("won", "W"),
    ("lost", "L"),
    ("tied", "T"),
    ("drawn", "D"),
    ("no_result", "NR"),
    ("points", "Pts"),
    ("net_run_rate_text", "NRR"),
)


@dataclass
class _Row:
    team_id: Any
    played: int = 0
    won: int = 0
    lost: int = 0
    tied: int = 0
    drawn: int = 0
    no_result: int = 0
    points: int = 0
    adjustment: int = 0
    runs_for: int = 0
    runs_against: int = 0
    overs_for: Fraction = field(default_factory=Fraction)
    overs_against: Fraction = field(default_factory=Fraction)
    # For display only: the balls behind the overs, written in the matches' balls per over.
    balls_for: int = 0
    balls_against: int = 0
    per_over: int = 6

    @property
    def net_run_rate(self) -> Fraction | None:
        if not self.overs_for or not self.overs_against:
            return None
        return self.runs_for / self.overs_for - self.runs_against / self.overs_against


def points_config(node: Competition) -> tuple[dict[str, int], tuple[str, ...], str]:
    """The node's points per result, tie-breaks and tie-decider rule, checked: an unknown
    key or a value of the wrong kind is a ValidationError naming the node and the key."""
    config = effective_config(node)
    points = config.get("points") or {}
    if not isinstance(points, dict):
        raise ValidationError({"points": f"{node}: points must map a result to a number"})
    unknown = sorted(set(points) - set(DEFAULT_POINTS))
    if unknown:
        raise ValidationError(
            {"points": f"{node}: unknown result(s) {', '.join(unknown)}; "
                       f"known: {', '.join(DEFAULT_POINTS)}"}
        )  # fmt: skip
    for key, value in points.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValidationError({"points": f"{node}: points for {key} must be a whole number"})
    tiebreaks = tuple(config.get("tiebreaks") or TIEBREAKS)
    bad = sorted(set(tiebreaks) - set(TIEBREAKS))
    if bad:
        raise ValidationError(
            {"tiebreaks": f"{node}: unknown tie-break(s) {', '.join(bad)}; "
                          f"known: {', '.join(TIEBREAKS)}"}
        )  # fmt: skip
    decider = config.get("tie_decider_counts", "win")
    if decider not in TIE_DECIDER:
        raise ValidationError(
            {"tie_decider_counts": f"{node}: must be one of {', '.join(TIE_DECIDER)}"}
        )
    return {**DEFAULT_POINTS, **points}, tiebreaks, decider


def _balls(overs: Decimal | None, per_over: int) -> int | None:
    """Overs as written (38.2: 38 overs and 2 balls) in balls."""
    if overs is None:
        return None
    whole = int(overs)
    return whole * per_over + int((overs - whole) * 10)


def _outcome(fixture: Fixture, ranks: dict[Any, int | None], decider: str) -> dict[Any, str]:
    """Each side's result word: win, loss, tie, draw or no_result."""
    result = fixture.result or {}
    teams = list(ranks)
    if fixture.status == FixtureStatus.ABANDONED or result.get("outcome") in (None, "no_result"):
        return dict.fromkeys(teams, "no_result")
    if result.get("outcome") == "draw":
        return dict.fromkeys(teams, "tie" if result.get("tie") else "draw")
    if result.get("tie") and decider == "tie":
        return dict.fromkeys(teams, "tie")
    return {t: "win" if ranks[t] == 1 else "loss" for t in teams}


def points_table(node: Competition, *, as_of: dt.datetime | None = None) -> list[dict[str, Any]]:
    """The points table of ``node`` and everything below it (see the module docstring).
    A fixed number of queries whatever the number of fixtures. ``as_of``: the table as it
    stood at a moment (the fixtures first published before it, their innings totals from
    the delivery revisions live at it: ``cricket.stats.as_of``)."""
    points, tiebreaks, decider = points_config(node)
    public = Fixture.objects.public().under(node).filter(sport__code="cricket")
    if as_of is not None:
        public = public.filter(first_seen_in__accepted_at__lt=as_of)
    fixtures = {f.pk: f for f in public.only("id", "status", "result", "format", "competition_id")}
    statistics_lines_ensure(fixture_ids=list(fixtures))
    sides: dict[Any, dict[Any, int | None]] = defaultdict(dict)
    names: dict[Any, str] = {}
    for c in FixtureCompetitor.objects.filter(
        fixture_id__in=fixtures, parent__isnull=True, participant__isnull=False
    ).values("fixture_id", "participant_id", "participant__name", "rank"):
        sides[c["fixture_id"]][c["participant_id"]] = c["rank"]
        names[c["participant_id"]] = c["participant__name"]
    with nullcontext() if as_of is None else lines_as_of(as_of):
        innings_rows: list[Mapping[str, Any]] = list(
            CricketTeamInningsLine.objects.filter(fixture_id__in=fixtures, super_over=False)
            .order_by("fixture_id", "innings_ordinal")
            .values("fixture_id", "innings_id", "team_id", "total", "wickets", "legal_balls")
        )
    targets: dict[Any, Mapping[str, Any]] = {
        i["id"]: i
        for i in Innings.objects.filter(fixture_id__in=fixtures, super_over=False).values(
            "id", "target_runs", "target_overs"
        )
    }
    absent: dict[Any, int] = defaultdict(int)
    for innings_id in InningsAbsent.objects.filter(innings__fixture_id__in=fixtures).values_list(
        "innings_id", flat=True
    ):
        absent[innings_id] += 1

    rows: dict[Any, _Row] = {}
    for fixture_id, ranks in sides.items():
        fixture = fixtures[fixture_id]
        if len(ranks) != 2:
            continue
        outcome = _outcome(fixture, ranks, decider)
        for team, word in outcome.items():
            row = rows.setdefault(team, _Row(team_id=team))
            row.played += 1
            counter = {"win": "won", "loss": "lost", "tie": "tied", "draw": "drawn"}.get(
                word, "no_result"
            )
            setattr(row, counter, getattr(row, counter) + 1)
            row.points += points[word]
    for fixture_id, group in groupby(innings_rows, key=lambda r: r["fixture_id"]):
        fixture = fixtures[fixture_id]
        ranks = sides.get(fixture_id, {})
        if len(ranks) != 2 or next(iter(_outcome(fixture, ranks, decider).values())) == (
            "no_result"
        ):
            continue
        _net_run_rate_innings(fixture, list(ranks), list(group), targets, absent, rows)

    for team, delta in PointsAdjustment.objects.filter(
        competition__tree_id=node.tree_id,
        competition__lft__gte=node.lft,
        competition__rght__lte=node.rght,
    ).values_list("participant_id", "points"):
        row = rows.setdefault(team, _Row(team_id=team))
        row.points += delta
        row.adjustment += delta
    if any(team not in names for team in rows):
        names.update(
            Participant.objects.filter(pk__in=[t for t in rows if t not in names]).values_list(
                "pk", "name"
            )
        )
    return _ordered(rows, names, tiebreaks)


def _net_run_rate_innings(
    fixture: Fixture,
    sides: list[Any],
    innings: list[Mapping[str, Any]],
    targets: dict[Any, Mapping[str, Any]],
    absent: dict[Any, int],
    rows: dict[Any, _Row],
) -> None:
    """Add one match's innings to both sides' runs and overs (see the module docstring)."""
    rules = fixture.format or {}
    per_over = int(rules.get("balls_per_over") or 6)
    quota = int(rules["overs"]) * per_over if rules.get("overs") else None
    method = ((fixture.result or {}).get("cricsheet") or {}).get("method")
    teams = [i["team_id"] for i in innings]
    credited: dict[int, tuple[int, int]] = {}
    for index, line in enumerate(innings):
        target = targets.get(line["innings_id"]) or {}
        target_balls = _balls(target.get("target_overs"), per_over)
        own_quota = target_balls if target_balls else quota
        balls = line["legal_balls"]
        if line["wickets"] + absent.get(line["innings_id"], 0) >= 10 and own_quota:
            balls = own_quota
        credited[index] = (line["total"], balls)
        revised = target_balls is not None and (
            method in DL_METHODS or (quota is not None and target_balls < quota)
        )
        if index == 1 and revised and target_balls and target.get("target_runs"):
            credited[0] = (target["target_runs"] - 1, target_balls)
    for index, (runs, balls) in credited.items():
        team = teams[index]
        others = [t for t in sides if t != team]
        if team not in rows or len(others) != 1 or others[0] not in rows or not balls:
            continue
        batting, bowling = rows[team], rows[others[0]]
        batting.runs_for += runs
        batting.overs_for += Fraction(balls, per_over)
        batting.balls_for += balls
        bowling.runs_against += runs
        bowling.overs_against += Fraction(balls, per_over)
        bowling.balls_against += balls
        batting.per_over = bowling.per_over = per_over


def _overs_text(balls: int, per_over: int) -> str:
    """Overs as a scorer writes them: whole overs, then the balls of the next (38.2)."""
    whole, rest = divmod(balls, per_over)
    return f"{whole}.{rest}" if rest else str(whole)


def _ordered(
    rows: dict[Any, _Row], names: dict[Any, str], tiebreaks: tuple[str, ...]
) -> list[dict[str, Any]]:
    def key(team: Any) -> tuple[Any, ...]:
        row = rows[team]
        values: list[Any] = []
        for name in tiebreaks:
            if name == "net_run_rate":
                nrr = row.net_run_rate
                values.append(-(nrr if nrr is not None else Fraction(-(10**9))))
            else:
                values.append(-getattr(row, name))
        return (*values, names.get(team, ""))

    table = []
    for position, team in enumerate(sorted(rows, key=key), start=1):
        row = rows[team]
        nrr = row.net_run_rate
        table.append(
            {
                "position": position,
                "team": names.get(team, ""),
                "team_id": str(team),
                "played": row.played,
                "won": row.won,
                "lost": row.lost,
                "tied": row.tied,
                "drawn": row.drawn,
                "no_result": row.no_result,
                "points": row.points,
                "net_run_rate": round(float(nrr), 3) if nrr is not None else None,
                "net_run_rate_text": f"{float(nrr):+.3f}" if nrr is not None else "",
                "runs_for": row.runs_for,
                "overs_for": _overs_text(row.balls_for, row.per_over),
                "runs_against": row.runs_against,
                "overs_against": _overs_text(row.balls_against, row.per_over),
                **({"adjustment": row.adjustment} if row.adjustment else {}),
            }
        )
    return table
