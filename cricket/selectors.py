"""Reads that build a cricket page: a fixture's scorecard, read from its statistic lines.

The scorecard derives nothing itself. Every figure on it (batting and bowling lines, the
order of both, how each batter was out, the falls of wicket, extras by type, the total
with innings penalty runs, wickets and legal balls) is a column of the fixture's lines,
which ``cricket.stats.engine`` derives from the live deliveries by the derivation
rules: one derivation for the scorecard, the careers, the leaderboards and the datasets.
Here the lines are only put in order and given names.

Lines are read current or not at all: ``statistics_lines_ensure`` first rebuilds a
fixture's lines whose refresh has not run yet (or failed), so a scorecard never shows a
figure from before a write. A fixed number of queries per scorecard, however many innings,
players or deliveries.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from cricket.models import DismissalKind
from cricket.stats.models import (
    CricketBattingLine,
    CricketBowlingLine,
    CricketTeamInningsLine,
)
from cricket.stats.refresh import statistics_lines_ensure
from sports.models import Fixture, Participant


def overs_text(legal_balls: int, balls_per_over: int) -> str:
    """Legal balls as the scorecard writes overs: 27 balls of six is "4.3"."""
    whole, rest = divmod(legal_balls, balls_per_over)
    return f"{whole}.{rest}" if rest else str(whole)


@dataclass
class BattingLine:
    participant_id: Any
    name: str
    runs: int = 0
    balls: int = 0
    fours: int = 0
    sixes: int = 0
    how_out: str = "not out"
    out: bool = False

    @property
    def strike_rate(self) -> float | None:
        return round(100 * self.runs / self.balls, 2) if self.balls else None


@dataclass
class BowlingLine:
    participant_id: Any
    name: str
    legal_balls: int = 0
    maidens: int = 0
    runs: int = 0
    wickets: int = 0
    wides: int = 0
    noballs: int = 0
    overs: str = "0"


@dataclass
class FallOfWicket:
    number: int
    runs: int
    participant_id: Any
    name: str
    over: str


@dataclass
class InningsCard:
    ordinal: int
    team_id: Any
    team: str
    super_over: bool
    declared: bool
    forfeited: bool
    target_runs: int | None
    batting: list[BattingLine] = field(default_factory=list)
    bowling: list[BowlingLine] = field(default_factory=list)
    extras: dict[str, int] = field(default_factory=dict)
    penalty_runs: int = 0
    runs: int = 0
    wickets: int = 0
    legal_balls: int = 0
    overs: str = "0"
    fall_of_wickets: list[FallOfWicket] = field(default_factory=list)
    did_not_bat: list[str] = field(default_factory=list)


def fixture_scorecard(fixture: Fixture) -> list[InningsCard]:
    """The fixture's scorecard, one card per innings in order (super overs included and
    flagged: a reader decides whether to show them). Only a public fixture has lines; any
    other has no cards. May write: stale lines are rebuilt first (see the module)."""
    statistics_lines_ensure(fixture_ids=[fixture.pk])
    balls_per_over = int((fixture.format or {}).get("balls_per_over") or 6)
    teams = list(
        CricketTeamInningsLine.objects.filter(fixture=fixture)
        .select_related("innings", "team")
        .order_by("innings_ordinal")
    )
    batting: dict[Any, list[CricketBattingLine]] = defaultdict(list)
    for line in (
        CricketBattingLine.objects.filter(fixture=fixture)
        .select_related("participant", "dismissal_kind", "dismissal_bowler")
        .order_by("innings_ordinal", "position")
    ):
        batting[line.innings_id].append(line)
    bowling: dict[Any, list[CricketBowlingLine]] = defaultdict(list)
    for spell in (
        CricketBowlingLine.objects.filter(fixture=fixture)
        .select_related("participant")
        .order_by("innings_ordinal", "position")
    ):
        bowling[spell.innings_id].append(spell)
    squads: dict[Any, list[Any]] = defaultdict(list)
    for team_id, player_id in (
        fixture.competitors.filter(parent__isnull=False, participant__isnull=False)
        .order_by("parent__ordinal", "ordinal")
        .values_list("parent__participant_id", "participant_id")
    ):
        squads[team_id].append(player_id)
    # Names the lines do not join: squad members who did not bat and fielders (who may be
    # substitutes who neither batted, bowled nor were named in the squad).
    people = {pid for squad in squads.values() for pid in squad}
    people |= {
        uuid.UUID(f["participant"])
        for lines in batting.values()
        for line in lines
        for f in line.dismissal_fielders
        if f["participant"]
    }
    rows = Participant.objects.filter(pk__in=people).values_list("id", "name") if people else []
    names = {str(pk): name for pk, name in rows}
    return [
        _card(
            team,
            batting=batting[team.innings_id],
            bowling=bowling[team.innings_id],
            names=names,
            squad=squads.get(team.team_id, []),
            balls_per_over=balls_per_over,
        )
        for team in teams
    ]


def _fielder(fielder: dict[str, Any], names: dict[str, str]) -> str:
    """A fielder as the card prints them: a named substitute as "sub (Name)", an unnamed
    one (the source may omit the name) as "sub"."""
    pid = fielder["participant"]
    if not pid:
        return "sub"
    return f"sub ({names[pid]})" if fielder["substitute"] else names[pid]


def _how_out(kind: DismissalKind | None, bowler: str, fielders: list[str]) -> str:
    if kind is None:
        return "not out"
    catcher = fielders[0] if fielders else "sub"
    if kind.name == "caught":
        return f"c {catcher} b {bowler}"
    if kind.name == "caught and bowled":
        return f"c & b {bowler}"
    if kind.name == "stumped":
        return f"st {catcher} b {bowler}"
    if kind.name == "run out":
        return f"run out ({' / '.join(fielders)})" if fielders else "run out"
    if kind.credits_bowler:
        return f"{kind.name} b {bowler}" if kind.name != "bowled" else f"b {bowler}"
    return kind.name


def _card(
    team: CricketTeamInningsLine,
    *,
    batting: list[CricketBattingLine],
    bowling: list[CricketBowlingLine],
    names: dict[str, str],
    squad: list[Any],
    balls_per_over: int,
) -> InningsCard:
    inning = team.innings
    card = InningsCard(
        ordinal=team.innings_ordinal,
        team_id=team.team_id,
        team=team.team.name,
        super_over=team.super_over,
        declared=inning.declared,
        forfeited=inning.forfeited,
        target_runs=inning.target_runs,
        penalty_runs=team.penalty_runs,
        runs=team.total,
        wickets=team.wickets,
        legal_balls=team.legal_balls,
        overs=overs_text(team.legal_balls, balls_per_over),
        extras={
            "byes": team.byes,
            "legbyes": team.legbyes,
            "wides": team.wides,
            "noballs": team.noballs,
            "penalty": team.penalty_extras,
            "total": team.extras,
        },
    )
    for line in batting:
        # No query for a null key: Django answers None without asking the database.
        bowler = line.dismissal_bowler.name if line.dismissal_bowler is not None else ""
        fielders = [_fielder(f, names) for f in line.dismissal_fielders]
        card.batting.append(
            BattingLine(
                participant_id=line.participant_id,
                name=line.participant.name,
                runs=line.runs,
                balls=line.balls_faced,
                fours=line.fours,
                sixes=line.sixes,
                how_out=_how_out(line.dismissal_kind, bowler, fielders),
                out=line.outs > 0,
            )
        )
    falls = []
    for line in batting:
        # The three fall columns are set together or not at all
        # (cricket_batting_line_fall_all_or_none); a fall number is at least 1.
        if line.fall_number and line.fall_runs is not None and line.fall_legal_balls is not None:
            falls.append(
                FallOfWicket(
                    number=line.fall_number,
                    runs=line.fall_runs,
                    participant_id=line.participant_id,
                    name=line.participant.name,
                    over=overs_text(line.fall_legal_balls, balls_per_over),
                )
            )
    card.fall_of_wickets = sorted(falls, key=lambda fall: fall.number)
    card.bowling = [
        BowlingLine(
            participant_id=line.participant_id,
            name=line.participant.name,
            legal_balls=line.legal_balls,
            maidens=line.maidens,
            runs=line.runs_conceded,
            wickets=line.wickets,
            wides=line.wides,
            noballs=line.noballs,
            overs=overs_text(line.legal_balls, balls_per_over),
        )
        for line in bowling
    ]
    batted = {line.participant_id for line in batting}
    card.did_not_bat = [names[str(pid)] for pid in squad if pid not in batted]
    return card
