"""The derivation engine: per-fixture statistic lines rebuilt from the live deliveries.

Every line is folded in SQL (``INSERT ... SELECT ... GROUP BY``) from the current revision
of each delivery, ``cricket_delivery WHERE is_current`` (what ``Delivery.objects.current()``
selects: the seed's ``delivery_current``), never from a Python loop per ball. A rebuild of
a set of fixtures deletes their lines and inserts them again in one transaction, so it is
idempotent: rebuilding twice gives the same rows (only the surrogate ids differ).

Only public fixtures (canonical, first submission accepted) get lines: a fixture that is
merged away or not yet accepted is absent from every statistic.

The rules (seed 001 §5, issue 6):

- a delivery is a wide only when ``extra_wides > 0`` and a no-ball only when
  ``extra_noballs > 0`` (an explicit 0 is absent, #590); legal = neither;
- balls faced: every delivery that is not a wide (a no-ball is faced);
- runs conceded: off the bat + wides + no-balls, plus byes and leg-byes run off a wide
  (wide runs, Law 22.6, ADR-014); never other byes, leg-byes or penalty runs;
- fours and sixes: 4 or 6 off the bat not flagged ``non_boundary``;
- team total: delivery totals + the innings' penalty runs (O7); wickets count dismissals
  only (not retired hurt / retired not out; absent hurt is not a wicket at all);
- legal balls are counted, never assumed (O6);
- a wicket is the bowler's only for kinds flagged ``credits_bowler``;
- a maiden: an over bowled entirely by one bowler, conceding 0 by the rule above, with at
  least the over's expected legal balls (the miscounted-over count where given, else the
  fixture's balls per over);
- catches: ``caught`` credits each named fielder, ``caught and bowled`` the bowler;
  stumpings and run-out involvement credit each named fielder; a fielder flagged as a
  substitute is counted in the ``substitute_*`` columns instead; an unnamed substitute
  (O4) belongs to no one;
- batting innings: the innings where a player is batter, non-striker or the player out;
- appearances (matches): listed in a team's players, or named in any delivery or wicket.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction

LINE_TABLES = (
    "cricket_cricketbattingline",
    "cricket_cricketbowlingline",
    "cricket_cricketfieldingline",
    "cricket_cricketteaminningsline",
    "cricket_cricketappearance",
)

# One advisory lock key for all line rebuilds: a full rebuild holds it exclusively, a
# fixture rebuild shares it and takes its fixtures' own keys exclusively.
_GLOBAL_LOCK = 0x6372696373746174  # "cricstat"

# The fixtures being rebuilt, with the scope each line copies. {where} selects them.
_FIXTURES = """
fx AS (
    SELECT f.id,
           COALESCE((f.scheduled_start AT TIME ZONE 'UTC')::date,
                    (f.created_at AT TIME ZONE 'UTC')::date) AS occurred_on,
           f.competition_id,
           COALESCE(f.format_code, '') AS format_code,
           COALESCE(f.format->>'gender', '') AS gender,
           COALESCE(f.meta->>'season', '') AS season,
           COALESCE(NULLIF(f.format->>'balls_per_over', '')::int, 6) AS balls_per_over
      FROM sports_fixture f
      JOIN sports_sport s ON s.id = f.sport_id AND s.code = 'cricket'
      JOIN sports_submission sub ON sub.id = f.first_seen_in_id AND sub.accepted
     WHERE f.merged_into_id IS NULL AND {where}
),
inn AS (
    SELECT i.id, i.fixture_id, i.ordinal, i.super_over, i.batting_team_id,
           COALESCE(i.penalty_runs_pre, 0) + COALESCE(i.penalty_runs_post, 0) AS penalty_runs
      FROM cricket_innings i JOIN fx ON fx.id = i.fixture_id
     WHERE {deliveries_innings}
),
d AS (
    SELECT d.id, d.innings_id, d.over_number, d.batter_id, d.bowler_id, d.non_striker_id,
           d.runs_batter, d.runs_extras, d.runs_total, d.non_boundary,
           COALESCE(d.extra_wides, 0) > 0 AS wide,
           COALESCE(d.extra_noballs, 0) > 0 AS noball,
           COALESCE(d.extra_wides, 0) AS wides,
           COALESCE(d.extra_noballs, 0) AS noballs,
           d.runs_batter + COALESCE(d.extra_wides, 0) + COALESCE(d.extra_noballs, 0)
             + CASE WHEN COALESCE(d.extra_wides, 0) > 0
                    THEN COALESCE(d.extra_byes, 0) + COALESCE(d.extra_legbyes, 0)
                    ELSE 0 END AS conceded
      FROM cricket_delivery d JOIN inn ON inn.id = d.innings_id
     WHERE d.is_current AND {deliveries}
),
w AS (
    SELECT w.id, d.innings_id, d.bowler_id, w.player_out_id, k.code AS kind,
           k.is_dismissal, k.credits_bowler
      FROM cricket_deliverywicket w
      JOIN d ON d.id = w.delivery_id
      JOIN cricket_dismissalkind k ON k.id = w.kind_id
)
"""

_SCOPE_COLUMNS = "fixture_id, occurred_on, competition_id, format_code, gender, season, super_over"
_SCOPE_VALUES = (
    "fx.id, fx.occurred_on, fx.competition_id, fx.format_code, fx.gender, fx.season, inn.super_over"
)

_BATTING = f"""
WITH {_FIXTURES},
people AS MATERIALIZED (
    SELECT innings_id, batter_id AS pid FROM d
    UNION SELECT innings_id, non_striker_id FROM d
    UNION SELECT innings_id, player_out_id FROM w
),
bat AS MATERIALIZED (
    SELECT innings_id, batter_id AS pid,
           SUM(runs_batter) AS runs,
           COUNT(*) FILTER (WHERE NOT wide) AS balls,
           COUNT(*) FILTER (WHERE runs_batter = 4 AND NOT non_boundary) AS fours,
           COUNT(*) FILTER (WHERE runs_batter = 6 AND NOT non_boundary) AS sixes
      FROM d GROUP BY innings_id, batter_id
),
outs AS MATERIALIZED (
    SELECT innings_id, player_out_id AS pid, COUNT(*) FILTER (WHERE is_dismissal) AS outs
      FROM w GROUP BY innings_id, player_out_id
)
INSERT INTO cricket_cricketbattingline
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, participant_id, team_id,
     runs, balls_faced, fours, sixes, outs)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, p.pid, inn.batting_team_id,
       COALESCE(bat.runs, 0), COALESCE(bat.balls, 0), COALESCE(bat.fours, 0),
       COALESCE(bat.sixes, 0), COALESCE(outs.outs, 0)
  FROM people p
  JOIN inn ON inn.id = p.innings_id
  JOIN fx ON fx.id = inn.fixture_id
  LEFT JOIN bat ON bat.innings_id = p.innings_id AND bat.pid = p.pid
  LEFT JOIN outs ON outs.innings_id = p.innings_id AND outs.pid = p.pid
"""

_BOWLING = f"""
WITH {_FIXTURES},
overs AS MATERIALIZED (
    SELECT innings_id, over_number, (array_agg(bowler_id))[1] AS bowler_id,
           COUNT(DISTINCT bowler_id) AS bowlers, SUM(conceded) AS conceded,
           COUNT(*) FILTER (WHERE NOT (wide OR noball)) AS legal
      FROM d GROUP BY innings_id, over_number
),
maidens AS MATERIALIZED (
    SELECT o.innings_id, o.bowler_id, COUNT(*) AS maidens
      FROM overs o
      JOIN inn ON inn.id = o.innings_id
      JOIN fx ON fx.id = inn.fixture_id
      LEFT JOIN cricket_inningsmiscountedover m
        ON m.innings_id = o.innings_id AND m.over_number = o.over_number
     WHERE o.bowlers = 1 AND o.conceded = 0 AND o.legal >= COALESCE(m.balls, fx.balls_per_over)
     GROUP BY o.innings_id, o.bowler_id
),
bowl AS MATERIALIZED (
    SELECT innings_id, bowler_id AS pid,
           COUNT(*) FILTER (WHERE NOT (wide OR noball)) AS legal_balls,
           SUM(conceded) AS conceded, SUM(wides) AS wides, SUM(noballs) AS noballs
      FROM d GROUP BY innings_id, bowler_id
),
wk AS MATERIALIZED (
    SELECT innings_id, bowler_id AS pid, COUNT(*) AS wickets
      FROM w WHERE credits_bowler GROUP BY innings_id, bowler_id
)
INSERT INTO cricket_cricketbowlingline
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, participant_id,
     legal_balls, runs_conceded, wickets, maidens, wides, noballs)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, b.pid,
       b.legal_balls, b.conceded, COALESCE(wk.wickets, 0), COALESCE(m.maidens, 0),
       b.wides, b.noballs
  FROM bowl b
  JOIN inn ON inn.id = b.innings_id
  JOIN fx ON fx.id = inn.fixture_id
  LEFT JOIN wk ON wk.innings_id = b.innings_id AND wk.pid = b.pid
  LEFT JOIN maidens m ON m.innings_id = b.innings_id AND m.bowler_id = b.pid
"""

_FIELDING = f"""
WITH {_FIXTURES},
credits AS MATERIALIZED (
    SELECT w.innings_id, f.participant_id AS pid, w.kind, f.substitute
      FROM w JOIN cricket_deliverywicketfielder f ON f.wicket_id = w.id
     WHERE f.participant_id IS NOT NULL AND w.kind IN ('caught', 'stumped', 'run-out')
    UNION ALL
    SELECT w.innings_id, w.bowler_id, 'caught', false
      FROM w WHERE w.kind = 'caught-and-bowled'
)
INSERT INTO cricket_cricketfieldingline
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, participant_id,
     catches, stumpings, run_outs, substitute_catches, substitute_stumpings,
     substitute_run_outs)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, c.pid,
       COUNT(*) FILTER (WHERE c.kind = 'caught' AND NOT c.substitute),
       COUNT(*) FILTER (WHERE c.kind = 'stumped' AND NOT c.substitute),
       COUNT(*) FILTER (WHERE c.kind = 'run-out' AND NOT c.substitute),
       COUNT(*) FILTER (WHERE c.kind = 'caught' AND c.substitute),
       COUNT(*) FILTER (WHERE c.kind = 'stumped' AND c.substitute),
       COUNT(*) FILTER (WHERE c.kind = 'run-out' AND c.substitute)
  FROM credits c
  JOIN inn ON inn.id = c.innings_id
  JOIN fx ON fx.id = inn.fixture_id
 GROUP BY fx.id, fx.occurred_on, fx.competition_id, fx.format_code, fx.gender, fx.season,
          inn.super_over, inn.id, inn.ordinal, c.pid
"""

_TEAM = f"""
WITH {_FIXTURES},
tot AS MATERIALIZED (
    SELECT innings_id, SUM(runs_total) AS runs, SUM(runs_extras) AS extras,
           COUNT(*) FILTER (WHERE NOT (wide OR noball)) AS legal_balls
      FROM d GROUP BY innings_id
),
wk AS MATERIALIZED (
    SELECT innings_id, COUNT(*) AS wickets FROM w WHERE is_dismissal GROUP BY innings_id
)
INSERT INTO cricket_cricketteaminningsline
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, team_id, total, wickets, legal_balls,
     extras, penalty_runs)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, inn.batting_team_id,
       COALESCE(tot.runs, 0) + inn.penalty_runs, COALESCE(wk.wickets, 0),
       COALESCE(tot.legal_balls, 0), COALESCE(tot.extras, 0), inn.penalty_runs
  FROM inn
  JOIN fx ON fx.id = inn.fixture_id
  LEFT JOIN tot ON tot.innings_id = inn.id
  LEFT JOIN wk ON wk.innings_id = inn.id
"""

_APPEARANCES = f"""
WITH {_FIXTURES},
named AS MATERIALIZED (
    SELECT innings_id, batter_id AS pid FROM d
    UNION SELECT innings_id, bowler_id FROM d
    UNION SELECT innings_id, non_striker_id FROM d
    UNION SELECT innings_id, player_out_id FROM w
    UNION SELECT w.innings_id, f.participant_id
      FROM w JOIN cricket_deliverywicketfielder f ON f.wicket_id = w.id
     WHERE f.participant_id IS NOT NULL
),
rows AS MATERIALIZED (
    SELECT inn.fixture_id, n.pid, inn.super_over
      FROM named n JOIN inn ON inn.id = n.innings_id
    UNION
    SELECT c.fixture_id, c.participant_id, false
      FROM sports_fixturecompetitor c JOIN fx ON fx.id = c.fixture_id
     WHERE c.parent_id IS NOT NULL AND c.participant_id IS NOT NULL
)
INSERT INTO cricket_cricketappearance ({_SCOPE_COLUMNS}, participant_id)
SELECT fx.id, fx.occurred_on, fx.competition_id, fx.format_code, fx.gender, fx.season,
       r.super_over, r.pid
  FROM rows r JOIN fx ON fx.id = r.fixture_id
"""

_STATEMENTS = (_BATTING, _BOWLING, _FIELDING, _TEAM, _APPEARANCES)


def _ids(fixture_ids: Iterable[Any]) -> list[str]:
    return sorted({str(pk) for pk in fixture_ids})


def lines_rebuild(*, fixture_ids: Iterable[Any]) -> int:
    """Rebuild every line of these fixtures from their live deliveries, in one transaction:
    their old lines go, the new ones are inserted set-based. Returns the number of line
    rows written. A fixture that is not public ends with no lines.

    Writers do not call this directly: they call ``refresh.statistics_refresh``, which also
    moves the participants' data versions so no stale snapshot is read."""
    ids = _ids(fixture_ids)
    if not ids:
        return 0
    written = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock_shared(%s)", [_GLOBAL_LOCK])
        for pk in ids:  # sorted: two rebuilds of overlapping sets never deadlock
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 1))", [pk])
        for table in LINE_TABLES:
            cursor.execute(f"DELETE FROM {table} WHERE fixture_id = ANY(%s::uuid[])", [ids])
        # The innings as a constant list: the deliveries are then read through the live
        # (innings, ...) index whatever the planner's statistics say.
        cursor.execute(
            "SELECT id::text FROM cricket_innings WHERE fixture_id = ANY(%s::uuid[])", [ids]
        )
        innings = [row[0] for row in cursor.fetchall()]
        params = {"ids": ids, "innings": innings}
        for statement in _STATEMENTS:
            cursor.execute(
                statement.format(
                    where="f.id = ANY(%(ids)s::uuid[])",
                    deliveries_innings="i.id = ANY(%(innings)s::uuid[])",
                    deliveries="d.innings_id = ANY(%(innings)s::uuid[])",
                ),
                params,
            )
            written += cursor.rowcount
    return written


def lines_rebuild_all() -> int:
    """Rebuild the lines of every public cricket fixture: the tables are emptied and filled
    by one statement each. Holds the rebuild lock exclusively, so no fixture rebuild
    interleaves. Returns the number of line rows written."""
    written = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_GLOBAL_LOCK])
        cursor.execute(f"TRUNCATE {', '.join(LINE_TABLES)}")
        for statement in _STATEMENTS:
            cursor.execute(
                statement.format(where="true", deliveries_innings="true", deliveries="true")
            )
            written += cursor.rowcount
        for table in LINE_TABLES:
            cursor.execute(f"ANALYZE {table}")
    return written
