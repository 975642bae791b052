"""Figures as they stood at a moment: the line tables read as of ``D``.

``lines_as_of(moment)`` is a context manager. Inside it, on this connection, every
statistic line table and records table (``SHADOWED``) reads as it stood at ``moment``:

- only fixtures first published before ``moment`` (a fixture is published when the
  submission that first brought it, ``Fixture.first_seen_in``, is accepted; acceptance is
  one transition stamped in database time, ``Submission.accepted_at``, and never undone);
- only the delivery revisions live at ``moment``, read from the append-only revision
  history: a revision is live from the moment it took its place (a correction, a move or
  a removal: the time its predecessor was superseded; a ball of the fixture's first
  submission: from the start; a ball a revised file added: its creation) until it is
  superseded (``superseded_at``); a tombstone (``removed``) is never live.

How. Most fixtures' lines are the same at ``moment`` as now: those published before it
whose deliveries have had no revision since. Those keep their stored lines. The few
fixtures with a revision after ``moment`` (a row superseded after it, or a ball created
after it) are the affected scope: their lines are derived again by the engine's own
statements (``engine`` and ``partnerships``, the same SQL a refresh runs), reading the
revisions live at ``moment`` instead of the current ones, into temporary tables. Then a
temporary view named like each line table (``pg_temp`` comes first in the search path
for unqualified names) shows the stored lines of the unaffected fixtures published before
``moment`` and the derived lines of the affected ones. Every reader of lines (the
``StatsQuery`` folds, the team view, the innings list, the records) runs unchanged inside
the block: the figure as of a moment and today's figure are one query path.

Why only the affected scope. Deriving every line again from the deliveries at ``moment``
would cost a corpus rebuild per read, nearly all of it for fixtures whose lines did not
change; deriving the affected fixtures alone costs in proportion to the revisions made
since ``moment`` (``make bench-stats-as-of`` measures an as-of read against today's).
Two indexes keep the affected scope cheap to find: the superseded rows by
``superseded_at`` (partial: live rows have none) and a BRIN index on ``created_at`` (the
table is append-only, so its physical order follows time; ``autosummarize`` lets
autovacuum summarize each filled block range, since an unsummarized range is always
read). A moment long past, before most balls were loaded, reads many rows created since;
a moment before any publication finds no public fixture and derives nothing.

What is not versioned is read as it stands now: squads, results, venues, toss and merges
of participants (a fixture's facts have no append-only history of their own).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, transaction

from cricket.stats import engine, partnerships

SHADOWED = (*engine.LINE_TABLES, *partnerships.TABLES)

# The public gate and the live-revision read of the engines' statements, and what they
# become as of a moment.
_GATE = "JOIN sports_submission sub ON sub.id = f.first_seen_in_id AND sub.accepted"
_GATE_AS_OF = _GATE + " AND sub.accepted_at < %(as_of)s"
_LIVE = "FROM cricket_delivery d JOIN inn ON inn.id = d.innings_id\n     WHERE d.is_current"
_LIVE_AS_OF = "FROM pg_temp.asof_delivery d JOIN inn ON inn.id = d.innings_id\n     WHERE true"

# The cricket fixtures public at the moment.
_PUBLIC = """
CREATE TEMP TABLE asof_public (id uuid PRIMARY KEY);
INSERT INTO asof_public
SELECT f.id FROM sports_fixture f
  JOIN sports_sport s ON s.id = f.sport_id AND s.code = 'cricket'
  JOIN sports_submission sub ON sub.id = f.first_seen_in_id AND sub.accepted
   AND sub.accepted_at < %(as_of)s
 WHERE f.merged_into_id IS NULL;
ANALYZE asof_public;
"""

# The public fixtures with a revision after the moment, and their innings (with no public
# fixture at all, nothing is scanned: the EXISTS is a one-time filter).
_AFFECTED = """
WITH touched AS (
    SELECT innings_id FROM cricket_delivery
     WHERE superseded_at IS NOT NULL AND superseded_at >= %(as_of)s
       AND EXISTS (SELECT 1 FROM asof_public)
    UNION
    SELECT innings_id FROM cricket_delivery
     WHERE created_at >= %(as_of)s AND EXISTS (SELECT 1 FROM asof_public)
),
fixtures AS (
    SELECT DISTINCT i.fixture_id FROM touched t
      JOIN cricket_innings i ON i.id = t.innings_id
      JOIN asof_public p ON p.id = i.fixture_id
)
SELECT f.fixture_id::text, COALESCE(array_agg(i.id::text ORDER BY i.id)
                                    FILTER (WHERE i.id IS NOT NULL), '{}')
  FROM fixtures f LEFT JOIN cricket_innings i ON i.fixture_id = f.fixture_id
 GROUP BY f.fixture_id ORDER BY 1
"""

# The revisions of the affected innings live at the moment: the live rows that took their
# place before it, and the superseded rows that had taken theirs before it and were
# superseded at it or after.
_LIVE_ROWS = """
CREATE TEMP TABLE asof_delivery AS
SELECT d.* FROM (
    SELECT * FROM cricket_delivery
     WHERE is_current AND innings_id = ANY(%(innings)s::uuid[])
    UNION ALL
    SELECT * FROM cricket_delivery
     WHERE superseded_at IS NOT NULL AND superseded_at >= %(as_of)s
       AND innings_id = ANY(%(innings)s::uuid[]) AND NOT removed
) d
  JOIN cricket_innings i ON i.id = d.innings_id
  JOIN sports_fixture f ON f.id = i.fixture_id
 WHERE CASE WHEN d.supersedes_id IS NOT NULL
            THEN (SELECT p.superseded_at FROM cricket_delivery p WHERE p.id = d.supersedes_id)
            WHEN d.submission_id = f.first_seen_in_id THEN '-infinity'::timestamptz
            ELSE d.created_at END < %(as_of)s;
ANALYZE asof_delivery;
"""


def _schema() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        return str(cursor.fetchone()[0])


def _as_of_statement(statement: str) -> str:
    """An engine statement reading the revisions live at the moment, for fixtures
    published before it. Each engine statement has the gate and the live read once; a
    statement that does not is refused (the engine changed under this reader)."""
    for old in (_GATE, _LIVE):
        if statement.count(old) != 1:
            raise RuntimeError(f"an engine statement does not read {old!r} exactly once")
    return statement.replace(_GATE, _GATE_AS_OF).replace(_LIVE, _LIVE_AS_OF)


@contextmanager
def lines_as_of(moment: dt.datetime) -> Iterator[None]:
    """Within the block, the line and records tables read as they stood at ``moment`` (an
    aware datetime). Runs in one transaction (a savepoint inside an outer one); the
    temporary tables and views are dropped on the way out, or rolled back with it."""
    if moment.tzinfo is None:
        raise ValueError("as_of: a moment needs its time zone")
    schema = _schema()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_PUBLIC, {"as_of": moment})
        cursor.execute(_AFFECTED, {"as_of": moment})
        affected = cursor.fetchall()
        ids = [row[0] for row in affected]
        innings = [pk for row in affected for pk in row[1]]
        # Temporary tables named like the line tables: the engines' INSERTs land in them.
        cursor.execute(
            "".join(
                f"CREATE TEMP TABLE {table} (LIKE {schema}.{table}"
                " INCLUDING DEFAULTS INCLUDING IDENTITY);"
                for table in SHADOWED
            )
        )
        if ids:
            cursor.execute(_LIVE_ROWS, {"as_of": moment, "innings": innings})
            params: dict[str, Any] = {"ids": ids, "innings": innings, "as_of": moment}
            for statement in engine.STATEMENTS:
                cursor.execute(
                    _as_of_statement(statement).format(
                        where="f.id = ANY(%(ids)s::uuid[])",
                        deliveries_innings="i.id = ANY(%(innings)s::uuid[])",
                        deliveries="d.innings_id = ANY(%(innings)s::uuid[])",
                    ),
                    params,
                )
            for statement in partnerships.STATEMENTS:
                cursor.execute(_as_of_statement(statement), params)
        # The stored lines of the unaffected fixtures public then, and the derived ones.
        cursor.execute(
            "".join(
                f"ALTER TABLE pg_temp.{table} RENAME TO asof_{table};"
                f"CREATE TEMP VIEW {table} AS"
                f" SELECT * FROM {schema}.{table} l"
                f" WHERE l.fixture_id IN (SELECT id FROM pg_temp.asof_public)"
                f" AND NOT l.fixture_id = ANY(%(ids)s::uuid[])"
                f" UNION ALL SELECT * FROM pg_temp.asof_{table};"
                for table in SHADOWED
            ),
            {"ids": ids},
        )
        yield
        cursor.execute(
            "".join(f"DROP VIEW pg_temp.{t}; DROP TABLE pg_temp.asof_{t};" for t in SHADOWED)
            + "DROP TABLE pg_temp.asof_public;"
            + ("DROP TABLE pg_temp.asof_delivery;" if ids else "")
        )
