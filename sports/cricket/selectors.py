"""Reads that build a cricket page: a fixture's scorecard, derived from its live deliveries.

Nothing here is stored: every figure is folded from the current revision of each delivery
(so a correction changes exactly the figures that depend on it) plus the innings' penalty
runs, which belong to no delivery (O7). Rules, from seed 001 §5:

- a batter faces every delivery that is not a wide (a no-ball is faced);
- a bowler concedes runs off the bat, wides and no-balls, not byes or leg-byes, except
  byes and leg-byes run off a wide, which are wide runs (Law 22.6, ADR-014);
- a boundary is four or six off the bat not flagged ``non_boundary``;
- a wicket is the bowler's only for kinds flagged ``credits_bowler``;
- legal balls are counted, never assumed to be six an over (O6).

A fixed number of queries per scorecard, however many innings or deliveries.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sports.cricket.models import Delivery, DeliveryWicket, DeliveryWicketFielder, Innings
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


def _n(value: int | None) -> int:
    return value or 0


def fixture_scorecard(fixture: Fixture) -> list[InningsCard]:
    """The fixture's scorecard, one card per innings in order (super overs included and
    flagged: a reader decides whether to show them)."""
    balls_per_over = int((fixture.format or {}).get("balls_per_over") or 6)
    innings = list(
        Innings.objects.filter(fixture=fixture).select_related("batting_team").order_by("ordinal")
    )
    deliveries = list(
        Delivery.objects.current()
        .filter(innings__fixture=fixture)
        .order_by("innings__ordinal", "sequence")
        .values(
            "id",
            "innings_id",
            "over_number",
            "batter_id",
            "bowler_id",
            "non_striker_id",
            "runs_batter",
            "runs_total",
            "non_boundary",
            "extra_wides",
            "extra_noballs",
            "extra_byes",
            "extra_legbyes",
            "extra_penalty",
        )
    )
    wickets: dict[Any, list[DeliveryWicket]] = defaultdict(list)
    for wicket in (
        DeliveryWicket.objects.filter(delivery_id__in=[d["id"] for d in deliveries])
        .select_related("kind")
        .order_by("delivery_id", "ordinal")
    ):
        wickets[wicket.delivery_id].append(wicket)
    fielders: dict[Any, list[DeliveryWicketFielder]] = defaultdict(list)
    for fielder in DeliveryWicketFielder.objects.filter(
        wicket_id__in=[w.pk for ws in wickets.values() for w in ws]
    ).order_by("wicket_id", "ordinal"):
        fielders[fielder.wicket_id].append(fielder)
    squads: dict[Any, list[Any]] = defaultdict(list)
    for team_id, player_id in (
        fixture.competitors.filter(parent__isnull=False)
        .order_by("parent__ordinal", "ordinal")
        .values_list("parent__participant_id", "participant_id")
    ):
        squads[team_id].append(player_id)
    people_ids = {d[k] for d in deliveries for k in ("batter_id", "bowler_id", "non_striker_id")}
    people_ids |= {p for squad in squads.values() for p in squad}
    # Fielders may be substitutes who neither batted, bowled nor were named in the squad.
    people_ids |= {f.participant_id for fs in fielders.values() for f in fs if f.participant_id}
    people_ids |= {w.player_out_id for ws in wickets.values() for w in ws}
    names = dict(Participant.objects.filter(pk__in=people_ids).values_list("id", "name"))

    by_innings: dict[Any, list[dict]] = defaultdict(list)
    for delivery in deliveries:
        by_innings[delivery["innings_id"]].append(delivery)
    return [
        _card(inning, by_innings[inning.pk], wickets, fielders, names, squads, balls_per_over)
        for inning in innings
    ]


def _how_out(wicket: DeliveryWicket, bowler: str, fielders: list[str]) -> str:
    kind = wicket.kind
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


def _card(inning, deliveries, wickets, fielders, names, squads, balls_per_over) -> InningsCard:
    card = InningsCard(
        ordinal=inning.ordinal,
        team_id=inning.batting_team_id,
        team=inning.batting_team.name,
        super_over=inning.super_over,
        declared=inning.declared,
        forfeited=inning.forfeited,
        target_runs=inning.target_runs,
        penalty_runs=inning.penalty_runs,
    )
    batting: dict[Any, BattingLine] = {}
    bowling: dict[Any, BowlingLine] = {}
    extras = {"byes": 0, "legbyes": 0, "wides": 0, "noballs": 0, "penalty": 0}
    # Runs conceded per (bowler, over) and whether the bowler bowled all of it: for maidens.
    over_runs: dict[tuple, int] = defaultdict(int)
    over_balls: dict[tuple, int] = defaultdict(int)
    over_bowlers: dict[int, set] = defaultdict(set)
    score = _n(inning.penalty_runs_pre)
    legal_balls = 0

    def batter(pid) -> BattingLine:
        if pid not in batting:
            batting[pid] = BattingLine(participant_id=pid, name=names.get(pid, ""))
        return batting[pid]

    for d in deliveries:
        wide = _n(d["extra_wides"]) > 0
        noball = _n(d["extra_noballs"]) > 0
        striker = batter(d["batter_id"])
        batter(d["non_striker_id"])
        if not wide:
            striker.balls += 1
        striker.runs += d["runs_batter"]
        if not d["non_boundary"]:
            striker.fours += d["runs_batter"] == 4
            striker.sixes += d["runs_batter"] == 6
        line = bowling.setdefault(
            d["bowler_id"],
            BowlingLine(participant_id=d["bowler_id"], name=names.get(d["bowler_id"], "")),
        )
        conceded = d["runs_batter"] + _n(d["extra_wides"]) + _n(d["extra_noballs"])
        if wide:  # Law 22.6: byes and leg-byes off a wide are wide runs.
            conceded += _n(d["extra_byes"]) + _n(d["extra_legbyes"])
        line.runs += conceded
        line.wides += _n(d["extra_wides"])
        line.noballs += _n(d["extra_noballs"])
        if not (wide or noball):
            line.legal_balls += 1
            legal_balls += 1
        key = (d["bowler_id"], d["over_number"])
        over_runs[key] += conceded
        over_balls[key] += not (wide or noball)
        over_bowlers[d["over_number"]].add(d["bowler_id"])
        for extra in extras:
            extras[extra] += _n(d[f"extra_{extra}"])
        score += d["runs_total"]
        for wicket in wickets.get(d["id"], ()):
            kind = wicket.kind
            out = batter(wicket.player_out_id)
            names_of_fielders = [
                f"sub ({names[f.participant_id]})"
                if f.substitute and f.participant_id
                else "sub"
                if f.substitute or not f.participant_id
                else names.get(f.participant_id, "")
                for f in fielders.get(wicket.pk, ())
            ]
            out.how_out = _how_out(wicket, line.name, names_of_fielders)
            if kind.credits_bowler:
                line.wickets += 1
            if kind.is_dismissal:
                out.out = True
                card.wickets += 1
                card.fall_of_wickets.append(
                    FallOfWicket(
                        number=card.wickets,
                        runs=score,
                        participant_id=wicket.player_out_id,
                        name=out.name,
                        over=overs_text(legal_balls, balls_per_over),
                    )
                )
    for (bowler_id, over_number), runs in over_runs.items():
        complete = over_balls[(bowler_id, over_number)] >= balls_per_over
        if complete and runs == 0 and over_bowlers[over_number] == {bowler_id}:
            bowling[bowler_id].maidens += 1
    for line in bowling.values():
        line.overs = overs_text(line.legal_balls, balls_per_over)
    card.batting = list(batting.values())
    card.bowling = list(bowling.values())
    card.extras = {**extras, "total": sum(extras.values())}
    card.legal_balls = legal_balls
    card.overs = overs_text(legal_balls, balls_per_over)
    card.runs = score + _n(inning.penalty_runs_post)
    card.did_not_bat = [
        names.get(pid, "") for pid in squads.get(inning.batting_team_id, []) if pid not in batting
    ]
    return card
