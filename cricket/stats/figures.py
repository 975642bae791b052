"""The statistics views a ``StatsQuery`` answers: batting, bowling, fielding, team, and a
player's innings list. Each returns plain rows (the API serializes them, the CLI prints
them as JSON), read set-based from the stored lines.

Player views fold through ``aggregates.careers`` (one fold, one rulebook for every
figure) and rename its columns to the view's: a bowling row's ``average`` is the bowling
average. A format's ranking of players with no other filter (the most runs in ODIs, the
best T20 economy over 300 balls) reads the career snapshots instead, the same fold stored
per player and format, folding live only the players whose snapshot is not valid
(``aggregates.careers_ranked_from_snapshots``). The team view folds the match sides and
team innings lines; the innings list reads batting lines. Pages are cut by ``offset`` and
``limit``; the API wraps them in an opaque cursor (``apis``), since a ranking by a folded
figure has no stable row key.

Figures, as Statsguru defines them: not outs = batting innings - outs; average = runs /
outs (empty with no outs); strike rate = 100 x runs / balls faced; bowling average =
runs conceded / wickets; economy = runs conceded per over of the match's own length;
bowling strike rate = legal balls / wickets; ``four_wickets`` counts innings of exactly
four wickets and ``five_wickets`` of five or more; ``ten_wickets`` matches of ten or more.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection

from cricket.stats.aggregates import Scope, careers, careers_ranked_from_snapshots, expand_merged
from cricket.stats.query import StatsQuery

# view field -> fold column, in the order a row shows them.
BATTING_VIEW = {
    "matches": "matches",
    "innings": "innings",
    "not_outs": "not_outs",
    "runs": "runs",
    "highest": "highest",
    "highest_not_out": "highest_not_out",
    "average": "average",
    "balls_faced": "balls_faced",
    "strike_rate": "strike_rate",
    "hundreds": "hundreds",
    "fifties": "fifties",
    "ducks": "ducks",
    "fours": "fours",
    "sixes": "sixes",
}
BOWLING_VIEW = {
    "matches": "matches",
    "innings": "bowling_innings",
    "balls": "legal_balls",
    "runs": "runs_conceded",
    "wickets": "wickets",
    "maidens": "maidens",
    "best_wickets": "best_wickets",
    "best_runs": "best_runs",
    "best_match_wickets": "best_match_wickets",
    "best_match_runs": "best_match_runs",
    "average": "bowling_average",
    "economy": "economy",
    "strike_rate": "bowling_strike_rate",
    "four_wickets": "four_wickets",
    "five_wickets": "five_wickets",
    "ten_wickets": "ten_wickets",
}
FIELDING_VIEW = {
    "matches": "matches",
    "catches": "catches",
    "stumpings": "stumpings",
    "run_outs": "run_outs",
    "sub_catches": "substitute_catches",
    "sub_stumpings": "substitute_stumpings",
    "sub_run_outs": "substitute_run_outs",
}
# Fold columns a view's row reads besides its fields.
EXTRA_FIGURES = {"batting": (), "bowling": (), "fielding": ("catches", "stumpings")}
PLAYER_VIEWS = {"batting": BATTING_VIEW, "bowling": BOWLING_VIEW, "fielding": FIELDING_VIEW}
DEFAULT_ORDERING = {
    "batting": "-runs",
    "bowling": "-wickets",
    "fielding": "-catches",
    "team": "-won",
    "innings": "-date",
}
# The qualification each view reads: min_innings, min_balls, min_wickets -> fold column.
QUALIFICATION = {
    "batting": {"min_innings": "innings", "min_balls": "balls_faced", "min_wickets": "wickets"},
    "bowling": {
        "min_innings": "bowling_innings",
        "min_balls": "legal_balls",
        "min_wickets": "wickets",
    },
    "fielding": {"min_innings": "matches", "min_balls": "balls_faced", "min_wickets": "wickets"},
}
TEAM_FIELDS = (
    "matches",
    "won",
    "lost",
    "tied",
    "drawn",
    "no_result",
    "innings",
    "runs",
    "wickets",
    "balls",
    "run_rate",
    "average",
    "highest_total",
    "lowest_total",
)
INNINGS_FIELDS = (
    "date",
    "runs",
    "balls_faced",
    "fours",
    "sixes",
    "strike_rate",
    "position",
    "innings",
)


def _ordering(query: StatsQuery, fields: tuple[str, ...] | list[str]) -> tuple[str, bool]:
    ordering = query.ordering or DEFAULT_ORDERING[query.view]
    name = ordering.lstrip("-")
    if name not in fields and name != "name":
        raise ValidationError(
            {"ordering": f"{ordering!r}: {query.view} rows order by {', '.join(fields)} or name"}
        )
    return name, ordering.startswith("-")


def _group_labels(query: StatsQuery, keys: set[str]) -> dict[str, str]:
    """The shown name of each group key: a team's or venue's name, else the key."""
    table = {"opposition": "sports_participant", "venue": "sports_venue"}.get(query.group_by)
    if table is None or not keys:
        return {k: k for k in keys}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id::text, name FROM {table} WHERE id = ANY(%s::uuid[])",
            [sorted(k for k in keys if k)],
        )
        return dict(cursor.fetchall())


def _format_ranking(query: StatsQuery) -> Scope | None:
    """The scope of a format's (or every format's) ranking of players, when the query asks
    for nothing else but a qualification and an order: the career snapshots hold each
    player's figures for it. None when any other filter, a grouping or a moment is asked."""
    bare = replace(query, min_innings=None, min_balls=None, min_wickets=None, ordering=None)
    plain = StatsQuery(
        view=query.view, format_code=query.format_code, super_overs=query.super_overs
    )
    if bare != plain:
        return None
    return Scope(format_code=query.format_code, super_overs=query.super_overs)


def player_rows(
    query: StatsQuery, *, limit: int | None = None, offset: int = 0
) -> list[dict[str, Any]]:
    """Rows of a batting, bowling or fielding view: one per player (or player and group),
    with ``participant_id``, ``registry_id`` and ``name``. Raises ValidationError for an
    ordering the view does not show."""
    view = PLAYER_VIEWS[query.view]
    name, descending = _ordering(query, list(view))
    minimum = {"bowling_innings": 1} if query.view == "bowling" else {}
    if query.view == "fielding":
        minimum = {}
    for parameter, column in QUALIFICATION[query.view].items():
        value = getattr(query, parameter)
        if value is not None:
            minimum[column] = max(minimum.get(column, 0), value)
    column = "name" if name == "name" else view[name]
    group = query.group_key()
    snapshot_scope = _format_ranking(query)
    if snapshot_scope is not None:
        rows = careers_ranked_from_snapshots(
            snapshot_scope,
            ordering=("-" if descending else "") + column,
            limit=limit,
            offset=offset,
            minimum=minimum,
        )
    else:
        rows = careers(
            query,
            ordering=("-" if descending else "") + column,
            limit=limit,
            offset=offset,
            minimum=minimum,
            group=group,
            figures=[*view.values(), *EXTRA_FIGURES[query.view]],
        )
    labels = _group_labels(query, {r["k"] for r in rows}) if group else {}
    shaped = []
    for row in rows:
        out: dict[str, Any] = {
            "participant_id": row["participant_id"],
            "registry_id": row["registry_id"],
            "name": row["name"],
        }
        if group:
            out["group"] = {
                "by": query.group_by,
                "key": row["k"],
                "name": labels.get(row["k"], row["k"]),
            }
        out.update({field: row[source] for field, source in view.items()})
        if query.view == "batting":
            out["highest_score"] = (
                None
                if row["highest"] is None
                else f"{row['highest']}{'*' if row['highest_not_out'] else ''}"
            )
        if query.view == "bowling":
            out["best_innings"] = _figures(row["best_wickets"], row["best_runs"])
            out["best_match"] = _figures(row["best_match_wickets"], row["best_match_runs"])
        if query.view == "fielding":
            out["dismissals"] = row["catches"] + row["stumpings"]
        shaped.append(out)
    return shaped


def _figures(wickets: int | None, runs: int | None) -> str | None:
    return None if wickets is None else f"{wickets}/{runs}"


# The team view: sides give matches and results; team innings lines (the batting side's)
# give runs, wickets and overs of the match's own length.
_TEAM = """
WITH sides AS (
    SELECT l.*, ({key})::text AS k FROM cricket_cricketmatchside l {join} WHERE {side_where}
),
res AS (
    SELECT team_id, k, COUNT(*) AS matches,
           COUNT(*) FILTER (WHERE result = 'won') AS won,
           COUNT(*) FILTER (WHERE result = 'lost') AS lost,
           COUNT(*) FILTER (WHERE result = 'tied') AS tied,
           COUNT(*) FILTER (WHERE result = 'drawn') AS drawn,
           COUNT(*) FILTER (WHERE result = 'no_result') AS no_result
      FROM sides GROUP BY team_id, k
),
inn AS (
    SELECT s.team_id, s.k, COUNT(*) AS innings, SUM(l.total) AS runs,
           SUM(l.wickets) AS wickets, SUM(l.legal_balls) AS balls,
           SUM(l.legal_balls::numeric / s.balls_per_over) AS overs,
           MAX(l.total) AS highest_total, MIN(l.total) AS lowest_total
      FROM cricket_cricketteaminningsline l
      JOIN sides s ON s.fixture_id = l.fixture_id AND s.team_id = l.team_id
     WHERE {team_where}
     GROUP BY s.team_id, s.k
)
SELECT res.team_id::text AS team_id, t.name, res.k, res.matches, res.won, res.lost, res.tied,
       res.drawn, res.no_result, COALESCE(inn.innings, 0) AS innings,
       COALESCE(inn.runs, 0) AS runs, COALESCE(inn.wickets, 0) AS wickets,
       COALESCE(inn.balls, 0) AS balls,
       ROUND(inn.runs / NULLIF(inn.overs, 0), 2)::float8 AS run_rate,
       ROUND(inn.runs::numeric / NULLIF(inn.wickets, 0), 2)::float8 AS average,
       inn.highest_total, inn.lowest_total
  FROM res JOIN sports_participant t ON t.id = res.team_id
  LEFT JOIN inn ON inn.team_id = res.team_id AND inn.k = res.k
"""


def team_rows(
    query: StatsQuery, *, limit: int | None = None, offset: int = 0
) -> list[dict[str, Any]]:
    """Rows of the team view: one per team (or team and group). Super-over innings never
    count toward a side's runs (a side table row is the match; ``super_overs`` narrows
    the innings read)."""
    name, descending = _ordering(query, TEAM_FIELDS)
    # The sides are filtered without the super-over flag (a side is the whole match) and
    # without the innings number (it narrows the team lines only).
    side_where, side_params = query.where("l", "side")
    innings_clause = ""
    innings_params: list[Any] = [query.super_overs == "only"]
    if query.innings is not None:
        innings_clause = " AND l.innings_ordinal = %s"
        innings_params.append(query.innings)
    key = {"player": "''", "season": "l.season", "opposition": "l.opposition_id",
           "venue": "l.venue_id"}[query.group_by]  # fmt: skip
    sql = _TEAM.format(
        key=key,
        join="",
        side_where=side_where,
        team_where="l.super_over = %s" + innings_clause,
    )
    params = side_params + innings_params
    order = "t.name" if name == "name" else name
    sql = (
        f"SELECT * FROM ({sql}) r ORDER BY {'r.name' if order == 't.name' else 'r.' + order}"
        f" {'DESC' if descending else 'ASC'} NULLS LAST, r.name, r.team_id, r.k"
    )
    if limit is not None:
        sql += " LIMIT %s OFFSET %s"
        params += [limit, offset]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = [c.name for c in cursor.description]
        rows = [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]
    labels = _group_labels(query, {r["k"] for r in rows}) if query.group_by != "player" else {}
    for row in rows:
        k = row.pop("k")
        if query.group_by != "player":
            row["group"] = {"by": query.group_by, "key": k, "name": labels.get(k, k)}
    return rows


_INNINGS = """
SELECT l.id, l.fixture_id::text AS fixture_id, f.name AS fixture, l.occurred_on AS date,
       l.format_code AS format, l.innings_ordinal AS innings, l.position, l.runs,
       l.balls_faced, l.fours, l.sixes, l.outs = 0 AS not_out,
       ROUND(100.0 * l.runs / NULLIF(l.balls_faced, 0), 2)::float8 AS strike_rate,
       COALESCE(k.code, 'not out') AS how_out,
       l.team_id::text AS team_id, t.name AS team,
       s.opposition_id::text AS opposition_id, o.name AS opposition,
       s.venue_id::text AS venue_id, v.name AS venue
  FROM cricket_cricketbattingline l
  JOIN sports_fixture f ON f.id = l.fixture_id
  JOIN sports_participant t ON t.id = l.team_id
  LEFT JOIN cricket_dismissalkind k ON k.id = l.dismissal_kind_id
  LEFT JOIN cricket_cricketmatchside s ON s.fixture_id = l.fixture_id AND s.team_id = l.team_id
  LEFT JOIN sports_participant o ON o.id = s.opposition_id
  LEFT JOIN sports_venue v ON v.id = s.venue_id
 WHERE l.participant_id = ANY(%s::uuid[]) AND {where}
"""


def innings_rows(
    query: StatsQuery, *, participant_id: Any, limit: int | None = None, offset: int = 0
) -> list[dict[str, Any]]:
    """A player's batting innings (theirs and everyone merged into them) under the query:
    score, balls, how out, position, opposition, venue, date; latest first by default."""
    name, descending = _ordering(query, INNINGS_FIELDS)
    where, params = query.where("l", "bat")
    column = {"date": "l.occurred_on", "innings": "l.innings_ordinal", "name": "l.occurred_on"}
    order = column.get(name, name)
    direction = "DESC" if descending else "ASC"
    sql = (
        _INNINGS.format(where=where)
        + f" ORDER BY {order} {direction} NULLS LAST, l.occurred_on {direction},"
        f" l.fixture_id, l.innings_ordinal {direction}"
    )
    params = [expand_merged([participant_id]), *params]
    if limit is not None:
        sql += " LIMIT %s OFFSET %s"
        params += [limit, offset]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = [c.name for c in cursor.description]
        rows = [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]
    for row in rows:
        row.pop("id")
        row["score"] = f"{row['runs']}{'*' if row['not_out'] else ''}"
    return rows


def view_rows(
    query: StatsQuery,
    *,
    participant_id: Any = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """The rows of the query's view (``innings`` needs ``participant_id``), read as of the
    query's moment (``StatsQuery.moment``)."""
    with query.moment():
        if query.view == "team":
            return team_rows(query, limit=limit, offset=offset)
        if query.view == "innings":
            return innings_rows(query, participant_id=participant_id, limit=limit, offset=offset)
        return player_rows(query, limit=limit, offset=offset)
