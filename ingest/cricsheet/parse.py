"""Bytes to a Cricsheet document: what a file must be before its contract is read (UTF-8
without a byte-order mark, no NUL, JSON that nests within the parser's limit, no key given
twice, only finite numbers), each refusal a named problem rather than an exception."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ingest.cricsheet.problems import Problem, key_step, unstorable, walk

# The largest file of the dev corpus is 0.8 MB: a file 20 times that is not a match.
MAX_FILE_BYTES = 16 * 1024 * 1024


class _Duplicated(dict):
    """An object whose source gave a key twice with different values (the parser kept the
    last)."""

    repeated: list[str]


# What ``parse`` returns for a document it could not read (JSON null is a document: None).
UNPARSED = object()

# A NUL or a surrogate written as an escape: the parsed text may hold one.
_SUSPECT_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def parse(raw: bytes, *, max_bytes: int = MAX_FILE_BYTES) -> tuple[Any, list[Problem]]:
    """Decode and parse one file's bytes: (document, the problems of its values) or
    (``UNPARSED``, why not).

    Refused before parsing: a file over ``max_bytes``, an empty one, a byte-order mark,
    a NUL byte, bytes that are not UTF-8. Refused by the parser: broken JSON, nesting past
    its recursion limit, a whole number past Python's digit limit. Refused after it,
    where they sit: NaN and Infinity (and a literal like 1e400, infinite as a float), a key
    given twice in one object with two values, a NUL or an unpaired surrogate written as an
    escape.
    """
    if len(raw) > max_bytes:
        return UNPARSED, [
            Problem("$", "size", f"is {len(raw)} bytes, more than the {max_bytes} allowed")
        ]
    if not raw.strip():
        return UNPARSED, [Problem("$", "empty", "the file is empty")]
    if raw.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return UNPARSED, [
            Problem("$", "encoding", "starts with a byte-order mark (files are UTF-8 without one)")
        ]
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        return UNPARSED, [Problem("$", "nul", f"holds a NUL byte at byte {nul} (line {line})")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return UNPARSED, [
            Problem("$", "encoding", f"byte {exc.start} (line {line}) is not UTF-8: {exc.reason}")
        ]
    odd = {"number": False, "duplicate": False}

    def number(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            odd["number"] = True
        return value

    def constant(literal: str) -> float:
        odd["number"] = True
        return float(literal)

    def pairs(items: list[tuple[str, Any]]) -> dict:
        made = dict(items)
        if len(made) == len(items):
            return made
        # Cricsheet itself repeats a key with the same value now and then (a non_striker
        # twice in match 64933): harmless. Two different values are two answers.
        repeated = sorted({key for key, value in items if value != made[key]})
        if not repeated:
            return made
        odd["duplicate"] = True
        flagged = _Duplicated(made)
        flagged.repeated = repeated
        return flagged

    try:
        document = json.loads(
            text, parse_float=number, parse_constant=constant, object_pairs_hook=pairs
        )
    except json.JSONDecodeError as exc:
        return UNPARSED, [
            Problem(
                "$", "json", f"not valid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})"
            )
        ]
    except RecursionError:
        return UNPARSED, [Problem("$", "depth", "nests deeper than the parser's limit")]
    except ValueError:  # a whole number of more digits than int() converts
        return UNPARSED, [Problem("$", "number", "holds a number with more digits than any figure")]
    problems: list[Problem] = []
    if odd["number"] or odd["duplicate"] or _SUSPECT_ESCAPE.search(raw):
        problems = _unstorable_values(document)
    return document, problems


def _unstorable_values(document: Any) -> list[Problem]:
    problems = []
    for path, value, is_key in walk(document):
        if isinstance(value, str):
            why = unstorable(value)
            if why == "nul":
                what = "key" if is_key else "text"
                problems.append(Problem(path, "nul", f"this {what} holds a NUL character"))
            elif why == "encoding":
                problems.append(Problem(path, "encoding", "holds an unpaired surrogate"))
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append(Problem(path, "number", f"{value} is not a finite number"))
    stack = [("$", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Duplicated):
            for key in value.repeated:
                problems.append(
                    Problem(
                        f"{path}{key_step(key)}", "duplicate-key", "is given twice in one object"
                    )
                )
        if isinstance(value, dict):
            stack.extend((f"{path}{key_step(k)}", v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(value))
    return sorted(problems, key=lambda p: p.path)
