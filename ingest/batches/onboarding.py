"""The gaps in a batch file that a reviewer can close, and the file as their answers close them.

A Cricsheet file lists each side's players under the side's name and gives every person a
registry id. Two gaps in that are onboarding work rather than a broken file: a listed
player with no registry id (``no_durable_identifier``: the reviewer gives the id, or names
the existing participant whose id it is) and a player listed under a team that is not one
of the match's two (``team_not_recognised``: the reviewer places them in one of the two).
A file is onboarded only when those are its only problems: the same file with the gaps
filled by stand-ins must pass the contract whole. Pure functions on parsed documents: no
database.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

#: A stand-in registry id, used only to check that the gaps are a file's only problems.
STAND_IN_ID = "unidentified-{}"


@dataclass(frozen=True)
class Gaps:
    """``unidentified``: name -> the team it is listed under; ``unplaced``: name -> the
    unrecognised team it is listed under; ``teams``: the match's two teams."""

    unidentified: dict[str, str] = field(default_factory=dict)
    unplaced: dict[str, str] = field(default_factory=dict)
    teams: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.unidentified or self.unplaced)


def gaps_of(document: Any) -> Gaps:
    """The onboarding gaps of a parsed file (none for a file too broken to read them)."""
    info = document.get("info") if isinstance(document, dict) else None
    if not isinstance(info, dict):
        return Gaps()
    registry = info.get("registry")
    people = registry.get("people") if isinstance(registry, dict) else None
    players = info.get("players")
    teams = info.get("teams")
    if not isinstance(people, dict) or not isinstance(players, dict) or not isinstance(teams, list):
        return Gaps()
    match_teams = tuple(t for t in teams if isinstance(t, str))
    unidentified: dict[str, str] = {}
    unplaced: dict[str, str] = {}
    for team, names in players.items():
        if not isinstance(names, list):
            continue
        for name in names:
            if not isinstance(name, str) or not name:
                continue
            if name not in people:
                unidentified.setdefault(name, team if team in match_teams else "")
            if team not in match_teams:
                unplaced.setdefault(name, team)
    return Gaps(unidentified=unidentified, unplaced=unplaced, teams=match_teams)


def answered(
    document: dict[str, Any], *, identifiers: dict[str, str], placements: dict[str, str]
) -> dict[str, Any]:
    """A copy of ``document`` with each name in ``identifiers`` given its registry id and
    each name in ``placements`` moved from the team it was listed under into the named
    match team (a team left with nobody listed goes)."""
    document = copy.deepcopy(document)
    info = document["info"]
    info["registry"]["people"].update(identifiers)
    players: dict[str, list[str]] = info["players"]
    for name, team in placements.items():
        for listed, names in list(players.items()):
            if listed != team and name in names:
                names.remove(name)
                if not names:
                    del players[listed]
        placed = players.setdefault(team, [])
        if name not in placed:
            placed.append(name)
    return document


def stand_ins(document: dict[str, Any], gaps: Gaps) -> dict[str, Any]:
    """The file with every gap filled by a stand-in (an id per unidentified name, the first
    match team for an unplaced one): what validation checks the rest of the file on."""
    first = gaps.teams[0] if gaps.teams else ""
    return answered(
        document,
        identifiers={name: STAND_IN_ID.format(i) for i, name in enumerate(gaps.unidentified)},
        placements=dict.fromkeys(gaps.unplaced, first),
    )
