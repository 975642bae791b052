"""Import a multi-sport Games in the Paris 2024 (Olympic Data Feed style) layout.

The directory may hold any of ``events``, ``schedules``, ``medals``, ``medallists``,
``teams``, ``nocs`` (each ``.csv`` or ``.csv.gz``) and ``results/*.csv(.gz)``; only the
files present are read. The tree built is::

    Games root (no sport) > discipline (its Sport row) > event > phase > unit fixtures

and, at each event, one "medals" fixture: a ranked field of the event's medallists with
their medals. Medals are recorded there and only there, so the medal table (folded over
result lines) counts each medal once whether or not the unit results were imported, and a
directory holding only ``medals.csv`` still gives the whole Games > discipline > event
tree with its medal results.

Reading (``reading.py``) is pure code; writing (``writing.py``) is the one transaction.

Contract:
- Everything is read and checked first (pure code). A bad file raises ``GamesInputError``
  naming the file, the row and the rule, before any write.
- The writes run in ONE transaction for the whole import (chosen over one per event so
  that a Games is never half there): a failure part-way (a database guard, a lost race
  with a concurrent import of the same Games, which then fails on the unique codes) leaves
  nothing behind, and the import can simply be run again.
- Athletes are keyed by their olympics code (the IOC's lasting id); team codes are re-used
  by every Games, so a team's external id is scoped by the Games code. The olympics code is
  the athlete's identity: new athletes are created with ``dedupe=False`` (a fingerprint of
  name and country would join two namesakes with no birth date), and the resolver never
  joins a code to a namesake the source knows under another code.
- Re-running with the same files changes no row: the submission is found again by the
  digest of the files, and every write is create-if-missing or a no-op when equal.
  Fields a person pinned (on fixtures and competitors) are never written.
"""

from ingest.games.reading import GamesData, GamesInputError, games_read
from ingest.games.writing import GamesSummary, games_import

__all__ = ["GamesData", "GamesInputError", "GamesSummary", "games_import", "games_read"]
