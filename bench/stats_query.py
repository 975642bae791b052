"""bench-stats-query: twenty Statsguru-style statistics queries through the query object,
against the same questions asked as plain SQL over the live deliveries, in the same run.

On a benchmark database of its own (``--database``, default omnium_bench_stats_query):
when ``--template`` names an imported corpus database it is copied and migrated;
otherwise the first ``--limit`` matches of the dev corpus archive are imported if the
database holds fewer (the whole dev corpus is ``--limit 13000``), and every line is rebuilt.

Timed: each query's ``figures.view_rows`` (first page of 50, the API's read without HTTP),
median over ``--runs`` after warm-up; p50 and p95 across the twenty. The baseline is the
same question written as one plain SQL statement over ``cricket_delivery`` (current
revisions) joined to innings and fixtures, grouped per player (or team, or innings): what a
reader without derived lines pays. ``ratio`` is the p50 of the queries over the p50 of the
baselines (lower is better; below 1 the lines pay off). Target: p95 <= 300 ms.

The baselines express only the filters a delivery's fixture and innings carry (format,
gender, season, dates, venue, team, opposition, innings number), so the twenty queries use
those; toss, result, home/away and batting position are proven by the query test matrix.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.stats
from bench.common import REPO, closing_line, median_ms, percentile, setup_django
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


def _queries():
    """The twenty questions: (label, view, query parameters, participant, baseline)."""
    from django.db import connection

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
    return [
        ("most runs in ODIs", "batting", {"format": "odi"}, None, ("batting", {"format": "ODI"})),
        ("most runs in ODIs by a team against an opposition", "batting",
         {"format": "ODI", "team": team, "opposition": opp}, None,
         ("batting", {"format": "ODI", "team_id": team_id, "opposition_id": opp_id})),
        ("most wickets in Tests", "bowling", {"format": "test"}, None,
         ("bowling", {"format": "Test"})),
        ("best bowling at one venue", "bowling", {"venue": venue, "ordering": "-best_wickets"},
         None, ("bowling", {"venue_id": venue_id})),
        ("a player's innings list in T20s in one season", "innings",
         {"format": "T20", "season": season}, player,
         ("innings", {"format": "T20", "season": season, "batter_id": player})),
        ("a team's batters by season", "batting", {"team": team, "group_by": "season"}, None,
         ("batting", {"team_id": team_id}, "season")),
        ("most catches in T20s", "fielding", {"format": "T20"}, None,
         ("fielding", {"format": "T20"})),
        ("team records in T20s", "team", {"format": "T20"}, None, ("team", {"format": "T20"})),
        ("ODI teams by season", "team", {"format": "ODI", "group_by": "season"}, None,
         ("team", {"format": "ODI"}, "season")),
        ("best Test averages, 20 innings", "batting",
         {"format": "Test", "min_innings": "20", "ordering": "-average"}, None,
         ("batting", {"format": "Test"})),
        ("best T20 economy, 300 balls", "bowling",
         {"format": "T20", "min_balls": "300", "ordering": "economy"}, None,
         ("bowling", {"format": "T20"})),
        ("a team's ODI batters by opposition", "batting",
         {"format": "ODI", "team": team, "group_by": "opposition"}, None,
         ("batting", {"format": "ODI", "team_id": team_id}, "opposition")),
        ("women's T20 strike rates, 200 balls", "batting",
         {"format": "T20", "gender": "female", "min_balls": "200", "ordering": "-strike_rate"},
         None, ("batting", {"format": "T20", "gender": "female"})),
        ("fourth-innings runs in Tests", "batting", {"format": "Test", "innings": "4"}, None,
         ("batting", {"format": "Test", "innings": 4})),
        ("runs at one venue", "batting", {"venue": venue}, None,
         ("batting", {"venue_id": venue_id})),
        ("wickets against an opposition in ODIs", "bowling",
         {"format": "ODI", "opposition": team}, None,
         ("bowling", {"format": "ODI", "opposition_id": team_id})),
        ("Test bowlers by venue", "bowling", {"format": "Test", "group_by": "venue"}, None,
         ("bowling", {"format": "Test"}, "venue")),
        ("a team's record by opposition", "team", {"team": team, "group_by": "opposition"},
         None, ("team", {"team_id": team_id}, "opposition")),
        ("runs in 2015-2020", "batting",
         {"date_from": "2015-01-01", "date_to": "2020-12-31"}, None,
         ("batting", {"date_from": "2015-01-01", "date_to": "2020-12-31"})),
        ("runs in one season of T20s", "batting", {"format": "T20", "season": season}, None,
         ("batting", {"format": "T20", "season": season})),
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

    from cricket.stats.figures import view_rows
    from cricket.stats.models import CricketMatchSide
    from cricket.stats.query import StatsQuery
    from cricket.stats.refresh import statistics_rebuild_all

    load(args.limit)
    if not CricketMatchSide.objects.exists():
        print("rebuilding every line ...", flush=True)
        statistics_rebuild_all(reason="bench-stats-query", actor="integration:bench")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM cricket_delivery WHERE is_current")
        deliveries = cursor.fetchone()[0]
    print(f"{deliveries} live deliveries", flush=True)

    ours, theirs = [], []
    for label, view, params, player, baseline in _queries():
        query = StatsQuery.parse(params, view=view)

        def ask(query=query, player=player):
            return view_rows(query, participant_id=player, limit=50)

        sql, sql_params = _baseline(baseline[0], baseline[1], group=(baseline[2:] or [""])[0])

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
