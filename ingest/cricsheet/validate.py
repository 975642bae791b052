"""The Cricsheet submission contract, as pure code (no database).

Every problem in a file is collected, each with its JSON path and the rule it breaks, before
anything is written: a rejected file names all of them at once, not just the first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeGuard

from django.conf import settings

DATA_VERSIONS = ("1.0.0", "1.1.0", "1.2.0")
MATCH_TYPES = ("T20", "IT20", "ODI", "ODM", "Test", "MDM")
EXTRAS = ("wides", "noballs", "byes", "legbyes", "penalty")
RESULTS = ("draw", "tie", "no result")
POWERPLAY_TYPES = ("mandatory", "batting", "fielding")
OFFICIAL_ROLES = ("umpires", "tv_umpires", "reserve_umpires", "match_referees")
# A delivery-level "over" key appears in a few generated files; it always equals the parent
# over's number wherever it appears, so it is accepted and ignored.
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
# Match ids are text: most are digits, but wi_211973 exists.
MATCH_ID = re.compile(r"^[A-Za-z0-9_]{1,64}$")


@dataclass(frozen=True)
class Problem:
    path: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.rule}]"


class CricsheetRejected(ValueError):
    """A file refused by the contract. Nothing of it was written."""

    def __init__(self, filename: str, problems: list[Problem]):
        self.filename, self.problems = filename, problems
        listed = "\n".join(f"  {filename}: {p}" for p in problems)
        super().__init__(
            f"{filename}: rejected, {len(problems)} problem(s), nothing written:\n{listed}"
        )


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class _Checker:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, rule: str, message: str) -> None:
        self.problems.append(Problem(path, rule, message))

    def obj(self, value: Any, path: str, *, required: bool = True) -> dict | None:
        if value is None and not required:
            return None
        if not isinstance(value, dict):
            if value is None:
                self.add(path, "required", "is required (an object)")
            else:
                self.add(path, "type", f"must be an object, not {type(value).__name__}")
            return None
        return value

    def lst(self, value: Any, path: str, *, required: bool = True) -> list | None:
        if value is None and not required:
            return None
        if not isinstance(value, list):
            if value is None:
                self.add(path, "required", "is required (a list)")
            else:
                self.add(path, "type", f"must be a list, not {type(value).__name__}")
            return None
        return value

    def text(self, value: Any, path: str, *, required: bool = True) -> str | None:
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value.strip():
            if value is None:
                self.add(path, "required", "is required (a non-empty string)")
            else:
                self.add(path, "type", f"must be a non-empty string, not {value!r}")
            return None
        return value

    def count(self, value: Any, path: str, *, required: bool = True) -> int | None:
        """A whole number >= 0."""
        if value is None and not required:
            return None
        if not _is_int(value):
            if value is None:
                self.add(path, "required", "is required (a whole number)")
            else:
                self.add(path, "type", f"must be a whole number, not {value!r}")
            return None
        if value < 0:
            self.add(path, "nonnegative", f"must be 0 or more, not {value}")
            return None
        return value

    def flag(self, value: Any, path: str) -> None:
        if value is not None and not isinstance(value, bool):
            self.add(path, "type", f"must be true or false, not {value!r}")

    def person(self, value: Any, path: str, people: dict[str, str]) -> str | None:
        name = self.text(value, path)
        if name is not None and name not in people:
            self.add(path, "registry", f"{name!r} is not in info.registry.people")
            return None
        return name

    def team(self, value: Any, path: str, teams: list[str]) -> str | None:
        name = self.text(value, path)
        if name is not None and teams and name not in teams:
            self.add(path, "team", f"{name!r} is not one of info.teams {teams}")
            return None
        return name

    def overs_value(self, value: Any, path: str) -> None:
        """over.ball notation (38.2): a number >= 0 whose decimal digit is a ball number."""
        if not _is_number(value) or value < 0:
            self.add(path, "type", f"must be overs as a number >= 0 (e.g. 38.2), not {value!r}")


def check_match_id(match_id: str) -> list[Problem]:
    if not MATCH_ID.match(match_id or ""):
        return [Problem("(file name)", "match-id", f"{match_id!r} is not a Cricsheet match id")]
    return []


def validate(document: Any, *, match_id: str) -> list[Problem]:
    """Every way ``document`` breaks the contract; an empty list means it may be imported."""
    c = _Checker()
    c.problems.extend(check_match_id(match_id))
    root = c.obj(document, "$")
    if root is None:
        return c.problems
    for key in root.keys() - {"meta", "info", "innings"}:
        c.add(f"$.{key}", "unknown-key", "is not part of a Cricsheet match")
    meta = c.obj(root.get("meta"), "$.meta")
    data_version = None
    if meta is not None:
        data_version = c.text(meta.get("data_version"), "$.meta.data_version")
        if data_version is not None and data_version not in DATA_VERSIONS:
            c.add(
                "$.meta.data_version",
                "data-version",
                f"{data_version!r} is not a supported version ({', '.join(DATA_VERSIONS)})",
            )
        c.text(meta.get("created"), "$.meta.created")
        c.count(meta.get("revision"), "$.meta.revision")
    info = c.obj(root.get("info"), "$.info")
    people: dict[str, str] = {}
    teams: list[str] = []
    if info is not None:
        people, teams = _check_info(c, info)
    innings = c.lst(root.get("innings"), "$.innings")
    if innings is not None:
        if not innings:
            c.add("$.innings", "required", "must hold at least one innings")
        for i, inning in enumerate(innings):
            _check_innings(c, inning, f"$.innings[{i}]", people, teams)
    return c.problems


def _check_info(c: _Checker, info: dict) -> tuple[dict[str, str], list[str]]:
    registry = c.obj(info.get("registry"), "$.info.registry")
    people: dict[str, str] = {}
    if registry is not None:
        raw = c.obj(registry.get("people"), "$.info.registry.people")
        for name, identifier in (raw or {}).items():
            if c.text(identifier, f"$.info.registry.people[{name!r}]") is not None:
                people[name] = identifier
    teams_raw = c.lst(info.get("teams"), "$.info.teams") or []
    teams = [t for i, t in enumerate(teams_raw) if c.text(t, f"$.info.teams[{i}]")]
    if teams_raw and (len(teams_raw) != 2 or len(set(teams)) != 2):
        c.add("$.info.teams", "teams", f"must name two different teams, not {teams_raw!r}")
    match_type = c.text(info.get("match_type"), "$.info.match_type")
    if match_type is not None and match_type not in MATCH_TYPES:
        c.add("$.info.match_type", "enum", f"{match_type!r} is not one of {MATCH_TYPES}")
    bpo = c.count(info.get("balls_per_over"), "$.info.balls_per_over", required=False)
    if bpo == 0:
        c.add("$.info.balls_per_over", "positive", "must be 1 or more")
    c.count(info.get("overs"), "$.info.overs", required=False)
    gender = c.text(info.get("gender"), "$.info.gender")
    if gender is not None and gender not in ("male", "female"):
        c.add("$.info.gender", "enum", f"{gender!r} is not male or female")
    c.text(info.get("team_type"), "$.info.team_type", required=False)
    dates = c.lst(info.get("dates"), "$.info.dates")
    if dates is not None:
        if not dates:
            c.add("$.info.dates", "required", "must hold at least one date")
        for i, value in enumerate(dates):
            try:
                date.fromisoformat(value)
            except (TypeError, ValueError):
                c.add(f"$.info.dates[{i}]", "date", f"{value!r} is not a date (YYYY-MM-DD)")
    players = c.obj(info.get("players"), "$.info.players")
    for team, names in (players or {}).items():
        path = f"$.info.players[{team!r}]"
        c.team(team, path, teams)
        for j, name in enumerate(c.lst(names, path) or []):
            c.person(name, f"{path}[{j}]", people)
    for team, name in (
        c.obj(info.get("supersubs"), "$.info.supersubs", required=False) or {}
    ).items():
        c.team(team, f"$.info.supersubs[{team!r}]", teams)
        c.person(name, f"$.info.supersubs[{team!r}]", people)
    for j, name in enumerate(
        c.lst(info.get("player_of_match"), "$.info.player_of_match", required=False) or []
    ):
        c.person(name, f"$.info.player_of_match[{j}]", people)
    officials = c.obj(info.get("officials"), "$.info.officials", required=False) or {}
    for role, names in officials.items():
        path = f"$.info.officials.{role}"
        if role not in OFFICIAL_ROLES:
            c.add(path, "unknown-key", f"is not an official role ({', '.join(OFFICIAL_ROLES)})")
        for j, name in enumerate(c.lst(names, path) or []):
            c.text(name, f"{path}[{j}]")
    event = c.obj(info.get("event"), "$.info.event", required=False)
    if event is not None:
        c.text(event.get("name"), "$.info.event.name")
    toss = c.obj(info.get("toss"), "$.info.toss", required=False)
    if toss is not None:
        c.team(toss.get("winner"), "$.info.toss.winner", teams)
        c.text(toss.get("decision"), "$.info.toss.decision")
    outcome = c.obj(info.get("outcome"), "$.info.outcome", required=False)
    if outcome is not None:
        _check_outcome(c, outcome, teams)
    return people, teams


def _check_outcome(c: _Checker, outcome: dict, teams: list[str]) -> None:
    winner, result = outcome.get("winner"), outcome.get("result")
    if winner is None and result is None:
        c.add("$.info.outcome", "outcome", "names neither a winner nor a result")
    if winner is not None and result is not None:
        c.add("$.info.outcome", "outcome", "names both a winner and a result")
    if winner is not None:
        c.team(winner, "$.info.outcome.winner", teams)
    if result is not None and result not in RESULTS:
        c.add("$.info.outcome.result", "enum", f"{result!r} is not one of {RESULTS}")
    by = c.obj(outcome.get("by"), "$.info.outcome.by", required=False)
    for key, value in (by or {}).items():
        if key not in ("runs", "wickets", "innings"):
            c.add(f"$.info.outcome.by.{key}", "unknown-key", "is not runs, wickets or innings")
        c.count(value, f"$.info.outcome.by.{key}")
    for key in ("eliminator", "bowl_out"):
        if outcome.get(key) is not None:
            c.team(outcome[key], f"$.info.outcome.{key}", teams)
    c.text(outcome.get("method"), "$.info.outcome.method", required=False)


def _check_innings(
    c: _Checker,
    inning: Any,
    path: str,
    people: dict[str, str],
    teams: list[str],
) -> None:
    inning = c.obj(inning, path)
    if inning is None:
        return
    for key in inning.keys() - INNINGS_KEYS:
        c.add(f"{path}.{key}", "unknown-key", "is not part of a Cricsheet innings")
    c.team(inning.get("team"), f"{path}.team", teams)
    for key in ("super_over", "declared", "forfeited"):
        c.flag(inning.get(key), f"{path}.{key}")
    target = c.obj(inning.get("target"), f"{path}.target", required=False)
    if target is not None:
        c.count(target.get("runs"), f"{path}.target.runs", required=False)
        if target.get("overs") is not None:
            c.overs_value(target["overs"], f"{path}.target.overs")
    penalty = c.obj(inning.get("penalty_runs"), f"{path}.penalty_runs", required=False)
    for key, value in (penalty or {}).items():
        if key not in ("pre", "post"):
            c.add(f"{path}.penalty_runs.{key}", "unknown-key", "is not pre or post")
        c.count(value, f"{path}.penalty_runs.{key}")
    for j, pp in enumerate(
        c.lst(inning.get("powerplays"), f"{path}.powerplays", required=False) or []
    ):
        where = f"{path}.powerplays[{j}]"
        pp = c.obj(pp, where)
        if pp is None:
            continue
        for key in ("from", "to"):
            c.overs_value(pp.get(key), f"{where}.{key}")
        if pp.get("type") not in POWERPLAY_TYPES:
            c.add(f"{where}.type", "enum", f"{pp.get('type')!r} is not one of {POWERPLAY_TYPES}")
    miscounted = c.obj(inning.get("miscounted_overs"), f"{path}.miscounted_overs", required=False)
    for key, value in (miscounted or {}).items():
        where = f"{path}.miscounted_overs[{key!r}]"
        if not str(key).isdigit():
            c.add(where, "type", "is keyed by an over number")
        value = c.obj(value, where)
        if value is None:
            continue
        balls = value.get("balls")
        # The source writes balls as 5 or "5"; both are accepted and coerced at import.
        if not (_is_int(balls) and balls >= 0) and not (isinstance(balls, str) and balls.isdigit()):
            c.add(
                f"{where}.balls", "type", f"must be a whole number (or its digits), not {balls!r}"
            )
        c.text(value.get("umpire"), f"{where}.umpire", required=False)
    for j, name in enumerate(
        c.lst(inning.get("absent_hurt"), f"{path}.absent_hurt", required=False) or []
    ):
        c.person(name, f"{path}.absent_hurt[{j}]", people)
    overs = c.lst(inning.get("overs"), f"{path}.overs", required=not inning.get("forfeited"))
    names = {name for name in people if name.strip()}
    previous = -1
    for k, over in enumerate(overs or []):
        where = f"{path}.overs[{k}]"
        over = c.obj(over, where)
        if over is None:
            continue
        number = c.count(over.get("over"), f"{where}.over")
        if number is not None:
            if number <= previous:
                c.add(f"{where}.over", "order", f"over {number} does not follow over {previous}")
            previous = number
        deliveries = c.lst(over.get("deliveries"), f"{where}.deliveries")
        if deliveries is not None and not deliveries:
            c.add(f"{where}.deliveries", "required", "an over must hold at least one delivery")
        for d, delivery in enumerate(deliveries or []):
            if not _plain_and_valid(delivery, names):
                _check_delivery(c, delivery, f"{where}.deliveries[{d}]", people, teams)


_PLAIN_KEYS = frozenset(
    {"batter", "bowler", "non_striker", "runs", "extras", "over", "actual_delivery"}
)
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
    if type(runs) is not dict:
        return False
    batter_runs, extras_runs, total = runs.get("batter"), runs.get("extras"), runs.get("total")
    if type(batter_runs) is not int or type(extras_runs) is not int or type(total) is not int:
        return False
    if batter_runs < 0 or extras_runs < 0 or total != batter_runs + extras_runs:
        return False
    flag = runs.get("non_boundary")
    if flag is not None and type(flag) is not bool:
        return False
    label = delivery.get("actual_delivery")
    if label is not None and (type(label) is not str or not label.strip()):
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
    c: _Checker,
    delivery: Any,
    path: str,
    people: dict[str, str],
    teams: list[str],
) -> None:
    delivery = c.obj(delivery, path)
    if delivery is None:
        return
    for key in delivery.keys() - DELIVERY_KEYS:
        c.add(f"{path}.{key}", "unknown-key", "is not part of a Cricsheet delivery")
    for key in ("batter", "bowler", "non_striker"):
        c.person(delivery.get(key), f"{path}.{key}", people)
    if "actual_delivery" in delivery:
        c.text(delivery["actual_delivery"], f"{path}.actual_delivery")
    runs = c.obj(delivery.get("runs"), f"{path}.runs")
    batter_runs = extras_runs = total = None
    if runs is not None:
        batter_runs = c.count(runs.get("batter"), f"{path}.runs.batter")
        extras_runs = c.count(runs.get("extras"), f"{path}.runs.extras")
        total = c.count(runs.get("total"), f"{path}.runs.total")
        c.flag(runs.get("non_boundary"), f"{path}.runs.non_boundary")
    extras = c.obj(delivery.get("extras"), f"{path}.extras", required=False)
    extras_sum: int | None = 0
    for key, value in (extras or {}).items():
        if key not in EXTRAS:
            c.add(
                f"{path}.extras.{key}",
                "unknown-key",
                f"is not an extras type ({', '.join(EXTRAS)})",
            )
            extras_sum = None
            continue
        counted = c.count(value, f"{path}.extras.{key}")
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
    for w, wicket in enumerate(
        c.lst(delivery.get("wickets"), f"{path}.wickets", required=False) or []
    ):
        where = f"{path}.wickets[{w}]"
        wicket = c.obj(wicket, where)
        if wicket is None:
            continue
        c.person(wicket.get("player_out"), f"{where}.player_out", people)
        c.text(wicket.get("kind"), f"{where}.kind")
        for f, fielder in enumerate(
            c.lst(wicket.get("fielders"), f"{where}.fielders", required=False) or []
        ):
            at = f"{where}.fielders[{f}]"
            fielder = c.obj(fielder, at)
            if fielder is None:
                continue
            # A substitute may be recorded with no name at all.
            if "name" in fielder:
                c.person(fielder["name"], f"{at}.name", people)
            elif not fielder.get("substitute"):
                c.add(at, "required", "a fielder without a name must be a substitute")
            c.flag(fielder.get("substitute"), f"{at}.substitute")
    review = c.obj(delivery.get("review"), f"{path}.review", required=False)
    if review is not None:
        c.team(review.get("by"), f"{path}.review.by", teams)
        c.text(review.get("decision"), f"{path}.review.decision")
        if review.get("batter") is not None:
            c.person(review["batter"], f"{path}.review.batter", people)
        c.flag(review.get("umpires_call"), f"{path}.review.umpires_call")
    replacements = c.obj(delivery.get("replacements"), f"{path}.replacements", required=False)
    for kind, entries in (replacements or {}).items():
        where = f"{path}.replacements.{kind}"
        if kind not in ("match", "role"):
            c.add(where, "unknown-key", "is not match or role")
            continue
        for r, entry in enumerate(c.lst(entries, where) or []):
            entry = c.obj(entry, f"{where}[{r}]")
            if entry is None:
                continue
            c.person(entry.get("in"), f"{where}[{r}].in", people)
            if entry.get("out") is not None:
                c.person(entry["out"], f"{where}[{r}].out", people)
            if kind == "match":
                c.team(entry.get("team"), f"{where}[{r}].team", teams)


def load(raw: bytes, *, filename: str, match_id: str) -> dict:
    """Parse and validate one file; raise ``CricsheetRejected`` naming every problem.

    A file over ``CRICSHEET_MAX_FILE_BYTES`` is refused unparsed: JSON made of small objects
    takes some 25 times its size in memory once parsed (the largest real match file is
    under 1 MB)."""
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
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CricsheetRejected(
            filename, [Problem("$", "json", f"not valid JSON: {exc}")]
        ) from None
    problems = validate(document, match_id=match_id)
    if problems:
        raise CricsheetRejected(filename, problems)
    return document
