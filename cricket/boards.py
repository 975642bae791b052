"""Which country each international cricket side plays for.

Cricsheet names a national side by its ICC member ("India", "Scotland", "West Indies") and
says ``team_type: international``; it names no country. ``data/boards.csv`` is the
hand-made table that does: one row per ICC member (the full members and every associate
that appears in the data), with the Commons country it plays for, keyed by the
three-letter NOC code the Games use, so the cricket "India" and the Games' India are one
country participant.

How a member maps, and why:

- A member whose territory is one Games country maps to it (India → IND).
- A member whose territory lies inside a Games country maps to that country: England (the
  England and Wales board) and Scotland → Great Britain (GBR); Jersey, Guernsey, the Isle
  of Man, Gibraltar and St Helena, which enter no Games of their own, → GBR as well.
- Ireland's board is all-island → Ireland (IRL), the country the Games enter for it.
- West Indies is one board of many nations, most of them Games countries of their own
  (Jamaica, Barbados, Trinidad and Tobago, Guyana...): it is no one country, and is
  linked to none. Its row says so, so the absence is a decision, not a gap. Barbados,
  which played as itself at the Commonwealth Games, maps to BAR.
- Invitation sides (World XI, Asia XI, Africa XI) are no country.

Men's and women's sides are two teams (``cricket.services.cricket_team``) and both are
national sides of the same country. A side whose name is not in the table is left
unlinked (``board_of`` answers None).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

BOARDS_CSV = Path(__file__).resolve().parent / "data" / "boards.csv"
STATUSES = ("full", "associate", "none")


@dataclass(frozen=True)
class Board:
    """One row of the table: the ICC member as Cricsheet names its side, its ICC status
    (``none``: not a member in its own right), and the country it plays for (code and
    name; both empty when it plays for no one country)."""

    member: str
    status: str
    country: str
    country_name: str
    note: str = ""


def boards_read(path: Path = BOARDS_CSV) -> dict[str, Board]:
    """The table by member name; a malformed row is an error naming the file, the line
    and what is wrong."""
    boards: dict[str, Board] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            board = Board(
                member=row["member"].strip(),
                status=row["status"].strip(),
                country=row["country"].strip(),
                country_name=row["country_name"].strip(),
                note=(row.get("note") or "").strip(),
            )
            problem = _problem(board, boards)
            if problem:
                raise ValueError(f"{path.name} line {line}: {problem}")
            boards[board.member] = board
    return boards


def _problem(board: Board, seen: dict[str, Board]) -> str:
    if not board.member:
        return "the member name is empty"
    if board.member in seen:
        return f"{board.member!r} is listed twice"
    if board.status not in STATUSES:
        return f"status {board.status!r} is not one of {', '.join(STATUSES)}"
    if bool(board.country) != bool(board.country_name):
        return "a country needs both its code and its name (or neither)"
    if board.country and not (len(board.country) == 3 and board.country.isupper()):
        return f"country {board.country!r} is not a three-letter code"
    if not board.country and not board.note:
        return f"{board.member!r} plays for no country: the note must say why"
    return ""


@cache
def _boards() -> dict[str, Board]:
    return boards_read()


def board_of(side: str) -> Board | None:
    """The row of an international side's name, or None when the table lacks it."""
    return _boards().get(side)
