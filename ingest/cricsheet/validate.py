"""The Cricsheet submission contract, as pure code (no database).

Every problem in a file is collected, each with its JSON path and the rule it breaks, before
anything is written: a rejected file names all of them at once, not just the first.

The contract is closed: every key it does not know is refused, every value it reads is
type-checked, every text has the width of the column it lands in (a longer one is refused by
name, never cut short or left to fail at write time) and every number a range. What cannot
be stored at all (a NUL, an unpaired surrogate, NaN or Infinity) is refused where it sits.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from django.conf import settings

from ingest.cricsheet.checks import INT_MAX, LAST_DAY, NAME_MAX, Checker
from ingest.cricsheet.parse import MAX_FILE_BYTES, UNPARSED, parse
from ingest.cricsheet.problems import (
    CricsheetRejected,
    Problem,
    is_int,
    key_step,
    shown,
)

DATA_VERSIONS = ("1.0.0", "1.1.0", "1.2.0")
MATCH_TYPES = ("T20", "IT20", "ODI", "ODM", "Test", "MDM")
GENDERS = ("male", "female")
TEAM_TYPES = ("international", "club")
TOSS_DECISIONS = ("bat", "field")
EXTRAS = ("wides", "noballs", "byes", "legbyes", "penalty")
RESULTS = ("draw", "tie", "no result")
POWERPLAY_TYPES = ("mandatory", "batting", "fielding")
OFFICIAL_ROLES = ("umpires", "tv_umpires", "reserve_umpires", "match_referees")

# The widths of the columns text lands in (NAME_MAX: the names), held to the models by a test.
CITY_MAX = 128  # sports.Venue.city
REGISTRY_ID_MAX = 64  # cricket.FixtureOfficial.registry_id
LABEL_MAX = 16  # cricket.Delivery.actual_delivery
KIND_MAX = 64  # cricket.DeliveryWicket.kind_raw
SHORT_MAX = 32  # cricket.DeliveryReview.decision and .type, cricket.DeliveryReplacement.role
REASON_MAX = 128  # cricket.DeliveryReplacement.reason
# The match loader names a women's event "<name> (women)" and a group "Group <group>", and a
# fixture "<team> v <team>": each whole name must fit its column.
WOMEN_SUFFIX = " (women)"
GROUP_PREFIX = "Group "
# The cricket bounds are far above anything played (the 12,654 files of the dev corpus:
# 13 runs off one ball, 19 deliveries in an over, over 248, 6 innings, 6 balls an over)
# and far below a slipped digit.
RUNS_PER_BALL_MAX = 30
DELIVERIES_PER_OVER_MAX = 40
OVER_MAX = 1000
BALLS_PER_OVER_MAX = 10
INNINGS_MAX = 20
WICKETS_MAX = 10
# cricket.loading numbers a match's deliveries in the low 20 bits of one event id.
MATCH_DELIVERIES_MAX = 0xFFFFF

# A delivery-level "over" key appears in a few generated files; it must equal the parent
# over's number wherever it appears, and is otherwise ignored.
DELIVERY_KEYS = {
    "batter",
    "bowler",
    "non_striker",
    "runs",
    "extras",
    "wickets",
    "review",
    "replacements",
    "actual_delivery",
    "over",
}
INNINGS_KEYS = {
    "team",
    "overs",
    "super_over",
    "target",
    "declared",
    "forfeited",
    "penalty_runs",
    "powerplays",
    "miscounted_overs",
    "absent_hurt",
}
INFO_KEYS = {
    "balls_per_over",
    "bowl_out",
    "city",
    "dates",
    "event",
    "gender",
    "match_type",
    "match_type_number",
    "missing",
    "officials",
    "outcome",
    "overs",
    "player_of_match",
    "players",
    "registry",
    "season",
    "supersubs",
    "team_type",
    "teams",
    "toss",
    "venue",
}
META_KEYS = {"data_version", "created", "revision"}
EVENT_KEYS = {"name", "match_number", "group", "stage", "sub_name"}
TOSS_KEYS = {"winner", "decision", "uncontested"}
OUTCOME_KEYS = {"winner", "result", "by", "method", "eliminator", "bowl_out"}
OVER_KEYS = {"over", "deliveries"}
RUNS_KEYS = frozenset({"batter", "extras", "total", "non_boundary"})
WICKET_KEYS = {"player_out", "kind", "fielders"}
FIELDER_KEYS = {"name", "substitute"}
REVIEW_KEYS = {"by", "umpire", "batter", "decision", "type", "umpires_call"}
REPLACEMENT_KEYS = {"in", "out", "team", "reason", "role"}
TARGET_KEYS = {"runs", "overs"}
POWERPLAY_KEYS = {"from", "to", "type"}
MISCOUNTED_KEYS = {"balls", "umpire"}
BOWL_OUT_KEYS = {"bowler", "outcome"}
# Match ids are text: most are digits, but wi_211973 exists.
MATCH_ID = re.compile(r"^[A-Za-z0-9_]{1,64}$")
OVER_KEY = re.compile(r"^(0|[1-9][0-9]*)$")

__all__ = ["CricsheetRejected", "Problem", "load", "validate"]


def check_match_id(match_id: str) -> list[Problem]:
    if not MATCH_ID.match(match_id or ""):
        return [
            Problem("(file name)", "match-id", f"{shown(match_id)} is not a Cricsheet match id")
        ]
    return []


def validate(document: Any, *, match_id: str) -> list[Problem]:
    """Every way ``document`` breaks the contract; an empty list means it may be imported."""
    c = Checker()
    c.problems.extend(check_match_id(match_id))
    root = c.obj(document, "$")
    if root is None:
        return c.problems
    c.closed(root, "$", {"meta", "info", "innings"}, "a Cricsheet match")
    meta = c.obj(root.get("meta"), "$.meta")
    if meta is not None:
        c.closed(meta, "$.meta", META_KEYS, "a Cricsheet meta section")
        data_version = c.text(meta.get("data_version"), "$.meta.data_version")
        if data_version is not None and data_version not in DATA_VERSIONS:
            c.add(
                "$.meta.data_version",
                "data-version",
                f"{shown(data_version)} is not a supported version ({', '.join(DATA_VERSIONS)})",
            )
        c.day(meta.get("created"), "$.meta.created")
        c.count(meta.get("revision"), "$.meta.revision")
    info = c.obj(root.get("info"), "$.info")
    people: dict[str, str] = {}
    teams: list[str] = []
    balls_per_over, overs = 6, None
    if info is not None:
        people, teams = _check_info(c, info)
        if is_int(info.get("balls_per_over")) and 0 < info["balls_per_over"] <= BALLS_PER_OVER_MAX:
            balls_per_over = info["balls_per_over"]
        if is_int(info.get("overs")):
            overs = info["overs"]
    innings = c.lst(root.get("innings"), "$.innings")
    if innings is not None:
        if not innings:
            c.add("$.innings", "required", "must hold at least one innings")
        if len(innings) > INNINGS_MAX:
            c.add("$.innings", "range", f"holds {len(innings)} innings, more than {INNINGS_MAX}")
        deliveries = 0
        for i, inning in enumerate(innings[:INNINGS_MAX]):
            deliveries += _check_innings(
                c, inning, f"$.innings[{i}]", people, teams, balls_per_over, overs
            )
        if deliveries > MATCH_DELIVERIES_MAX:
            c.add(
                "$.innings",
                "range",
                f"hold {deliveries} deliveries, more than a match's {MATCH_DELIVERIES_MAX}",
            )
    return c.problems


def _check_info(c: Checker, info: dict) -> tuple[dict[str, str], list[str]]:
    c.closed(info, "$.info", INFO_KEYS, "a Cricsheet info section")
    registry = c.obj(info.get("registry"), "$.info.registry")
    people: dict[str, str] = {}
    if registry is not None:
        c.closed(registry, "$.info.registry", {"people"}, "a Cricsheet registry")
        raw = c.obj(registry.get("people"), "$.info.registry.people")
        for name, identifier in (raw or {}).items():
            where = f"$.info.registry.people[{shown(name)}]"
            if len(name) > NAME_MAX:
                c.add(
                    where, "length", f"is {len(name)} characters, more than the {NAME_MAX} allowed"
                )
            elif c.text(identifier, where, most=REGISTRY_ID_MAX) is not None:
                people[name] = identifier
    teams_raw = c.lst(info.get("teams"), "$.info.teams") or []
    teams = [t for i, t in enumerate(teams_raw) if c.text(t, f"$.info.teams[{i}]")]
    if teams_raw and (len(teams_raw) != 2 or len(set(teams)) != 2):
        c.add("$.info.teams", "teams", f"must name two different teams, not {shown(teams_raw)}")
    elif len(teams) == 2 and len(" v ".join(teams)) > NAME_MAX:
        c.add(
            "$.info.teams",
            "length",
            f"make a fixture name of {len(' v '.join(teams))} characters, more than {NAME_MAX}",
        )
    c.choice(info.get("match_type"), "$.info.match_type", MATCH_TYPES)
    c.count(info.get("match_type_number"), "$.info.match_type_number", required=False)
    bpo = c.count(
        info.get("balls_per_over"), "$.info.balls_per_over", required=False, most=BALLS_PER_OVER_MAX
    )
    if bpo == 0:
        c.add("$.info.balls_per_over", "positive", "must be 1 or more")
    c.count(info.get("overs"), "$.info.overs", required=False, most=OVER_MAX)
    gender = info.get("gender")
    c.choice(gender, "$.info.gender", GENDERS)
    c.choice(info.get("team_type"), "$.info.team_type", TEAM_TYPES, required=False)
    c.text(info.get("venue"), "$.info.venue", required=False)
    c.text(info.get("city"), "$.info.city", required=False, most=CITY_MAX)
    season = info.get("season")
    if is_int(season):
        c.count(season, "$.info.season", most=LAST_DAY.year)
    else:
        c.text(season, "$.info.season", required=False)
    dates = c.lst(info.get("dates"), "$.info.dates")
    if dates is not None:
        if not dates:
            c.add("$.info.dates", "required", "must hold at least one date")
        days = [c.day(value, f"$.info.dates[{i}]") for i, value in enumerate(dates)]
        for i in range(1, len(days)):
            before, day = days[i - 1], days[i]
            if before is not None and day is not None and day <= before:
                c.add(f"$.info.dates[{i}]", "order", f"{day} does not follow {before}")
    players = c.obj(info.get("players"), "$.info.players")
    for team, names in (players or {}).items():
        path = f"$.info.players[{shown(team)}]"
        c.team(team, path, teams)
        for j, name in enumerate(c.lst(names, path) or []):
            c.person(name, f"{path}[{j}]", people)
    for team, name in (
        c.obj(info.get("supersubs"), "$.info.supersubs", required=False) or {}
    ).items():
        c.team(team, f"$.info.supersubs[{shown(team)}]", teams)
        c.person(name, f"$.info.supersubs[{shown(team)}]", people)
    for j, name in enumerate(
        c.lst(info.get("player_of_match"), "$.info.player_of_match", required=False) or []
    ):
        c.person(name, f"$.info.player_of_match[{j}]", people)
    officials = c.obj(info.get("officials"), "$.info.officials", required=False) or {}
    for role, names in officials.items():
        path = f"$.info.officials{key_step(role)}"
        if role not in OFFICIAL_ROLES:
            c.add(path, "unknown-key", f"is not an official role ({', '.join(OFFICIAL_ROLES)})")
        for j, name in enumerate(c.lst(names, path) or []):
            c.text(name, f"{path}[{j}]")
    _check_event(c, c.obj(info.get("event"), "$.info.event", required=False), gender)
    toss = c.obj(info.get("toss"), "$.info.toss", required=False)
    if toss is not None:
        c.closed(toss, "$.info.toss", TOSS_KEYS, "a Cricsheet toss")
        c.team(toss.get("winner"), "$.info.toss.winner", teams)
        c.choice(toss.get("decision"), "$.info.toss.decision", TOSS_DECISIONS)
        c.flag(toss.get("uncontested"), "$.info.toss.uncontested")
    outcome = c.obj(info.get("outcome"), "$.info.outcome", required=False)
    if outcome is not None:
        _check_outcome(c, outcome, teams)
    for j, ball in enumerate(c.lst(info.get("bowl_out"), "$.info.bowl_out", required=False) or []):
        where = f"$.info.bowl_out[{j}]"
        ball = c.obj(ball, where)
        if ball is not None:
            c.closed(ball, where, BOWL_OUT_KEYS, "a bowl-out ball")
            c.text(ball.get("bowler"), f"{where}.bowler")
            c.text(ball.get("outcome"), f"{where}.outcome")
    for j, entry in enumerate(c.lst(info.get("missing"), "$.info.missing", required=False) or []):
        c.metadata(entry, f"$.info.missing[{j}]")
    return people, teams


def _check_event(c: Checker, event: dict | None, gender: Any) -> None:
    if event is None:
        return
    c.closed(event, "$.info.event", EVENT_KEYS, "a Cricsheet event")
    name = event.get("name")
    # The loader names a women's event "<name> (women)" unless the name says so already.
    suffix = gender == "female" and isinstance(name, str) and "women" not in name.lower()
    c.text(name, "$.info.event.name", most=NAME_MAX - (len(WOMEN_SUFFIX) if suffix else 0))
    c.text(event.get("sub_name"), "$.info.event.sub_name", required=False)
    c.count(event.get("match_number"), "$.info.event.match_number", required=False)
    for key, most in (("stage", NAME_MAX), ("group", NAME_MAX - len(GROUP_PREFIX))):
        value = event.get(key)
        if is_int(value):
            c.count(value, f"$.info.event.{key}")
        elif value != "":  # the loader skips an empty stage or group
            c.text(value, f"$.info.event.{key}", required=False, most=most)


def _check_outcome(c: Checker, outcome: dict, teams: list[str]) -> None:
    c.closed(outcome, "$.info.outcome", OUTCOME_KEYS, "a Cricsheet outcome")
    winner, result = outcome.get("winner"), outcome.get("result")
    if winner is None and result is None:
        c.add("$.info.outcome", "outcome", "names neither a winner nor a result")
    if winner is not None and result is not None:
        c.add("$.info.outcome", "outcome", "names both a winner and a result")
    if winner is not None:
        c.team(winner, "$.info.outcome.winner", teams)
    if result is not None:
        c.choice(result, "$.info.outcome.result", RESULTS)
    by = c.obj(outcome.get("by"), "$.info.outcome.by", required=False)
    for key, value in (by or {}).items():
        if key not in ("runs", "wickets", "innings"):
            c.add(
                f"$.info.outcome.by{key_step(key)}",
                "unknown-key",
                "is not runs, wickets or innings",
            )
        most = WICKETS_MAX if key == "wickets" else INT_MAX
        c.count(value, f"$.info.outcome.by{key_step(key)}", most=most)
    for key in ("eliminator", "bowl_out"):
        if outcome.get(key) is not None:
            c.team(outcome[key], f"$.info.outcome.{key}", teams)
    c.text(outcome.get("method"), "$.info.outcome.method", required=False)


def _check_innings(
    c: Checker,
    inning: Any,
    path: str,
    people: dict[str, str],
    teams: list[str],
    balls_per_over: int = 6,
    scheduled_overs: int | None = None,
) -> int:
    """Checks one innings; returns how many deliveries it holds."""
    inning = c.obj(inning, path)
    if inning is None:
        return 0
    c.closed(inning, path, INNINGS_KEYS, "a Cricsheet innings")
    c.team(inning.get("team"), f"{path}.team", teams)
    for key in ("super_over", "declared", "forfeited"):
        c.flag(inning.get(key), f"{path}.{key}")
    target = c.obj(inning.get("target"), f"{path}.target", required=False)
    if target is not None:
        c.closed(target, f"{path}.target", TARGET_KEYS, "a target")
        c.count(target.get("runs"), f"{path}.target.runs", required=False)
        if target.get("overs") is not None:
            c.ball_overs(target["overs"], f"{path}.target.overs", balls_per_over)
    penalty = c.obj(inning.get("penalty_runs"), f"{path}.penalty_runs", required=False)
    for key, value in (penalty or {}).items():
        if key not in ("pre", "post"):
            c.add(f"{path}.penalty_runs{key_step(key)}", "unknown-key", "is not pre or post")
        c.count(value, f"{path}.penalty_runs{key_step(key)}")
    for j, pp in enumerate(
        c.lst(inning.get("powerplays"), f"{path}.powerplays", required=False) or []
    ):
        where = f"{path}.powerplays[{j}]"
        pp = c.obj(pp, where)
        if pp is None:
            continue
        c.closed(pp, where, POWERPLAY_KEYS, "a powerplay")
        # Powerplays count deliveries, not legal balls: 9.8 (the eighth of the tenth over)
        # is a real end.
        start, end = (c.figure(pp.get(key), f"{where}.{key}") for key in ("from", "to"))
        if start is not None and end is not None and start > end:
            c.add(f"{where}.to", "order", f"ends at {end}, before it starts at {start}")
        c.choice(pp.get("type"), f"{where}.type", POWERPLAY_TYPES)
    miscounted = c.obj(inning.get("miscounted_overs"), f"{path}.miscounted_overs", required=False)
    for key, value in (miscounted or {}).items():
        where = f"{path}.miscounted_overs[{shown(key)}]"
        if not OVER_KEY.match(key):
            c.add(where, "type", "is keyed by an over number (its digits, no leading zero)")
        elif int(key) > OVER_MAX:
            c.add(where, "range", f"names over {shown(key)}, more than {OVER_MAX}")
        value = c.obj(value, where)
        if value is None:
            continue
        c.closed(value, where, MISCOUNTED_KEYS, "a miscounted over")
        balls = value.get("balls")
        # The source writes balls as 5 or "5"; both are accepted and coerced at import.
        if isinstance(balls, str) and balls.isascii() and balls.isdigit():
            balls = int(balls)
        if not is_int(balls) or balls < 0:
            c.add(
                f"{where}.balls",
                "type",
                f"must be a whole number (or its digits), not {shown(value.get('balls'))}",
            )
        elif balls > DELIVERIES_PER_OVER_MAX:
            c.add(f"{where}.balls", "range", f"must be at most {DELIVERIES_PER_OVER_MAX}")
        c.text(value.get("umpire"), f"{where}.umpire", required=False)
    seen: set[str] = set()
    for j, name in enumerate(
        c.lst(inning.get("absent_hurt"), f"{path}.absent_hurt", required=False) or []
    ):
        name = c.person(name, f"{path}.absent_hurt[{j}]", people)
        if name is not None and people[name] in seen:
            c.add(f"{path}.absent_hurt[{j}]", "duplicate", f"{shown(name)} is listed twice")
        elif name is not None:
            seen.add(people[name])
    overs = c.lst(inning.get("overs"), f"{path}.overs", required=not inning.get("forfeited"))
    names = {name for name in people if name.strip()}
    previous = -1
    deliveries_in_innings = 0
    # A limited-overs innings has no over past the scheduled last (a super over is its own).
    last_over = OVER_MAX
    if scheduled_overs and inning.get("super_over") is not True:
        last_over = min(OVER_MAX, scheduled_overs - 1)
    for k, over in enumerate(overs or []):
        where = f"{path}.overs[{k}]"
        over = c.obj(over, where)
        if over is None:
            continue
        c.closed(over, where, OVER_KEYS, "an over")
        number = c.count(over.get("over"), f"{where}.over", most=last_over)
        if number is not None:
            if number <= previous:
                c.add(f"{where}.over", "order", f"over {number} does not follow over {previous}")
            previous = number
        deliveries = c.lst(over.get("deliveries"), f"{where}.deliveries")
        if deliveries is not None and not deliveries:
            c.add(f"{where}.deliveries", "required", "an over must hold at least one delivery")
        if deliveries is not None and len(deliveries) > DELIVERIES_PER_OVER_MAX:
            c.add(
                f"{where}.deliveries",
                "range",
                f"holds {len(deliveries)} deliveries, more than {DELIVERIES_PER_OVER_MAX}",
            )
            continue
        deliveries_in_innings += len(deliveries or ())
        for d, delivery in enumerate(deliveries or []):
            if not _plain_and_valid(delivery, names):
                _check_delivery(c, delivery, f"{where}.deliveries[{d}]", people, teams, over=number)
    return deliveries_in_innings


_PLAIN_KEYS = frozenset({"batter", "bowler", "non_striker", "runs", "extras", "actual_delivery"})
_EXTRAS = frozenset(EXTRAS)


def _plain_and_valid(delivery: Any, names: set[str]) -> bool:
    """True for the common delivery (people, runs and extras only) when it breaks no rule.

    The fast path of validation: nine deliveries in ten are plain, and checking them here
    builds no JSON path and no message. Anything else (a wicket, a review, a replacement,
    any doubt at all) returns False and goes through ``_check_delivery``,
    which states every rule and names each problem; this never accepts what that would
    refuse.
    """
    if type(delivery) is not dict or not delivery.keys() <= _PLAIN_KEYS:
        return False
    batter, bowler, other = (
        delivery.get("batter"),
        delivery.get("bowler"),
        delivery.get("non_striker"),
    )
    if type(batter) is not str or type(bowler) is not str or type(other) is not str:
        return False
    if batter not in names or bowler not in names or other not in names:
        return False
    runs = delivery.get("runs")
    if type(runs) is not dict or not runs.keys() <= RUNS_KEYS:
        return False
    batter_runs, extras_runs, total = runs.get("batter"), runs.get("extras"), runs.get("total")
    if type(batter_runs) is not int or type(extras_runs) is not int or type(total) is not int:
        return False
    if batter_runs < 0 or extras_runs < 0 or total != batter_runs + extras_runs:
        return False
    if total > RUNS_PER_BALL_MAX:
        return False
    flag = runs.get("non_boundary")
    if flag is not None and type(flag) is not bool:
        return False
    label = delivery.get("actual_delivery")
    if label is not None and (
        type(label) is not str or not label.strip() or len(label) > LABEL_MAX
    ):
        return False
    extras = delivery.get("extras")
    if extras is None:
        return extras_runs == 0
    if type(extras) is not dict or not extras.keys() <= _EXTRAS:
        return False
    added = 0
    for value in extras.values():
        if type(value) is not int or value < 0:
            return False
        added += value
    return added == extras_runs


def _check_delivery(
    c: Checker,
    delivery: Any,
    path: str,
    people: dict[str, str],
    teams: list[str],
    *,
    over: int | None = None,
) -> None:
    delivery = c.obj(delivery, path)
    if delivery is None:
        return
    c.closed(delivery, path, DELIVERY_KEYS, "a Cricsheet delivery")
    if "over" in delivery and c.count(delivery["over"], f"{path}.over") not in (None, over):
        c.add(f"{path}.over", "over", f"is {shown(delivery['over'])}, not its over's {over}")
    for key in ("batter", "bowler", "non_striker"):
        c.person(delivery.get(key), f"{path}.{key}", people)
    if "actual_delivery" in delivery:
        c.text(delivery["actual_delivery"], f"{path}.actual_delivery", most=LABEL_MAX)
    runs = c.obj(delivery.get("runs"), f"{path}.runs")
    batter_runs = extras_runs = total = None
    if runs is not None:
        c.closed(runs, f"{path}.runs", RUNS_KEYS, "a delivery's runs")
        batter_runs = c.count(runs.get("batter"), f"{path}.runs.batter", most=RUNS_PER_BALL_MAX)
        extras_runs = c.count(runs.get("extras"), f"{path}.runs.extras", most=RUNS_PER_BALL_MAX)
        total = c.count(runs.get("total"), f"{path}.runs.total", most=RUNS_PER_BALL_MAX)
        c.flag(runs.get("non_boundary"), f"{path}.runs.non_boundary")
    extras = c.obj(delivery.get("extras"), f"{path}.extras", required=False)
    extras_sum: int | None = 0
    for key, value in (extras or {}).items():
        if key not in EXTRAS:
            c.add(
                f"{path}.extras{key_step(key)}",
                "unknown-key",
                f"is not an extras type ({', '.join(EXTRAS)})",
            )
            extras_sum = None
            continue
        counted = c.count(value, f"{path}.extras.{key}", most=RUNS_PER_BALL_MAX)
        extras_sum = None if counted is None or extras_sum is None else extras_sum + counted
    if extras_sum is not None and extras_runs is not None and extras_sum != extras_runs:
        c.add(
            f"{path}.runs.extras",
            "extras-sum",
            f"is {extras_runs} but the extras add up to {extras_sum}",
        )
    if (
        batter_runs is not None
        and extras_runs is not None
        and total is not None
        and total != batter_runs + extras_runs
    ):
        c.add(
            f"{path}.runs.total",
            "total-sum",
            f"is {total} but batter {batter_runs} + extras {extras_runs} = "
            f"{batter_runs + extras_runs}",
        )
    _check_wickets(c, delivery, path, people)
    review = c.obj(delivery.get("review"), f"{path}.review", required=False)
    if review is not None:
        c.closed(review, f"{path}.review", REVIEW_KEYS, "a review")
        c.team(review.get("by"), f"{path}.review.by", teams)
        c.text(review.get("decision"), f"{path}.review.decision", most=SHORT_MAX)
        c.text(review.get("type"), f"{path}.review.type", required=False, most=SHORT_MAX)
        c.text(review.get("umpire"), f"{path}.review.umpire", required=False)
        if review.get("batter") is not None:
            c.person(review["batter"], f"{path}.review.batter", people)
        c.flag(review.get("umpires_call"), f"{path}.review.umpires_call")
    replacements = c.obj(delivery.get("replacements"), f"{path}.replacements", required=False)
    for kind, entries in (replacements or {}).items():
        where = f"{path}.replacements{key_step(kind)}"
        if kind not in ("match", "role"):
            c.add(where, "unknown-key", "is not match or role")
            continue
        for r, entry in enumerate(c.lst(entries, where) or []):
            at = f"{where}[{r}]"
            entry = c.obj(entry, at)
            if entry is None:
                continue
            c.closed(entry, at, REPLACEMENT_KEYS, "a replacement")
            c.person(entry.get("in"), f"{at}.in", people)
            if entry.get("out") is not None:
                c.person(entry["out"], f"{at}.out", people)
            if kind == "match":
                c.team(entry.get("team"), f"{at}.team", teams)
            elif entry.get("team") is not None:
                c.team(entry["team"], f"{at}.team", teams)
            c.text(entry.get("role"), f"{at}.role", required=False, most=SHORT_MAX)
            c.text(entry.get("reason"), f"{at}.reason", required=False, most=REASON_MAX)


def _check_wickets(c: Checker, delivery: dict, path: str, people: dict[str, str]) -> None:
    for w, wicket in enumerate(
        c.lst(delivery.get("wickets"), f"{path}.wickets", required=False) or []
    ):
        where = f"{path}.wickets[{w}]"
        wicket = c.obj(wicket, where)
        if wicket is None:
            continue
        c.closed(wicket, where, WICKET_KEYS, "a wicket")
        c.person(wicket.get("player_out"), f"{where}.player_out", people)
        c.text(wicket.get("kind"), f"{where}.kind", most=KIND_MAX)
        for f, fielder in enumerate(
            c.lst(wicket.get("fielders"), f"{where}.fielders", required=False) or []
        ):
            at = f"{where}.fielders[{f}]"
            fielder = c.obj(fielder, at)
            if fielder is None:
                continue
            c.closed(fielder, at, FIELDER_KEYS, "a fielder")
            # A substitute may be recorded with no name at all.
            if "name" in fielder:
                c.person(fielder["name"], f"{at}.name", people)
            elif not fielder.get("substitute"):
                c.add(at, "required", "a fielder without a name must be a substitute")
            c.flag(fielder.get("substitute"), f"{at}.substitute")


def load(
    raw: bytes,
    *,
    filename: str,
    match_id: str,
    max_bytes: int | None = None,
    kinds: Collection[str] | None = None,
) -> dict:
    """Parse and validate one file; raise ``CricsheetRejected`` naming every problem.

    A file over ``CRICSHEET_MAX_FILE_BYTES`` (or ``max_bytes`` when given) is refused
    unparsed: JSON made of small objects takes some 25 times its size in memory once parsed
    (the largest real match file is under 1 MB). With ``kinds`` (the dismissal kinds the
    database knows), a wicket of another kind is one more problem of the same pass."""
    if max_bytes is None:
        limit = settings.CRICSHEET_MAX_FILE_BYTES
        if len(raw) > limit:
            raise CricsheetRejected(
                filename,
                [
                    Problem(
                        "(file)",
                        "size-limit",
                        f"{len(raw)} bytes; the limit is CRICSHEET_MAX_FILE_BYTES = {limit}",
                    )
                ],
            )
        max_bytes = MAX_FILE_BYTES
    document, problems = parse(raw, max_bytes=max_bytes)
    if document is UNPARSED:
        raise CricsheetRejected(filename, problems)
    problems += validate(document, match_id=match_id)
    if kinds is not None:
        problems += kind_problems(document, kinds)
    if problems:
        raise CricsheetRejected(filename, problems)
    return document


def _items(container: Any, key: str) -> list:
    value = container.get(key) if isinstance(container, dict) else None
    return value if isinstance(value, list) else []


def kind_problems(document: Any, kinds: Collection[str]) -> list[Problem]:
    """Each wicket whose kind is not among ``kinds``, read defensively: the document may
    break the contract elsewhere, and those problems are named beside these."""
    problems = []
    for i, inning in enumerate(_items(document, "innings")):
        for k, over in enumerate(_items(inning, "overs")):
            for d, delivery in enumerate(_items(over, "deliveries")):
                for w, wicket in enumerate(_items(delivery, "wickets")):
                    kind = wicket.get("kind") if isinstance(wicket, dict) else None
                    if isinstance(kind, str) and kind not in kinds:
                        problems.append(
                            Problem(
                                f"$.innings[{i}].overs[{k}].deliveries[{d}].wickets[{w}].kind",
                                "dismissal-kind",
                                f"{shown(kind)} is not a known dismissal kind",
                            )
                        )
    return problems
