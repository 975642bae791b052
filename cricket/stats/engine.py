"""The derivation engine: per-fixture statistic lines rebuilt from the live deliveries.

Every line is folded in SQL (``INSERT ... SELECT ... GROUP BY``) from the current revision
of each delivery, ``cricket_delivery WHERE is_current`` (what ``Delivery.objects.current()``
selects: only the live revision of each ball), never from a Python loop per ball. A rebuild of
a set of fixtures deletes their lines and inserts them again in one transaction, so it is
idempotent: rebuilding twice gives the same rows (only the surrogate ids differ).

Only public fixtures (canonical, first submission accepted) get lines: a fixture that is
merged away or not yet accepted is absent from every statistic.

The rules:

- a delivery is a wide only when ``extra_wides > 0`` and a no-ball only when
  ``extra_noballs > 0`` (an explicit 0 is the same as absent, never test IS NULL); legal = neither;
- balls faced: every delivery that is not a wide (a no-ball is faced);
- runs conceded: off the bat + wides + no-balls, plus byes and leg-byes run off a wide
  (byes and leg-byes off a wide are wide runs, Law 22.6); never other byes, leg-byes or penalties;
- fours and sixes: 4 or 6 off the bat not flagged ``non_boundary``;
- team total: delivery totals + the innings' penalty runs (on no ball); wickets count dismissals
  only (not retired hurt / retired not out; absent hurt is not a wicket at all);
- legal balls are counted, never assumed to be six an over (umpires miscount);
- a wicket is the bowler's only for kinds flagged ``credits_bowler``;
- a maiden: an over bowled entirely by one bowler, conceding 0 by the rule above, with at
  least the over's expected legal balls (the miscounted-over count where given, else the
  fixture's balls per over);
- catches: ``caught`` credits each named fielder, ``caught and bowled`` the bowler;
  stumpings and run-out involvement credit each named fielder; a fielder flagged as a
  substitute is counted in the ``substitute_*`` columns instead; an unnamed substitute
  (the source may record one with no name) belongs to no one;
- batting innings: the innings where a player is batter, non-striker or the player out;
- appearances (matches): listed in a team's players, entering through ``replacements.match``
  (a concussion, covid or impact-player replacement), or named in any delivery or wicket as
  batter, non-striker, bowler, player out or a fielder who is not a substitute: a substitute
  fielder does not play the match;
- match sides: per team of a fixture, its opposition, venue, host country, home/away/neutral
  (the venue's country against each team's, where both are known), result and toss from that
  team's side, the keys the query vocabulary filters lines on (``cricket.stats.query``).

Lines also carry what a scorecard prints, so the scorecard reads them and derives nothing
itself: batting and bowling order (first appearance), how each batting innings ended (the
last wicket naming the batter: kind, bowler of that ball, fielders), the fall of each
wicket (its number, the score with pre-innings penalty runs and the legal balls at that
ball) and the extras by type.

Freshness: ``FixtureLinesState`` holds each fixture's input version (bumped by
``refresh.statistics_refresh`` inside every write to the fixture's inputs) and the version
and ``LINES_DEFINITION_VERSION`` its lines were built from. A rebuild records the version
it read *before* reading any delivery, so a write committing during the rebuild leaves the
fixture stale rather than marked current without its change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction

from omnium.db import analyze

LINE_TABLES = (
    "cricket_cricketbattingline",
    "cricket_cricketbowlingline",
    "cricket_cricketfieldingline",
    "cricket_cricketteaminningsline",
    "cricket_cricketappearance",
    "cricket_cricketmatchside",
)

# One advisory lock key for all line rebuilds: a full rebuild holds it exclusively, a
# fixture rebuild shares it and takes its fixtures' own keys exclusively.
_GLOBAL_LOCK = 0x6372696373746174  # "cricstat"

# What the lines hold and how they are derived; lines built under another value are stale
# (2: batting and bowling order, dismissals, falls of wicket, extras by type; 3: substitute
# fielders do not play, match replacements do, the fielding side on bowling and fielding
# lines, match sides).
LINES_DEFINITION_VERSION = 3

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
           COALESCE(i.penalty_runs_pre, 0) AS penalty_pre,
           COALESCE(i.penalty_runs_pre, 0) + COALESCE(i.penalty_runs_post, 0) AS penalty_runs,
           (SELECT c.participant_id FROM sports_fixturecompetitor c
             WHERE c.fixture_id = i.fixture_id AND c.parent_id IS NULL
               AND c.participant_id IS DISTINCT FROM i.batting_team_id
             ORDER BY c.ordinal NULLS LAST, c.id LIMIT 1) AS fielding_team_id
      FROM cricket_innings i JOIN fx ON fx.id = i.fixture_id
     WHERE {deliveries_innings}
),
d AS (
    SELECT d.id, d.innings_id, d.sequence, d.over_number, d.batter_id, d.bowler_id,
           d.non_striker_id, d.runs_batter, d.runs_extras, d.runs_total, d.non_boundary,
           COALESCE(d.extra_wides, 0) > 0 AS wide,
           COALESCE(d.extra_noballs, 0) > 0 AS noball,
           COALESCE(d.extra_wides, 0) AS wides,
           COALESCE(d.extra_noballs, 0) AS noballs,
           COALESCE(d.extra_byes, 0) AS byes,
           COALESCE(d.extra_legbyes, 0) AS legbyes,
           COALESCE(d.extra_penalty, 0) AS penalty_extras,
           d.runs_batter + COALESCE(d.extra_wides, 0) + COALESCE(d.extra_noballs, 0)
             + CASE WHEN COALESCE(d.extra_wides, 0) > 0
                    THEN COALESCE(d.extra_byes, 0) + COALESCE(d.extra_legbyes, 0)
                    ELSE 0 END AS conceded
      FROM cricket_delivery d JOIN inn ON inn.id = d.innings_id
     WHERE d.is_current AND {deliveries}
),
w AS (
    SELECT w.id, w.ordinal, d.innings_id, d.sequence, d.bowler_id, w.player_out_id,
           w.kind_id, k.code AS kind, k.is_dismissal, k.credits_bowler
      FROM cricket_deliverywicket w
      JOIN d ON d.id = w.delivery_id
      JOIN cricket_dismissalkind k ON k.id = w.kind_id
)
"""

_SCOPE_COLUMNS = "fixture_id, occurred_on, competition_id, format_code, gender, season, super_over"
_SCOPE_VALUES = (
    "fx.id, fx.occurred_on, fx.competition_id, fx.format_code, fx.gender, fx.season, inn.super_over"
)

# A batter's place in the order is their first appearance: at a ball, the striker before
# the non-striker before the players out (in wicket order). A timed-out batter, who faces
# no ball, comes in at their wicket.
_BATTING = f"""
WITH {_FIXTURES},
people AS MATERIALIZED (
    SELECT innings_id, pid, MIN(k) AS k FROM (
        SELECT innings_id, batter_id AS pid, sequence::bigint * 1000 AS k FROM d
        UNION ALL SELECT innings_id, non_striker_id, sequence::bigint * 1000 + 1 FROM d
        UNION ALL SELECT innings_id, player_out_id, sequence::bigint * 1000 + 2 + ordinal FROM w
    ) seen GROUP BY innings_id, pid
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
),
last_out AS MATERIALIZED (
    SELECT DISTINCT ON (innings_id, player_out_id)
           innings_id, player_out_id AS pid, id AS wicket_id, kind_id, bowler_id
      FROM w ORDER BY innings_id, player_out_id, sequence DESC, ordinal DESC
),
fielders AS MATERIALIZED (
    SELECT f.wicket_id,
           jsonb_agg(jsonb_build_object('participant', f.participant_id,
                                        'substitute', f.substitute) ORDER BY f.ordinal) AS list
      FROM cricket_deliverywicketfielder f JOIN last_out lo ON lo.wicket_id = f.wicket_id
     GROUP BY f.wicket_id
),
-- The score and legal balls at each dismissal: running sums over the innings in occurrence
-- order, kept only at the balls where a wicket fell.
falls AS MATERIALIZED (
    SELECT DISTINCT ON (x.innings_id, x.player_out_id)
           x.innings_id, x.player_out_id AS pid, x.number, r.runs, r.legal
      FROM (SELECT innings_id, player_out_id, sequence, ordinal,
                   ROW_NUMBER() OVER (PARTITION BY innings_id ORDER BY sequence, ordinal)
                     AS number
              FROM w WHERE is_dismissal) x
      JOIN (SELECT innings_id, sequence,
                   SUM(runs_total) OVER running AS runs,
                   COUNT(*) FILTER (WHERE NOT (wide OR noball)) OVER running AS legal
              FROM d WINDOW running AS (PARTITION BY innings_id ORDER BY sequence)) r
        ON r.innings_id = x.innings_id AND r.sequence = x.sequence
     ORDER BY x.innings_id, x.player_out_id, x.sequence DESC, x.ordinal DESC
)
INSERT INTO cricket_cricketbattingline
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, participant_id, team_id, position,
     runs, balls_faced, fours, sixes, outs, dismissal_kind_id, dismissal_bowler_id,
     dismissal_fielders, fall_number, fall_runs, fall_legal_balls)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, p.pid, inn.batting_team_id,
       ROW_NUMBER() OVER (PARTITION BY p.innings_id ORDER BY p.k),
       COALESCE(bat.runs, 0), COALESCE(bat.balls, 0), COALESCE(bat.fours, 0),
       COALESCE(bat.sixes, 0), COALESCE(outs.outs, 0),
       lo.kind_id, lo.bowler_id, COALESCE(fl.list, '[]'::jsonb),
       falls.number, inn.penalty_pre + falls.runs, falls.legal
  FROM people p
  JOIN inn ON inn.id = p.innings_id
  JOIN fx ON fx.id = inn.fixture_id
  LEFT JOIN bat ON bat.innings_id = p.innings_id AND bat.pid = p.pid
  LEFT JOIN outs ON outs.innings_id = p.innings_id AND outs.pid = p.pid
  LEFT JOIN last_out lo ON lo.innings_id = p.innings_id AND lo.pid = p.pid
  LEFT JOIN fielders fl ON fl.wicket_id = lo.wicket_id
  LEFT JOIN falls ON falls.innings_id = p.innings_id AND falls.pid = p.pid
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
    SELECT innings_id, bowler_id AS pid, MIN(sequence) AS first_ball,
           COUNT(*) FILTER (WHERE NOT (wide OR noball)) AS legal_balls,
           SUM(conceded) AS conceded, SUM(wides) AS wides, SUM(noballs) AS noballs
      FROM d GROUP BY innings_id, bowler_id
),
wk AS MATERIALIZED (
    SELECT innings_id, bowler_id AS pid, COUNT(*) AS wickets
      FROM w WHERE credits_bowler GROUP BY innings_id, bowler_id
)
INSERT INTO cricket_cricketbowlingline
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, participant_id, team_id, balls_per_over,
     position, legal_balls, runs_conceded, wickets, maidens, wides, noballs)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, b.pid, inn.fielding_team_id, fx.balls_per_over,
       ROW_NUMBER() OVER (PARTITION BY b.innings_id ORDER BY b.first_ball),
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
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, participant_id, team_id,
     catches, stumpings, run_outs, substitute_catches, substitute_stumpings,
     substitute_run_outs)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, c.pid, inn.fielding_team_id,
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
          inn.super_over, inn.id, inn.ordinal, c.pid, inn.fielding_team_id
"""

_TEAM = f"""
WITH {_FIXTURES},
tot AS MATERIALIZED (
    SELECT innings_id, SUM(runs_total) AS runs, SUM(runs_extras) AS extras,
           SUM(byes) AS byes, SUM(legbyes) AS legbyes, SUM(wides) AS wides,
           SUM(noballs) AS noballs, SUM(penalty_extras) AS penalty_extras,
           COUNT(*) FILTER (WHERE NOT (wide OR noball)) AS legal_balls
      FROM d GROUP BY innings_id
),
wk AS MATERIALIZED (
    SELECT innings_id, COUNT(*) AS wickets FROM w WHERE is_dismissal GROUP BY innings_id
)
INSERT INTO cricket_cricketteaminningsline
    ({_SCOPE_COLUMNS}, innings_id, innings_ordinal, team_id, total, wickets, legal_balls,
     extras, byes, legbyes, wides, noballs, penalty_extras, penalty_runs)
SELECT {_SCOPE_VALUES}, inn.id, inn.ordinal, inn.batting_team_id,
       COALESCE(tot.runs, 0) + inn.penalty_runs, COALESCE(wk.wickets, 0),
       COALESCE(tot.legal_balls, 0), COALESCE(tot.extras, 0), COALESCE(tot.byes, 0),
       COALESCE(tot.legbyes, 0), COALESCE(tot.wides, 0), COALESCE(tot.noballs, 0),
       COALESCE(tot.penalty_extras, 0), inn.penalty_runs
  FROM inn
  JOIN fx ON fx.id = inn.fixture_id
  LEFT JOIN tot ON tot.innings_id = inn.id
  LEFT JOIN wk ON wk.innings_id = inn.id
"""

# The side a player appears for: the squad's team first, else the side a ball names them
# for (batting side for batter, non-striker and player out; fielding side for bowler and
# fielder; the replacement's own team).
_APPEARANCES = f"""
WITH {_FIXTURES},
named AS MATERIALIZED (
    SELECT d.innings_id, d.batter_id AS pid, inn.batting_team_id AS team_id
      FROM d JOIN inn ON inn.id = d.innings_id
    UNION SELECT d.innings_id, d.non_striker_id, inn.batting_team_id
      FROM d JOIN inn ON inn.id = d.innings_id
    UNION SELECT w.innings_id, w.player_out_id, inn.batting_team_id
      FROM w JOIN inn ON inn.id = w.innings_id
    UNION SELECT d.innings_id, d.bowler_id, inn.fielding_team_id
      FROM d JOIN inn ON inn.id = d.innings_id
    UNION SELECT w.innings_id, f.participant_id, inn.fielding_team_id
      FROM w JOIN cricket_deliverywicketfielder f ON f.wicket_id = w.id
      JOIN inn ON inn.id = w.innings_id
     WHERE f.participant_id IS NOT NULL AND NOT f.substitute
    UNION SELECT d.innings_id, r.player_in_id, r.team_id
      FROM cricket_deliveryreplacement r JOIN d ON d.id = r.delivery_id
     WHERE r.kind = 'match'
),
rows AS MATERIALIZED (
    SELECT inn.fixture_id, n.pid, inn.super_over, n.team_id, 1 AS priority
      FROM named n JOIN inn ON inn.id = n.innings_id
    UNION ALL
    SELECT c.fixture_id, c.participant_id, false, t.participant_id, 0
      FROM sports_fixturecompetitor c JOIN fx ON fx.id = c.fixture_id
      JOIN sports_fixturecompetitor t ON t.id = c.parent_id
     WHERE c.participant_id IS NOT NULL
)
INSERT INTO cricket_cricketappearance ({_SCOPE_COLUMNS}, participant_id, team_id)
SELECT DISTINCT ON (r.fixture_id, r.pid, r.super_over)
       fx.id, fx.occurred_on, fx.competition_id, fx.format_code, fx.gender, fx.season,
       r.super_over, r.pid, r.team_id
  FROM rows r JOIN fx ON fx.id = r.fixture_id
 ORDER BY r.fixture_id, r.pid, r.super_over, r.priority, r.team_id
"""

# Each team's side of a fixture. The toss winner is named as the source names the team;
# the team's outside id is "team:<gender>:<name>" (cricket.services.cricket_team).
_SIDES = f"""
WITH {_FIXTURES},
sides AS MATERIALIZED (
    SELECT c.fixture_id, c.participant_id AS team_id, c.rank,
           (SELECT o.participant_id FROM sports_fixturecompetitor o
             WHERE o.fixture_id = c.fixture_id AND o.parent_id IS NULL
               AND o.participant_id IS DISTINCT FROM c.participant_id
             ORDER BY o.ordinal NULLS LAST, o.id LIMIT 1) AS opposition_id
      FROM sports_fixturecompetitor c JOIN fx ON fx.id = c.fixture_id
     WHERE c.parent_id IS NULL AND c.participant_id IS NOT NULL
)
INSERT INTO cricket_cricketmatchside
    ({_SCOPE_COLUMNS}, team_id, opposition_id, venue_id, host_country, team_type,
     home_away, result, toss, balls_per_over)
SELECT fx.id, fx.occurred_on, fx.competition_id, fx.format_code, fx.gender, fx.season,
       false, s.team_id, s.opposition_id, f.venue_id, COALESCE(v.country, ''),
       COALESCE(f.format->>'team_type', ''),
       CASE WHEN COALESCE(v.country, '') = '' THEN ''
            WHEN t.country = v.country THEN 'home'
            WHEN o.country = v.country THEN 'away'
            WHEN t.country IS NOT NULL AND o.country IS NOT NULL THEN 'neutral'
            ELSE '' END,
       CASE WHEN f.result->>'outcome' = 'no_result' THEN 'no_result'
            WHEN (f.result->>'tie')::boolean THEN 'tied'
            WHEN f.result->>'outcome' = 'draw' THEN 'drawn'
            WHEN f.result->>'outcome' = 'win' AND s.rank = 1 THEN 'won'
            WHEN f.result->>'outcome' = 'win' THEN 'lost'
            ELSE '' END,
       CASE WHEN COALESCE(f.meta->'toss'->>'winner', '') = '' THEN ''
            WHEN EXISTS (SELECT 1 FROM sports_externalidmap e
                          WHERE e.source_code = 'cricsheet' AND e.entity_type = 'participant'
                            AND e.internal_id = s.team_id
                            AND e.external_id = 'team:' || fx.gender || ':'
                                                || (f.meta->'toss'->>'winner'))
            THEN 'won' ELSE 'lost' END,
       fx.balls_per_over
  FROM sides s
  JOIN fx ON fx.id = s.fixture_id
  JOIN sports_fixture f ON f.id = s.fixture_id
  JOIN sports_participant t ON t.id = s.team_id
  LEFT JOIN sports_participant o ON o.id = s.opposition_id
  LEFT JOIN sports_venue v ON v.id = f.venue_id
"""

_STATEMENTS = (_BATTING, _BOWLING, _FIELDING, _TEAM, _APPEARANCES, _SIDES)
# The derivation, for a reader deriving lines elsewhere (``as_of``: as of a moment).
STATEMENTS = _STATEMENTS

# Fixtures whose lines are not current: no state row, lines built from an older input
# version or another definition, or (for a public fixture) an innings without its team
# line, which a fixture published without a refresh would show.
_STALE = """
SELECT f.id::text FROM unnest(%(ids)s::uuid[]) AS f(id)
  LEFT JOIN cricket_fixturelinesstate s ON s.fixture_id = f.id
 WHERE s.fixture_id IS NULL
    OR s.lines_version IS DISTINCT FROM s.data_version
    OR s.definition_version IS DISTINCT FROM %(definition)s
    OR EXISTS (
        SELECT 1 FROM cricket_innings i
          JOIN sports_fixture fx ON fx.id = i.fixture_id AND fx.merged_into_id IS NULL
          JOIN sports_submission sub ON sub.id = fx.first_seen_in_id AND sub.accepted
         WHERE i.fixture_id = f.id
           AND NOT EXISTS (SELECT 1 FROM cricket_cricketteaminningsline t
                            WHERE t.innings_id = i.id))
 ORDER BY 1
"""

# Before a rebuild reads any delivery: the input versions it builds from (a missing row
# starts at 1, never built).
_STATE_START = """
INSERT INTO cricket_fixturelinesstate (fixture_id, data_version)
SELECT id, 1 FROM sports_fixture WHERE id = ANY(%(ids)s::uuid[]) ORDER BY id
    ON CONFLICT (fixture_id) DO NOTHING
"""
_STATE_READ = """
SELECT fixture_id::text, data_version FROM cricket_fixturelinesstate
 WHERE fixture_id = ANY(%(ids)s::uuid[])
"""
_STATE_BUILT = """
UPDATE cricket_fixturelinesstate s
   SET lines_version = v.version, definition_version = %(definition)s, built_at = now()
  FROM unnest(%(ids)s::uuid[], %(versions)s::bigint[]) AS v(fixture_id, version)
 WHERE s.fixture_id = v.fixture_id
"""
# A full rebuild marks every cricket fixture built from its version as it starts.
_STATE_ALL = """
INSERT INTO cricket_fixturelinesstate
    (fixture_id, data_version, lines_version, definition_version, built_at)
SELECT f.id, 1, 1, %(definition)s, now()
  FROM sports_fixture f JOIN sports_sport s ON s.id = f.sport_id AND s.code = 'cricket'
 ORDER BY f.id
    ON CONFLICT (fixture_id) DO UPDATE
   SET lines_version = cricket_fixturelinesstate.data_version,
       definition_version = EXCLUDED.definition_version, built_at = EXCLUDED.built_at
"""


def _ids(fixture_ids: Iterable[Any]) -> list[str]:
    return sorted({str(pk) for pk in fixture_ids})


def lines_stale(*, fixture_ids: Iterable[Any]) -> list[str]:
    """Which of these fixtures' lines are not current (one query, sorted ids)."""
    ids = _ids(fixture_ids)
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_STALE, {"ids": ids, "definition": LINES_DEFINITION_VERSION})
        return [row[0] for row in cursor.fetchall()]


def lines_rebuild(*, fixture_ids: Iterable[Any], only_stale: bool = False) -> int:
    """Rebuild every line of these fixtures from their live deliveries, in one transaction:
    their old lines go, the new ones are inserted set-based, and each fixture's state
    records the input version and definition they were built from. Returns the number of
    line rows written. A fixture that is not public ends with no lines.

    With ``only_stale``, the fixtures are checked again once their locks are held and only
    those still stale are rebuilt: readers racing to rebuild one fixture do it once.

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
        if only_stale:
            ids = lines_stale(fixture_ids=ids)
            if not ids:
                return 0
        cursor.execute(_STATE_START, {"ids": ids})
        cursor.execute(_STATE_READ, {"ids": ids})
        versions = dict(cursor.fetchall())
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
        built = sorted(versions)
        cursor.execute(
            _STATE_BUILT,
            {
                "ids": built,
                "versions": [versions[pk] for pk in built],
                "definition": LINES_DEFINITION_VERSION,
            },
        )
    return written


def lines_rebuild_all() -> int:
    """Rebuild the lines of every public cricket fixture: the tables are emptied and filled
    by one statement each. Holds the rebuild lock exclusively, so no fixture rebuild
    interleaves. Returns the number of line rows written."""
    written = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_GLOBAL_LOCK])
        # DELETE, not TRUNCATE: the application's database role has no TRUNCATE privilege.
        for table in LINE_TABLES:
            cursor.execute(f"DELETE FROM {table}")
        cursor.execute(_STATE_ALL, {"definition": LINES_DEFINITION_VERSION})
        for statement in _STATEMENTS:
            cursor.execute(
                statement.format(where="true", deliveries_innings="true", deliveries="true")
            )
            written += cursor.rowcount
        analyze(*LINE_TABLES)
    return written
