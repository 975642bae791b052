"""A Cricsheet match document in the spine's terms: where it sits in the competition
tree, the rules it was played to, its own facts, its outcome and its squads. Pure
functions of the document (no database), shared by the match loader and by a batch that
says where its matches will go before anything is written."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.text import slugify

from sports.models import Participant, WinMethod

OFFICIAL_ROLES = {
    "umpires": "umpire",
    "tv_umpires": "tv_umpire",
    "reserve_umpires": "reserve_umpire",
    "match_referees": "match_referee",
}
WIN_METHODS = {"D/L": WinMethod.DLS, "DLS": WinMethod.DLS, "Awarded": WinMethod.AWARDED}


@dataclass(frozen=True)
class PathStep:
    code: str
    name: str
    type: str


def match_season(info: dict) -> str:
    """The match's season as the file names it ("2023/24", "2023"; its first day's year
    when it names none)."""
    return str(info.get("season") or info["dates"][0][:4])


CODE_LENGTH = 64  # Competition.code's width
_HASH_LENGTH = 8


def node_code(full: str, legacy: str) -> str:
    """A node's code from its ``full`` path code (every step's slug, joined, untruncated)
    and the code the import gave it before codes could be hashed (``legacy``: each parent
    cut to 50 characters, the whole to 64). A path that fits keeps its code, so existing
    nodes keep theirs; a longer one is a readable prefix plus a short stable hash of the
    full path, so paths sharing their first characters no longer share a node."""
    if legacy == full:
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()[:_HASH_LENGTH]
    return f"{full[: CODE_LENGTH - _HASH_LENGTH - 1].rstrip('-')}-{digest}"


def competition_path(info: dict) -> list[PathStep]:
    """The competition nodes a match sits under, root first, as the import names them:
    event > season > stage > group; a match with no event sits under a node per match
    type, gender and team type. Pure: it reads the file's ``info`` only, so a batch can say
    where its matches will go before anything is written. Codes identify the nodes
    (unique among cricket's competitions; see ``node_code``)."""
    gender = info["gender"]
    women = gender == "female"
    event = info.get("event") or {}
    season = match_season(info)
    if event.get("name"):
        name = event["name"]
        if women and "women" not in name.lower():
            name = f"{name} (women)"
        root = PathStep(slugify(name), name, "event")
    else:
        label = (
            f"{info['match_type']} matches ({'women' if women else 'men'}, "
            f"{info.get('team_type', 'international')})"
        )
        root = PathStep(slugify(label), label, "format")
    steps = [root, PathStep(slugify(season), season, "season")]
    for key in ("stage", "group"):
        if event.get(key) not in (None, ""):
            value = str(event[key])
            label = value if key == "stage" else f"Group {value}"
            steps.append(PathStep(f"{key[0]}-{slugify(value)}", label, key))
    path: list[PathStep] = []
    full = legacy = ""
    for step in steps:
        if not path:
            full, legacy = step.code, step.code[:CODE_LENGTH]
        else:
            full = f"{full}-{step.code}"
            legacy = f"{legacy[:50]}-{step.code}"[:CODE_LENGTH]
        path.append(PathStep(node_code(full, legacy), step.name, step.type))
    return path


def overs_value(value: float | str) -> Decimal:
    """Overs as the file writes them (4.3: four overs and three balls), to one place."""
    return Decimal(str(value)).quantize(Decimal("0.1"))


def overs_decimal(value: Any) -> Decimal | None:
    """``overs_value`` of an optional figure."""
    if value is None:
        return None
    return overs_value(value)


def side_squad(
    info: dict, team: str, people: dict[str, Participant]
) -> list[tuple[Participant, str]]:
    """The team's players in file order; the supersub (a Big Bash rule of 2005-06) keeps
    "supersub" as the role on their squad entry, added if the list left them out."""
    listed = (info.get("players") or {}).get(team, [])
    supersub = (info.get("supersubs") or {}).get(team)
    squad = [(people[name], "supersub" if name == supersub else "") for name in listed]
    if supersub and supersub not in listed:
        squad.append((people[supersub], "supersub"))
    return squad


def fixture_format(info: dict) -> dict:
    """The rules the match was played to (the same for every match of its kind)."""
    rules = {
        "match_type": info["match_type"],
        "balls_per_over": info.get("balls_per_over", 6),
        "gender": info["gender"],
        "team_type": info.get("team_type", ""),
    }
    if info.get("overs") is not None:
        rules["overs"] = info["overs"]
    return rules


def fixture_meta(info: dict, meta: dict, people: dict[str, Participant]) -> dict:
    """This match's own facts: the rest of ``info`` (players, registry, officials and the
    outcome have their own homes), plus the source file's version."""
    facts = {
        key: value
        for key, value in info.items()
        if key
        not in (
            "players",
            "registry",
            "officials",
            "outcome",
            "teams",
            "match_type",
            "balls_per_over",
            "overs",
            "gender",
            "team_type",
            "supersubs",
        )
    }
    if info.get("player_of_match"):
        facts["player_of_match_ids"] = [str(people[n].pk) for n in info["player_of_match"]]
    if info.get("supersubs"):
        facts["supersubs"] = info["supersubs"]
    facts["source"] = {
        "data_version": meta["data_version"],
        "revision": meta.get("revision"),
        "created": meta.get("created"),
    }
    return facts


def fixture_result(outcome: dict, teams: list[str]) -> tuple[dict | None, dict[str, int], dict]:
    """The outcome in the spine's terms: the result document, each team's rank and win
    method. Seven source shapes: a winner by runs, wickets or innings (or with no margin);
    a tie, decided or not by an eliminator or a bowl-out; a draw; no result; any of them
    with a method (D/L, VJD, Awarded). Level results use the spine's one draw form: both
    ranked 1 with outcome "draw"."""
    if not outcome:
        return None, {}, {}
    document: dict[str, Any] = {"cricsheet": outcome}
    ranks: dict[str, int] = {}
    methods: dict[str, str] = {}
    winner = outcome.get("winner")
    result = outcome.get("result")
    decider = outcome.get("eliminator") or outcome.get("bowl_out")
    if result == "no result":
        document["outcome"] = "no_result"
    elif winner is not None or decider is not None:
        winner = winner or decider
        document["outcome"] = "win"
        document["winner"] = winner
        for team in teams:
            ranks[team] = 1 if team == winner else 2
        if result == "tie":
            document["tie"] = True
            document["decided_by"] = "eliminator" if outcome.get("eliminator") else "bowl_out"
        if outcome.get("by"):
            document["by"] = outcome["by"]
        method = outcome.get("method")
        # A valid file's winner (or decider) is one of its teams.
        if method in WIN_METHODS and winner is not None:
            methods[winner] = WIN_METHODS[method]
    else:
        document["outcome"] = "draw"
        document["tie"] = result == "tie"
        for team in teams:
            ranks[team] = 1
    if outcome.get("method"):
        document["method"] = outcome["method"]
    return document, ranks, methods
