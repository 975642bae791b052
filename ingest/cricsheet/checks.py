"""The checks of single values the Cricsheet contract is made of: each adds a named
problem at its JSON path, never raises."""

from __future__ import annotations

import math
import re
from datetime import date
from decimal import Decimal
from typing import Any

from ingest.cricsheet.problems import Problem, is_int, is_number, key_step, shown

# A person, team, venue, event, stage, official, umpire: the .name columns they land in.
NAME_MAX = 256
# Whole numbers fit a 32-bit integer column (or a jsonb figure read back into one).
INT_MAX = 2**31 - 1
OVERS_FIGURE_MAX = Decimal("99999.9")  # overs columns are numeric(6, 1)
FIRST_DAY, LAST_DAY = date(1800, 1, 1), date(2100, 12, 31)
# Free-form metadata (``info.missing``) nests no deeper than this.
METADATA_DEPTH = 4
ISO_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


class Checker:
    """Collects the problems of one document; each check returns the value when it holds."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, rule: str, message: str) -> None:
        self.problems.append(Problem(path, rule, message))

    def closed(self, value: dict, path: str, allowed: set | frozenset, what: str) -> None:
        for key in sorted(value.keys() - allowed):
            self.add(f"{path}{key_step(key)}", "unknown-key", f"is not part of {what}")

    def obj(self, value: Any, path: str, *, required: bool = True) -> dict | None:
        if value is None and not required:
            return None
        if not isinstance(value, dict):
            if value is None:
                self.add(path, "required", "is required (an object)")
            else:
                self.add(path, "type", f"must be an object, not {shown(value)}")
            return None
        return value

    def lst(self, value: Any, path: str, *, required: bool = True) -> list | None:
        if value is None and not required:
            return None
        if not isinstance(value, list):
            if value is None:
                self.add(path, "required", "is required (a list)")
            else:
                self.add(path, "type", f"must be a list, not {shown(value)}")
            return None
        return value

    def text(
        self, value: Any, path: str, *, required: bool = True, most: int = NAME_MAX
    ) -> str | None:
        """A non-blank string of at most ``most`` characters (the column it lands in)."""
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value.strip():
            if value is None:
                self.add(path, "required", "is required (a non-empty string)")
            else:
                self.add(path, "type", f"must be a non-empty string, not {shown(value)}")
            return None
        if len(value) > most:
            self.add(path, "length", f"is {len(value)} characters, more than the {most} allowed")
            return None
        return value

    def count(
        self, value: Any, path: str, *, required: bool = True, most: int = INT_MAX
    ) -> int | None:
        """A whole number from 0 to ``most``."""
        if value is None and not required:
            return None
        if not is_int(value):
            if value is None:
                self.add(path, "required", "is required (a whole number)")
            else:
                self.add(path, "type", f"must be a whole number, not {shown(value)}")
            return None
        if value < 0:
            self.add(path, "nonnegative", f"must be 0 or more, not {shown(value)}")
            return None
        if value > most:
            self.add(path, "range", f"must be at most {most}, not {shown(value)}")
            return None
        return value

    def flag(self, value: Any, path: str) -> None:
        if value is not None and not isinstance(value, bool):
            self.add(path, "type", f"must be true or false, not {shown(value)}")

    def choice(self, value: Any, path: str, choices: tuple[str, ...], *, required=True) -> None:
        if value is None and not required:
            return
        if not isinstance(value, str) or value not in choices:
            self.add(path, "enum", f"{shown(value)} is not one of {choices}")

    def person(self, value: Any, path: str, people: dict[str, str]) -> str | None:
        name = self.text(value, path)
        if name is not None and name not in people:
            self.add(path, "registry", f"{shown(name)} is not in info.registry.people")
            return None
        return name

    def team(self, value: Any, path: str, teams: list[str]) -> str | None:
        name = self.text(value, path)
        if name is not None and teams and name not in teams:
            self.add(path, "team", f"{shown(name)} is not one of info.teams {teams}")
            return None
        return name

    def figure(self, value: Any, path: str) -> Decimal | None:
        """An overs figure (38.2) that fits a numeric(6, 1) column."""
        if not is_number(value) or not math.isfinite(value) or value < 0:
            self.add(
                path, "type", f"must be overs as a number >= 0 (e.g. 38.2), not {shown(value)}"
            )
            return None
        figure = Decimal(str(value))
        if figure > OVERS_FIGURE_MAX:
            self.add(path, "range", f"must be at most {OVERS_FIGURE_MAX}, not {shown(value)}")
            return None
        return figure

    def ball_overs(self, value: Any, path: str, balls_per_over: int) -> None:
        """over.ball notation (38.2): the tenths are a ball of the over, before its last."""
        figure = self.figure(value, path)
        if figure is None:
            return
        tenths = figure * 10
        if tenths != tenths.to_integral_value():
            self.add(path, "overs", f"{shown(value)} has more than one decimal place")
        elif int(tenths) % 10 >= balls_per_over:
            self.add(
                path,
                "overs",
                f"{shown(value)} names ball {int(tenths) % 10} of a {balls_per_over}-ball over",
            )

    def day(self, value: Any, path: str) -> date | None:
        if not isinstance(value, str) or not ISO_DAY.match(value):
            self.add(path, "date", f"{shown(value)} is not a date (YYYY-MM-DD)")
            return None
        try:
            day = date.fromisoformat(value)
        except ValueError:
            self.add(path, "date", f"{shown(value)} is not a date (YYYY-MM-DD)")
            return None
        if not FIRST_DAY <= day <= LAST_DAY:
            self.add(path, "date-range", f"{value} is not between {FIRST_DAY} and {LAST_DAY}")
            return None
        return day

    def metadata(self, value: Any, path: str) -> None:
        """Free-form metadata kept as it is: shallow, with short texts."""
        stack = [(path, value, 0)]
        while stack:
            where, item, depth = stack.pop()
            if depth > METADATA_DEPTH:
                self.add(where, "depth", f"nests deeper than {METADATA_DEPTH} levels")
            elif isinstance(item, dict):
                for key, inner in item.items():
                    self.text(key, f"{where}{key_step(key)}")
                    stack.append((f"{where}{key_step(key)}", inner, depth + 1))
            elif isinstance(item, list):
                stack.extend((f"{where}[{i}]", inner, depth + 1) for i, inner in enumerate(item))
            elif isinstance(item, str):
                self.text(item, where)
            elif is_int(item):
                self.count(item, where)
            elif item is not None and not isinstance(item, bool):
                self.add(
                    where, "type", f"must be text, a whole number or a flag, not {shown(item)}"
                )
