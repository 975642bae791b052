"""Partnerships and milestones derived from the ball order, and keeping them current.

Both are folded in SQL over the live deliveries of a set of fixtures (``records_rebuild``),
like the statistic lines, and only public fixtures get rows.

A partnership is a maximal run of consecutive deliveries (in occurrence order) with the
same two batters at the crease, in either order. A new stand starts when the pair changes,
or after a delivery on which one of the pair was dismissed or retired. Its wicket is the
dismissals before its first ball plus one: retirements are not dismissals, so the stand
after a batter retires hurt is for the same wicket as the stand before, and both are
marked unbroken (no wicket ended the first). A stand is unbroken unless its last delivery
dismissed one of the two.

A milestone row is kept for every batting innings reaching 50: the balls faced (deliveries
that were not wides) at the delivery that took the batter's runs off the bat to 50 and to
100. Cricsheet files are ball by ball throughout, so every innings in the corpus allows it.

Freshness: ``records_ensure`` is called before any records read. It finds the fixtures
whose rows were built from an older input version (``FixtureLinesState.data_version``,
bumped by every write to a fixture's deliveries), under another definition, or never, and
those whose statistic lines are not current; it makes the lines current
(``statistics_lines_ensure``) and rebuilds these rows. When nothing is stale it costs one
query.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction

from cricket.stats.engine import LINES_DEFINITION_VERSION
from cricket.stats.refresh import statistics_lines_ensure

# Bump when a rule below changes: every fixture's rows become stale and are rebuilt.
RECORDS_DEFINITION_VERSION = 1

# A rebuild of a few fixtures locks each of them; a larger one locks all records at once.
_GLOBAL_LOCK = 0x6372696372656373  # "cricrecs"
_PER_FIXTURE_LOCKS = 200

_FIXTURES = """
fx AS MATERIALIZED (
    SELECT f.id,
           COALESCE((f.scheduled_start AT TIME ZONE 'UTC')::date,
                    (f.created_at AT TIME ZONE 'UTC')::date) AS occurred_on,
           f.competition_id, f.venue_id,
           COALESCE(f.format_code, '') AS format_code,
           COALESCE(f.format->>'gender', '') AS gender,
           COALESCE(f.meta->>'season', '') AS season
      FROM sports_fixture f
      JOIN sports_sport s ON s.id = f.sport_id AND s.code = 'cricket'
      JOIN sports_submission sub ON sub.id = f.first_seen_in_id AND sub.accepted
     WHERE f.merged_into_id IS NULL AND f.id = ANY(%(ids)s::uuid[])
),
inn AS MATERIALIZED (
    SELECT i.id, i.fixture_id, i.ordinal, i.super_over, i.batting_team_id,
           (SELECT c.participant_id FROM sports_fixturecompetitor c
             WHERE c.fixture_id = i.fixture_id AND c.parent_id IS NULL
               AND c.participant_id IS DISTINCT FROM i.batting_team_id
             ORDER BY c.ordinal NULLS LAST, c.id LIMIT 1) AS opposition_id
      FROM cricket_innings i JOIN fx ON fx.id = i.fixture_id
),
d AS MATERIALIZED (
    SELECT d.id, d.innings_id, d.sequence, d.batter_id, d.non_striker_id, d.runs_batter,
           d.runs_total, COALESCE(d.extra_wides, 0) > 0 AS wide,
           LEAST(d.batter_id, d.non_striker_id) AS lo,
           GREATEST(d.batter_id, d.non_striker_id) AS hi
      FROM cricket_delivery d JOIN inn ON inn.id = d.innings_id
     WHERE d.is_current
),
w AS MATERIALIZED (
    SELECT d.id AS delivery_id, d.innings_id, w.player_out_id, k.is_dismissal,
           w.player_out_id IN (d.batter_id, d.non_striker_id) AS of_pair
      FROM cricket_deliverywicket w
      JOIN d ON d.id = w.delivery_id
      JOIN cricket_dismissalkind k ON k.id = w.kind_id
)
"""

_SCOPE_COLUMNS = (
    "fixture_id, innings_id, innings_ordinal, occurred_on, competition_id, format_code, "
    "gender, season, super_over, venue_id, team_id, opposition_id"
)
_SCOPE_VALUES = (
    "fx.id, inn.id, inn.ordinal, fx.occurred_on, fx.competition_id, fx.format_code, "
    "fx.gender, fx.season, inn.super_over, fx.venue_id, inn.batting_team_id, inn.opposition_id"
)

_PARTNERSHIPS = f"""
WITH {_FIXTURES},
per_ball AS MATERIALIZED (
    SELECT delivery_id,
           COUNT(*) FILTER (WHERE is_dismissal) AS dismissals,
           bool_or(of_pair AND is_dismissal) AS pair_out,
           bool_or(of_pair AND NOT is_dismissal) AS pair_retired
      FROM w GROUP BY delivery_id
),
marked AS MATERIALIZED (
    SELECT d.*, COALESCE(b.dismissals, 0) AS dismissals,
           COALESCE(b.pair_out, false) AS pair_out,
           COALESCE(b.pair_retired, false) AS pair_retired,
           CASE WHEN LAG(d.lo) OVER o IS NOT DISTINCT FROM d.lo
                 AND LAG(d.hi) OVER o IS NOT DISTINCT FROM d.hi
                 AND NOT COALESCE(LAG(COALESCE(b.pair_out, false)
                                      OR COALESCE(b.pair_retired, false)) OVER o, true)
                THEN 0 ELSE 1 END AS starts,
           COALESCE(SUM(COALESCE(b.dismissals, 0)) OVER
                      (o ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS fallen
      FROM d LEFT JOIN per_ball b ON b.delivery_id = d.id
    WINDOW o AS (PARTITION BY d.innings_id ORDER BY d.sequence)
),
grouped AS MATERIALIZED (
    SELECT *, SUM(starts) OVER (PARTITION BY innings_id ORDER BY sequence) AS stand
      FROM marked
),
stands AS MATERIALIZED (
    SELECT innings_id, stand, MIN(lo::text)::uuid AS lo, MIN(hi::text)::uuid AS hi,
           MIN(fallen) + 1 AS wicket, SUM(runs_total) AS runs,
           COUNT(*) FILTER (WHERE NOT wide) AS balls,
           COALESCE(SUM(runs_batter) FILTER (WHERE batter_id = lo), 0) AS lo_runs,
           COUNT(*) FILTER (WHERE batter_id = lo AND NOT wide) AS lo_balls,
           COALESCE(SUM(runs_batter) FILTER (WHERE batter_id = hi), 0) AS hi_runs,
           COUNT(*) FILTER (WHERE batter_id = hi AND NOT wide) AS hi_balls,
           MIN(sequence) AS first_sequence, MAX(sequence) AS last_sequence,
           (array_agg(pair_out ORDER BY sequence DESC))[1] AS last_out,
           (array_agg(pair_retired ORDER BY sequence DESC))[1] AS last_retired,
           stand = MAX(MAX(stand)) OVER (PARTITION BY innings_id) AS last_stand
      FROM grouped GROUP BY innings_id, stand
),
came_in AS MATERIALIZED (
    SELECT innings_id, pid, MIN(sequence) AS first_seen FROM (
        SELECT innings_id, batter_id AS pid, sequence FROM d
        UNION ALL SELECT innings_id, non_striker_id, sequence FROM d
    ) seen GROUP BY innings_id, pid
)
INSERT INTO cricket_cricketpartnership
    ({_SCOPE_COLUMNS}, ordinal, wicket, batter_one_id, batter_two_id, runs, balls,
     batter_one_runs, batter_one_balls, batter_two_runs, batter_two_balls, unbroken, ended_by,
     first_sequence, last_sequence)
SELECT {_SCOPE_VALUES}, s.stand, s.wicket,
       CASE WHEN lo_in.first_seen <= hi_in.first_seen THEN s.lo ELSE s.hi END,
       CASE WHEN lo_in.first_seen <= hi_in.first_seen THEN s.hi ELSE s.lo END,
       s.runs, s.balls,
       CASE WHEN lo_in.first_seen <= hi_in.first_seen THEN s.lo_runs ELSE s.hi_runs END,
       CASE WHEN lo_in.first_seen <= hi_in.first_seen THEN s.lo_balls ELSE s.hi_balls END,
       CASE WHEN lo_in.first_seen <= hi_in.first_seen THEN s.hi_runs ELSE s.lo_runs END,
       CASE WHEN lo_in.first_seen <= hi_in.first_seen THEN s.hi_balls ELSE s.lo_balls END,
       NOT s.last_out,
       CASE WHEN s.last_out THEN 'wicket' WHEN s.last_retired THEN 'retired'
            WHEN s.last_stand THEN 'innings_end' ELSE 'pair_changed' END,
       s.first_sequence, s.last_sequence
  FROM stands s
  JOIN inn ON inn.id = s.innings_id
  JOIN fx ON fx.id = inn.fixture_id
  JOIN came_in lo_in ON lo_in.innings_id = s.innings_id AND lo_in.pid = s.lo
  JOIN came_in hi_in ON hi_in.innings_id = s.innings_id AND hi_in.pid = s.hi
 WHERE s.lo <> s.hi
"""

# Running runs and balls faced per batter in occurrence order; the first delivery at which
# the runs reach 50 (100) gives the balls taken.
_MILESTONES = f"""
WITH {_FIXTURES},
running AS MATERIALIZED (
    SELECT innings_id, batter_id AS pid,
           SUM(runs_batter) OVER o AS runs,
           COUNT(*) FILTER (WHERE NOT wide) OVER o AS balls
      FROM d
    WINDOW o AS (PARTITION BY innings_id, batter_id ORDER BY sequence)
),
reached AS MATERIALIZED (
    SELECT innings_id, pid, MAX(runs) AS runs, MAX(balls) AS balls,
           MIN(balls) FILTER (WHERE runs >= 50) AS to_fifty,
           MIN(balls) FILTER (WHERE runs >= 100) AS to_hundred
      FROM running GROUP BY innings_id, pid HAVING MAX(runs) >= 50
)
INSERT INTO cricket_cricketbattingmilestone
    ({_SCOPE_COLUMNS}, participant_id, runs, balls, not_out, balls_to_fifty, balls_to_hundred)
SELECT {_SCOPE_VALUES}, r.pid, r.runs, r.balls,
       NOT EXISTS (SELECT 1 FROM w WHERE w.innings_id = r.innings_id
                                     AND w.player_out_id = r.pid AND w.is_dismissal),
       r.to_fifty, r.to_hundred
  FROM reached r
  JOIN inn ON inn.id = r.innings_id
  JOIN fx ON fx.id = inn.fixture_id
"""

_TABLES = ("cricket_cricketpartnership", "cricket_cricketbattingmilestone")
# The tables and their derivation, for a reader deriving rows elsewhere (``as_of``).
TABLES = _TABLES
STATEMENTS = (_PARTNERSHIPS, _MILESTONES)

# Fixtures whose records rows, or whose statistic lines, are not current. Every cricket
# fixture is checked, public or not: one that stopped being public still has rows to drop.
_STALE = """
SELECT f.id::text
  FROM sports_fixture f
  JOIN sports_sport s ON s.id = f.sport_id AND s.code = 'cricket'
  LEFT JOIN cricket_fixturelinesstate ls ON ls.fixture_id = f.id
  LEFT JOIN cricket_cricketrecordsstate rs ON rs.fixture_id = f.id
 WHERE rs.fixture_id IS NULL
    OR rs.data_version <> COALESCE(ls.data_version, 1)
    OR rs.definition_version <> %(definition)s
    OR ls.fixture_id IS NULL
    OR ls.lines_version IS DISTINCT FROM ls.data_version
    OR ls.definition_version IS DISTINCT FROM %(lines_definition)s
 ORDER BY 1
"""

_VERSIONS = """
SELECT f.id::text, COALESCE(ls.data_version, 1)
  FROM unnest(%(ids)s::uuid[]) AS f(id)
  LEFT JOIN cricket_fixturelinesstate ls ON ls.fixture_id = f.id
"""

_STATE_BUILT = """
INSERT INTO cricket_cricketrecordsstate (fixture_id, data_version, definition_version, built_at)
SELECT v.fixture_id, v.version, %(definition)s, now()
  FROM unnest(%(ids)s::uuid[], %(versions)s::bigint[]) AS v(fixture_id, version)
  JOIN sports_fixture f ON f.id = v.fixture_id
    ON CONFLICT (fixture_id) DO UPDATE
   SET data_version = EXCLUDED.data_version,
       definition_version = EXCLUDED.definition_version, built_at = EXCLUDED.built_at
"""


def records_stale() -> list[str]:
    """Cricket fixtures whose records rows or statistic lines are not current (one query)."""
    with connection.cursor() as cursor:
        cursor.execute(
            _STALE,
            {
                "definition": RECORDS_DEFINITION_VERSION,
                "lines_definition": LINES_DEFINITION_VERSION,
            },
        )
        return [row[0] for row in cursor.fetchall()]


def records_rebuild(*, fixture_ids: Iterable[Any]) -> int:
    """Rebuild the partnership and milestone rows of these fixtures from their live
    deliveries, in one transaction, and record the input version they were built from.
    Returns the rows written. Holds each fixture's records lock (advisory, in id order, so
    two overlapping rebuilds never deadlock); the input versions are read before any
    delivery, so a write committing meanwhile leaves the fixture stale, never marked
    current without its change. A set of more than a few hundred fixtures takes the records
    lock of every fixture at once (one exclusive lock) rather than one lock each."""
    ids = sorted({str(pk) for pk in fixture_ids})
    if not ids:
        return 0
    written = 0
    with transaction.atomic(), connection.cursor() as cursor:
        if len(ids) > _PER_FIXTURE_LOCKS:
            # One lock per fixture would overflow the server's lock table on a corpus-wide
            # rebuild: a large set holds the records lock exclusively instead.
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_GLOBAL_LOCK])
        else:
            cursor.execute("SELECT pg_advisory_xact_lock_shared(%s)", [_GLOBAL_LOCK])
            for pk in ids:
                cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 3))", [pk])
        cursor.execute(_VERSIONS, {"ids": ids})
        versions = dict(cursor.fetchall())
        for table in _TABLES:
            cursor.execute(f"DELETE FROM {table} WHERE fixture_id = ANY(%s::uuid[])", [ids])
        for statement in (_PARTNERSHIPS, _MILESTONES):
            cursor.execute(statement, {"ids": ids})
            written += cursor.rowcount
        cursor.execute(
            _STATE_BUILT,
            {
                "ids": ids,
                "versions": [versions[pk] for pk in ids],
                "definition": RECORDS_DEFINITION_VERSION,
            },
        )
    return written


def records_ensure() -> list[str]:
    """Make every cricket fixture's statistic lines and records rows current before a
    records read; returns the fixtures rebuilt (none, at one query, when all are current).

    Not audited and without an actor: like the scorecard's ``statistics_lines_ensure`` it
    decides nothing, it carries out a rebuild the recorded refresh already asked for."""
    stale = records_stale()
    # The line rebuild locks each fixture it rebuilds: in slices, so a long list of stale
    # fixtures never holds more locks than the server's lock table has room for.
    for start in range(0, len(stale), _PER_FIXTURE_LOCKS):
        statistics_lines_ensure(fixture_ids=stale[start : start + _PER_FIXTURE_LOCKS])
    if stale:
        records_rebuild(fixture_ids=stale)
    return stale


def records_rebuild_all() -> int:
    """Rebuild the records rows of every cricket fixture (after a bulk load); returns the
    rows written. Safe to repeat."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT f.id::text FROM sports_fixture f JOIN sports_sport s ON s.id = f.sport_id"
            " AND s.code = 'cricket' ORDER BY 1"
        )
        ids = [row[0] for row in cursor.fetchall()]
    return records_rebuild(fixture_ids=ids)
