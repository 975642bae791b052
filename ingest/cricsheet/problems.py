"""How the Cricsheet contract names a problem: the JSON path, the rule, a message that
never carries the bad value whole (a 50 MB string, a NUL) into a log or a stored rejection."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeGuard

# A rejection message lists this many problems (the exception keeps them all).
LISTED_PROBLEMS = 50
SIMPLE_KEY = re.compile(r"^[A-Za-z0-9_]{1,40}$")


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
        listed = "\n".join(f"  {filename}: {p}" for p in problems[:LISTED_PROBLEMS])
        if len(problems) > LISTED_PROBLEMS:
            listed += f"\n  {filename}: ... and {len(problems) - LISTED_PROBLEMS} more"
        super().__init__(
            f"{filename}: rejected, {len(problems)} problem(s), nothing written:\n{listed}"
        )


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def shown(value: Any) -> str:
    """A value for a message: never longer than a line, never a NUL or a surrogate (repr
    escapes them), never a walk through a deep container."""
    if isinstance(value, str):
        if len(value) <= 40:
            return repr(value)
        return f"{value[:40]!r}... ({len(value)} characters)"
    if isinstance(value, dict):
        return f"an object of {len(value)} key(s)"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    if is_int(value) and not -(10**20) < value < 10**20:
        return f"a number of {len(str(abs(value)))} digits"
    return repr(value)


def key_step(key: str) -> str:
    """An object key as a path step: ``.name`` when plain, ``['any text']`` otherwise."""
    if isinstance(key, str) and SIMPLE_KEY.match(key):
        return f".{key}"
    return f"[{shown(key)}]"


def unstorable(text: str) -> str | None:
    """Why PostgreSQL cannot store ``text`` (a NUL, an unpaired surrogate), or None."""
    if "\x00" in text:
        return "nul"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "encoding"
    return None


def walk(document: Any) -> Iterator[tuple[str, Any, bool]]:
    """(path, value, is_key) of every value and key of ``document``, without recursion
    (a document may nest as deep as the parser allows)."""
    stack: list[tuple[str, Any]] = [("$", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                yield f"{path}{key_step(key)}", key, True
                stack.append((f"{path}{key_step(key)}", item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
        else:
            yield path, value, False
