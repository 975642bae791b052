"""The one way the project writes CSV: cells that a spreadsheet would run are neutralised.

A text cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as
a formula by spreadsheet programs (``=HYPERLINK(...)``, ``+cmd|...``), so a name typed into
a form could run on the machine of whoever opens the export. Such a cell is written with a
leading apostrophe, which spreadsheets show as text and never evaluate. Numbers are written
as they are (a negative number is not a formula).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, Protocol

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class _Writable(Protocol):
    def write(self, text: str, /) -> Any: ...


def csv_cell(value: Any) -> Any:
    """``value`` as a cell no spreadsheet evaluates."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose every cell goes through :func:`csv_cell`."""

    def __init__(self, stream: _Writable, **options: Any) -> None:
        self._writer = csv.writer(stream, **options)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([csv_cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
