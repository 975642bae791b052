"""bench-stats-query: twenty Statsguru-style statistics queries through the query object,
against the same questions asked as plain SQL over the live deliveries, in the same run.

On a benchmark database of its own (``--database``, default omnium_bench_stats_query):
when ``--template`` names an imported corpus database it is copied and migrated;
otherwise the first ``--limit`` matches of the dev corpus archive are imported if the
database holds fewer (the whole dev corpus is ``--limit 13000``), and every line is rebuilt.

Timed, median over ``--runs`` after warm-up, p50 and p95 across the twenty: each view's
first page of 50 (``figures.view_rows``, the API's read without HTTP); each record's first
page of 50 as the records API reads it (made current, ordered, decorated); a season's
points table (``cricket.points.points_table``). The baseline is the same question written
as one plain SQL statement over ``cricket_delivery`` (current revisions) joined to innings
and fixtures, grouped per player (or team, or innings; a stand is the deliveries after the
innings' earlier falls): what a reader without derived lines pays. ``ratio`` is the p50 of
the queries over the p50 of the baselines (lower is better; below 1 the lines pay off).
Target: p95 <= 300 ms.

The baselines express only the filters a delivery's fixture and innings carry (format,
gender, season, dates, venue, team, opposition, innings number), so the twenty queries use
those; toss, result, home/away and batting position are proven by the query test matrix.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.stats
from bench.common import REPO, analyze, closing_line, median_ms, percentile, setup_django
from bench.stats import copy_template, load

# The shared data folder sits next to the checkout (or next to the worktrees' folder).
ARCHIVES = [
    base / "shared" / "data" / "cricsheet" / "dev_matches.tar.gz"
    for base in (REPO.parent, REPO.parent.parent)
]

# A delivery row with the scope a baseline filters on.
_D = """
FROM cricket_delivery d
JOIN cricket_innings i ON i.id = d.innings_id AND NOT i.super_over
JOIN sports_fixture f ON f.id = i.fixture_id AND f.merged_into_id IS NULL
WHERE d.is_current {where}
"""


def _baseline(kind: str, filters: dict, *, group: str = "") -> tuple[str, list]:
    clauses, params = [], []
    team_column = "i.batting_team_id" if kind in ("batting", "team", "innings") else None
    for name, value in filters.items():
        if name == "format":
            clauses.append("f.format_code = %s")
        elif name == "gender":
            clauses.append("f.format->>'gender' = %s")
        elif name == "season":
            clauses.append("f.meta->>'season' = %s")
        elif name == "date_from":
            clauses.append("f.scheduled_start >= %s::date")
        elif name == "date_to":
            clauses.append("f.scheduled_start < %s::date + 1")
        elif name == "venue_id":
            clauses.append("f.venue_id = %s")
        elif name == "innings":
            clauses.append("i.ordinal = %s")
        elif name == "team_id":
            if team_column:
                clauses.append(f"{team_column} = %s")
            else:  # the fielding side: the team that is not batting
                clauses.append(
                    "i.batting_team_id <> %s AND EXISTS (SELECT 1 FROM sports_fixturecompetitor c"
                    " WHERE c.fixture_id = f.id AND c.parent_id IS NULL AND c.participant_id = %s)"
                )
                params.append(value)
        elif name == "opposition_id":
            if team_column:
                clauses.append(
                    "i.batting_team_id <> %s AND EXISTS (SELECT 1 FROM sports_fixturecompetitor c"
                    " WHERE c.fixture_id = f.id AND c.parent_id IS NULL AND c.participant_id = %s)"
                )
                params.append(value)
            else:
                clauses.append("i.batting_team_id = %s")
        elif name == "batter_id":
            clauses.append("d.batter_id = %s")
        params.append(value)
    where = "".join(f" AND {c}" for c in clauses)
    key = {
        "": "''",
        "season": "f.meta->>'season'",
        "venue": "f.venue_id::text",
        "opposition": "i.batting_team_id::text",
    }[group]
    if kind == "batting":
        sql = f"""SELECT d.batter_id, {key} AS k, SUM(d.runs_batter) AS runs,
                         COUNT(*) FILTER (WHERE COALESCE(d.extra_wides, 0) = 0) AS balls,
                         COUNT(DISTINCT d.innings_id) AS innings {_D.format(where=where)}
                   GROUP BY 1, 2 ORDER BY runs DESC LIMIT 50"""
    elif kind == "bowling":
        sql = f"""SELECT d.bowler_id, {key} AS k,
                         COUNT(w.id) FILTER (WHERE dk.credits_bowler) AS wickets,
                         SUM(d.runs_batter + COALESCE(d.extra_wides, 0)
                             + COALESCE(d.extra_noballs, 0)) AS runs
                    {_D.format(where=where)}
                   GROUP BY 1, 2 ORDER BY wickets DESC LIMIT 50"""
        sql = sql.replace(
            "WHERE d.is_current",
            "LEFT JOIN cricket_deliverywicket w ON w.delivery_id = d.id"
            " LEFT JOIN cricket_dismissalkind dk ON dk.id = w.kind_id WHERE d.is_current",
        )
    elif kind == "fielding":
        sql = f"""SELECT fl.participant_id, COUNT(*) AS catches
                    {_D.format(where=where)}
                   GROUP BY 1 ORDER BY catches DESC LIMIT 50"""
        sql = sql.replace(
            "WHERE d.is_current",
            "JOIN cricket_deliverywicket w ON w.delivery_id = d.id"
            " JOIN cricket_dismissalkind k ON k.id = w.kind_id AND k.code = 'caught'"
            " JOIN cricket_deliverywicketfielder fl ON fl.wicket_id = w.id"
            " AND NOT fl.substitute WHERE d.is_current",
        )
    elif kind == "team":
        sql = f"""SELECT i.batting_team_id, {key} AS k, COUNT(DISTINCT f.id) AS matches,
                         SUM(d.runs_total) AS runs {_D.format(where=where)}
                   GROUP BY 1, 2 ORDER BY matches DESC LIMIT 50"""
    else:  # innings list
        sql = f"""SELECT d.innings_id, MIN(f.scheduled_start) AS day, SUM(d.runs_batter),
                         COUNT(*) FILTER (WHERE COALESCE(d.extra_wides, 0) = 0)
                    {_D.format(where=where)}
                   GROUP BY 1 ORDER BY day DESC LIMIT 50"""
    return sql, params


# A record's delivery baselines: one batter's innings (highest innings), and the stands of
# one wicket (the deliveries after the innings' ninth fall, for the tenth wicket).
_HIGHEST_INNINGS = f"""SELECT d.innings_id, d.batter_id, SUM(d.runs_batter) AS runs,
                             COUNT(*) FILTER (WHERE COALESCE(d.extra_wides, 0) = 0) AS balls
                        {_D.format(where=" AND f.format_code = %s")}
                       GROUP BY 1, 2 ORDER BY runs DESC, balls LIMIT 50"""
_WICKET_STANDS = """
SELECT innings_id, SUM(runs_total) AS runs, COUNT(*) AS balls
  FROM (SELECT d.innings_id, d.runs_total,
               COUNT(w.id) OVER (PARTITION BY d.innings_id ORDER BY d.sequence
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS fallen
          FROM cricket_delivery d
          JOIN cricket_innings i ON i.id = d.innings_id AND NOT i.super_over
          JOIN sports_fixture f ON f.id = i.fixture_id AND f.merged_into_id IS NULL
          LEFT JOIN cricket_deliverywicket w ON w.delivery_id = d.id
          LEFT JOIN cricket_dismissalkind k ON k.id = w.kind_id
         WHERE d.is_current AND f.format_code = %s AND (w.id IS NULL OR k.is_dismissal)) b
 WHERE fallen = %s - 1
 GROUP BY 1 ORDER BY runs DESC LIMIT 50"""
# A season's table over the deliveries: each side's matches, wins, runs and legal balls.
_SEASON_TABLE = """
SELECT i.batting_team_id, COUNT(DISTINCT f.id) AS played,
       COUNT(DISTINCT f.id) FILTER (WHERE c.rank = 1) AS won,
       SUM(d.runs_total) AS runs,
       COUNT(*) FILTER (WHERE COALESCE(d.extra_wides, 0) = 0
                          AND COALESCE(d.extra_noballs, 0) = 0) AS balls
  FROM cricket_delivery d
  JOIN cricket_innings i ON i.id = d.innings_id AND NOT i.super_over
  JOIN sports_fixture f ON f.id = i.fixture_id AND f.merged_into_id IS NULL
  JOIN sports_competition n ON n.id = f.competition_id
  JOIN sports_fixturecompetitor c ON c.fixture_id = f.id AND c.parent_id IS NULL
   AND c.participant_id = i.batting_team_id
 WHERE d.is_current AND n.tree_id = %s AND n.lft >= %s AND n.rght <= %s
 GROUP BY 1 ORDER BY won DESC, runs DESC"""


def _view(view: str, params: dict, player=None) -> Callable[[], object]:
    """A statistics view's first page of 50, as the API reads it without HTTP."""
    from cricket.stats.figures import view_rows
    from cricket.stats.query import StatsQuery

    query = StatsQuery.parse(params, view=view)
    return lambda: view_rows(query, participant_id=player, limit=50)


def _record(kind: str, params: dict) -> Callable[[], object]:
    """A record's first page of 50, as the API reads it: made current, ordered, decorated."""
    from cricket.stats.partnerships import records_ensure
    from cricket.stats.records import KIND_EXTRAS, record_rows, records_decorate
    from cricket.stats.records_filters import records_filter_from_params

    rf = records_filter_from_params(params, extra=KIND_EXTRAS.get(kind))

    def ask():
        records_ensure()
        with rf.moment():
            return records_decorate(kind, list(record_rows(kind, rf)[:50]))

    return ask


def _queries():
    """The twenty questions: (label, the read through the app, baseline SQL, its params)."""
    from django.db import connection

    from cricket.points import points_table
    from sports.models import Competition

    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT s.team_id::text, s.opposition_id::text, t.name, o.name, count(*)
                 FROM cricket_cricketmatchside s
                 JOIN sports_participant t ON t.id = s.team_id
                 JOIN sports_participant o ON o.id = s.opposition_id
                WHERE s.format_code = 'ODI' GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC LIMIT 1"""
        )
        team_id, opp_id, team, opp, _ = cursor.fetchone()
        cursor.execute(
            """SELECT v.id::text, v.name FROM cricket_cricketmatchside s
                 JOIN sports_venue v ON v.id = s.venue_id
                GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1"""
        )
        venue_id, venue = cursor.fetchone()
        cursor.execute(
            """SELECT l.participant_id::text, l.season, count(*) FROM cricket_cricketbattingline l
                WHERE l.format_code = 'T20' GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 1"""
        )
        player, season, _ = cursor.fetchone()
        # The season node with the most fixtures: a league's season table.
        cursor.execute(
            """SELECT n.id FROM sports_competition n
                 JOIN sports_competition c ON c.tree_id = n.tree_id
                  AND c.lft BETWEEN n.lft AND n.rght
                 JOIN sports_fixture f ON f.competition_id = c.id
                WHERE n.type = 'season' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1"""
        )
        node = Competition.objects.get(pk=cursor.fetchone()[0])

    def base(kind, filters, group=""):
        return _baseline(kind, filters, group=group)

    return [
        ("most runs in ODIs", _view("batting", {"format": "odi"}),
         *base("batting", {"format": "ODI"})),
        ("most runs in ODIs by a team against an opposition",
         _view("batting", {"format": "ODI", "team": team, "opposition": opp}),
         *base("batting", {"format": "ODI", "team_id": team_id, "opposition_id": opp_id})),
        ("most wickets in Tests", _view("bowling", {"format": "test"}),
         *base("bowling", {"format": "Test"})),
        ("best bowling at one venue",
         _view("bowling", {"venue": venue, "ordering": "-best_wickets"}),
         *base("bowling", {"venue_id": venue_id})),
        ("a player's innings list in T20s in one season",
         _view("innings", {"format": "T20", "season": season}, player),
         *base("innings", {"format": "T20", "season": season, "batter_id": player})),
        ("a team's batters by season", _view("batting", {"team": team, "group_by": "season"}),
         *base("batting", {"team_id": team_id}, "season")),
        ("most catches in T20s", _view("fielding", {"format": "T20"}),
         *base("fielding", {"format": "T20"})),
        ("team records in T20s", _view("team", {"format": "T20"}),
         *base("team", {"format": "T20"})),
        ("best Test averages, 20 innings",
         _view("batting", {"format": "Test", "min_innings": "20", "ordering": "-average"}),
         *base("batting", {"format": "Test"})),
        ("best T20 economy, 300 balls",
         _view("bowling", {"format": "T20", "min_balls": "300", "ordering": "economy"}),
         *base("bowling", {"format": "T20"})),
        ("a team's ODI batters by opposition",
         _view("batting", {"format": "ODI", "team": team, "group_by": "opposition"}),
         *base("batting", {"format": "ODI", "team_id": team_id}, "opposition")),
        ("women's T20 strike rates, 200 balls",
         _view("batting", {"format": "T20", "gender": "female", "min_balls": "200",
                           "ordering": "-strike_rate"}),
         *base("batting", {"format": "T20", "gender": "female"})),
        ("fourth-innings runs in Tests", _view("batting", {"format": "Test", "innings": "4"}),
         *base("batting", {"format": "Test", "innings": 4})),
        ("wickets against an opposition in ODIs",
         _view("bowling", {"format": "ODI", "opposition": team}),
         *base("bowling", {"format": "ODI", "opposition_id": team_id})),
        ("Test bowlers by venue", _view("bowling", {"format": "Test", "group_by": "venue"}),
         *base("bowling", {"format": "Test"}, "venue")),
        ("a team's record by opposition",
         _view("team", {"team": team, "group_by": "opposition"}),
         *base("team", {"team_id": team_id}, "opposition")),
        ("runs in 2015-2020", _view("batting", {"date_from": "2015-01-01",
                                                "date_to": "2020-12-31"}),
         *base("batting", {"date_from": "2015-01-01", "date_to": "2020-12-31"})),
        ("partnerships for the 10th wicket in Tests",
         _record("partnerships", {"match_type": "Test", "wicket": "10"}),
         _WICKET_STANDS, ["Test", 10]),
        ("highest individual innings in ODIs",
         _record("highest-innings", {"match_type": "ODI"}), _HIGHEST_INNINGS, ["ODI"]),
        ("a season's points table with net run rate", lambda: points_table(node),
         _SEASON_TABLE, [node.tree_id, node.lft, node.rght]),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="omnium_bench_stats_query")
    parser.add_argument("--template", default=None)
    parser.add_argument("--limit", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--archive", type=Path, default=next((p for p in ARCHIVES if p.exists()), ARCHIVES[0])
    )
    args = parser.parse_args()
    bench.stats.ARCHIVE = args.archive
    if args.template:
        copy_template(args.database, args.template)
    setup_django(args.database)
    from django.db import connection

    from cricket.stats.models import CricketMatchSide
    from cricket.stats.partnerships import records_ensure
    from cricket.stats.refresh import statistics_rebuild_all

    load(args.limit)
    if not CricketMatchSide.objects.exists():
        print("rebuilding every line ...", flush=True)
        statistics_rebuild_all(reason="bench-stats-query", actor="integration:bench")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM cricket_delivery WHERE is_current")
        deliveries = cursor.fetchone()[0]
    print(f"{deliveries} live deliveries", flush=True)
    print(f"records rows made current for {len(records_ensure())} fixtures", flush=True)
    analyze(args.database)

    ours, theirs = [], []
    for label, ask, sql, sql_params in _queries():

        def plain(sql=sql, sql_params=sql_params):
            with connection.cursor() as cursor:
                cursor.execute(sql, sql_params)
                return cursor.fetchall()

        q = median_ms(ask, runs=args.runs, warmup=1)
        b = median_ms(plain, runs=args.runs, warmup=1)
        ours.append(q)
        theirs.append(b)
        print(f"{label:55s} {q:9.1f} ms   plain SQL {b:9.1f} ms", flush=True)
    ours.sort()
    p50 = statistics.median(ours)
    p95 = percentile(ours, 0.95)
    ratio = p50 / statistics.median(theirs)
    print(
        closing_line(
            "stats-query",
            p50_ms=f"{p50:.1f}",
            p95_ms=f"{p95:.1f}",
            ratio=f"{ratio:.3f}",
            baseline_p50_ms=f"{statistics.median(theirs):.1f}",
            deliveries=deliveries,
        )
    )


if __name__ == "__main__":
    main()
