"""Aggregates folded from the per-fixture lines, for any scope, and their snapshots.

A fold groups the lines by participant, following merges (a merged participant's lines
count for the survivor), never by name: career figures are a registry identity's. The
scope narrows the lines: format, gender, a competition subtree (MPTT range), a season,
a date range; super-over innings are excluded by default and ``super_overs="only"``
reads them alone (a scope mixing standard and super-over innings is never the default).

Figures: matches (appearances), innings, runs, balls faced, 4s, 6s, outs,
highest, 50s (50-99), 100s (100+), catches (caught-and-bowled is the bowler's), stumpings,
run-out involvement, and the same three as a substitute apart; legal balls, runs conceded,
wickets, maidens, best figures (most wickets, then fewest runs, in one innings).

Snapshots (caches tied to a data version) store each participant's folds at three levels (career per
format and overall, competition root, season node) as JSON. They are disposable: a row
is read only while its participant's state matches the current data version and
``DEFINITION_VERSION``; anyone else is folded live.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

# Bump when a rule of the engine or of a fold changes: every snapshot becomes stale
# (2: not outs, ducks, the highest score's not-out marker, averages, strike rates, economy
# over the match's own balls per over, 4w/5w innings, 10w matches, best match figures).
DEFINITION_VERSION = 2

SUPER_OVER_MODES = ("exclude", "only")

BATTING_FIELDS = (
    "matches",
    "innings",
    "not_outs",
    "runs",
    "balls_faced",
    "fours",
    "sixes",
    "outs",
    "ducks",
    "highest",
    "highest_not_out",
    "fifties",
    "hundreds",
    "average",
    "strike_rate",
)
FIELDING_FIELDS = (
    "catches",
    "stumpings",
    "run_outs",
    "substitute_catches",
    "substitute_stumpings",
    "substitute_run_outs",
)
BOWLING_FIELDS = (
    "bowling_innings",
    "legal_balls",
    "runs_conceded",
    "wickets",
    "maidens",
    "best_wickets",
    "best_runs",
    "best_match_wickets",
    "best_match_runs",
    "four_wickets",
    "five_wickets",
    "ten_wickets",
    "bowling_average",
    "economy",
    "bowling_strike_rate",
)
FIGURES = BATTING_FIELDS + FIELDING_FIELDS + BOWLING_FIELDS
ORDERINGS = {f: f for f in FIGURES} | {"name": "name"}
# The line fold each figure is read from ("matches" comes from the appearances, always
# folded). A read that shows one view's figures folds only their lines.
FOLD_OF = (
    {f: "bat" for f in BATTING_FIELDS if f != "matches"}
    | {f: "fld" for f in FIELDING_FIELDS}
    | {f: "bowl" for f in BOWLING_FIELDS}
)
FOLDS = ("bat", "fld", "bowl")

# Which line table a filter applies to (``Scope.where``'s ``table``).
LINE_KINDS = ("app", "bat", "fld", "bowl", "team")


@dataclass(frozen=True)
class Scope:
    """Which lines a fold reads. Every field narrows; the default is every standard
    (non-super-over) innings of every public fixture."""

    format_code: str | None = None
    gender: str | None = None
    competition_id: Any = None  # the node and everything below it
    season: str | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    super_overs: str = "exclude"

    def __post_init__(self) -> None:
        if self.super_overs not in SUPER_OVER_MODES:
            raise ValueError(
                f"super_overs: {self.super_overs!r} is not one of {', '.join(SUPER_OVER_MODES)}"
            )

    def where(self, alias: str = "l", table: str = "bat") -> tuple[str, list[Any]]:
        """The WHERE clause over line table ``table`` (one of ``LINE_KINDS``) as ``alias``;
        every kind carries the fixture's scope columns, so the scope ignores the kind, but
        for ``side`` (a match side is the whole match: no super-over flag to read)."""
        clauses = ["true"]
        params: list[Any] = []
        if table != "side":
            clauses = [f"{alias}.super_over = %s"]
            params.append(self.super_overs == "only")
        if self.format_code:
            clauses.append(f"{alias}.format_code = %s")
            params.append(self.format_code)
        if self.gender:
            clauses.append(f"{alias}.gender = %s")
            params.append(self.gender)
        if self.season:
            clauses.append(f"{alias}.season = %s")
            params.append(self.season)
        if self.date_from:
            clauses.append(f"{alias}.occurred_on >= %s")
            params.append(self.date_from)
        if self.date_to:
            clauses.append(f"{alias}.occurred_on <= %s")
            params.append(self.date_to)
        if self.competition_id:
            clauses.append(
                f"{alias}.competition_id IN (SELECT c.id FROM sports_competition c "
                "JOIN sports_competition n ON n.tree_id = c.tree_id "
                "AND c.lft BETWEEN n.lft AND n.rght WHERE n.id = %s)"
            )
            params.append(self.competition_id)
        return " AND ".join(clauses), params

    def appearances_from_lines(self) -> str | None:
        """None: matches are read from the appearances. A query narrowing innings (their
        number, the batting position) names the line kinds whose rows stand for a match."""
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "match_type": self.format_code or None,
            "gender": self.gender or None,
            "competition": str(self.competition_id) if self.competition_id else None,
            "season": self.season or None,
            "date_from": self.date_from.isoformat() if self.date_from else None,
            "date_to": self.date_to.isoformat() if self.date_to else None,
            "super_overs": self.super_overs,
        }


@dataclass(frozen=True)
class GroupKey:
    """An extra grouping column ``k`` of a fold: its expression over the line ``l`` and
    the join it needs; ``lines`` when the key exists only on innings lines (an appearance
    has no innings), so matches are then counted from the lines."""

    expr: str
    join: str = ""
    lines: bool = False


# Merged participants resolve to their final survivor (chains of any length).
_CANON = """
canon_chain(id, survivor) AS (
    SELECT id, merged_into_id FROM sports_participant WHERE merged_into_id IS NOT NULL
    UNION
    SELECT c.id, p.merged_into_id FROM canon_chain c
      JOIN sports_participant p ON p.id = c.survivor AND p.merged_into_id IS NOT NULL
),
canon AS (
    SELECT c.id, c.survivor FROM canon_chain c
      JOIN sports_participant p ON p.id = c.survivor AND p.merged_into_id IS NULL
)"""

# Extra grouping keys for snapshot levels.
_LEVEL_KEYS = {
    "format": GroupKey("l.format_code"),
    "root": GroupKey(
        "root.id",
        "JOIN sports_competition c ON c.id = l.competition_id "
        "JOIN sports_competition root ON root.tree_id = c.tree_id AND root.level = 0",
    ),
    "season": GroupKey(
        "sn.id",
        "JOIN sports_competition c ON c.id = l.competition_id "
        "JOIN sports_competition sn ON sn.tree_id = c.tree_id AND sn.lft <= c.lft "
        "AND sn.rght >= c.rght AND sn.type = 'season'",
    ),
}

_LINE_TABLES = {
    "bat": "cricket_cricketbattingline",
    "fld": "cricket_cricketfieldingline",
    "bowl": "cricket_cricketbowlingline",
}
_APP_COLUMNS = (
    "fixture_id, participant_id, team_id, innings_ordinal, occurred_on, competition_id, "
    "format_code, gender, season, super_over"
)


# The columns each fold reads of its lines: a line CTE read twice (the bowling lines: by
# innings and by match) is materialized, and carries only these.
_FOLD_COLUMNS = {
    "app": ("fixture_id",),
    "bat": ("runs", "balls_faced", "fours", "sixes", "outs"),
    "fld": ("catches", "stumpings", "run_outs", "substitute_catches", "substitute_stumpings",
            "substitute_run_outs"),
    "bowl": ("fixture_id", "legal_balls", "runs_conceded", "wickets", "maidens",
             "balls_per_over"),
}  # fmt: skip


def _app_source(kinds: str | None) -> str:
    """The appearances, or (for a key or filter on innings) one row per innings line of the
    given kinds ("bat", "bat,bowl,fld"): a match is then a fixture with such a line."""
    if kinds is None:
        return "cricket_cricketappearance"
    union = " UNION ALL ".join(
        f"SELECT {_APP_COLUMNS} FROM {_LINE_TABLES[kind]}" for kind in kinds.split(",")
    )
    return f"({union})"


def _fold_sql(
    scope: Scope,
    *,
    key: str | GroupKey | None = None,
    participant_ids: list[str] | None = None,
    folds: Collection[str] = FOLDS,
    participants_from: str | None = None,
) -> tuple[str, list[Any]]:
    """The fold: one row per (participant[, key]) with every figure. ``key`` adds one
    grouping column ``k`` (a snapshot level's name, or a query's ``GroupKey``). ``folds``
    names the line folds to read; the others read no line (a constant false filter), so
    their figures are zero or empty. ``participant_ids`` (or ``participants_from``, a
    query of them the statement around the fold defines) narrows to those lines."""
    group = _LEVEL_KEYS[key] if isinstance(key, str) else key or GroupKey("''")
    app_kinds = scope.appearances_from_lines()
    if group.lines and app_kinds is None:
        app_kinds = "bat,bowl,fld"
    params: list[Any] = []
    parts = []
    for name, table in (
        ("app", _app_source(app_kinds)),
        ("bat", _LINE_TABLES["bat"]),
        ("fld", _LINE_TABLES["fld"]),
        ("bowl", _LINE_TABLES["bowl"]),
    ):
        kind = ("lines" if app_kinds else "app") if name == "app" else name
        where, where_params = scope.where("l", kind)
        if name != "app" and name not in folds:
            where += " AND false"
        only = ""
        extra: list[Any] = []
        if participant_ids is not None:
            only = " AND l.participant_id = ANY(%s::uuid[])"
            extra = [participant_ids]
        elif participants_from is not None:
            only = f" AND l.participant_id = ANY(ARRAY({participants_from}))"
        parts.append(
            f"""{name}_l AS (
    SELECT COALESCE(canon.survivor, l.participant_id) AS pid, ({group.expr})::text AS k,
           {", ".join(f"l.{column}" for column in _FOLD_COLUMNS[name])}
      FROM {table} l LEFT JOIN canon ON canon.id = l.participant_id {group.join}
     WHERE {where}{only}
)"""
        )
        params += where_params + extra
    sql = f"""
WITH RECURSIVE {_CANON},
{",".join(parts)},
app AS (
    SELECT pid, k, COUNT(*) AS matches
      FROM (SELECT DISTINCT pid, k, fixture_id FROM app_l) m GROUP BY pid, k
),
bat AS (
    SELECT pid, k, COUNT(*) AS innings, SUM(runs) AS runs, SUM(balls_faced) AS balls_faced,
           SUM(fours) AS fours, SUM(sixes) AS sixes, SUM(outs) AS outs, MAX(runs) AS highest,
           -- the highest score carries its not-out marker when any innings of it was not out
           -- (the greatest of runs * 2 + not out: no ordered aggregate, so no sort)
           MOD(MAX(runs * 2 + (outs = 0)::int), 2) = 1 AS highest_not_out,
           COUNT(*) FILTER (WHERE runs = 0 AND outs > 0) AS ducks,
           COUNT(*) FILTER (WHERE runs BETWEEN 50 AND 99) AS fifties,
           COUNT(*) FILTER (WHERE runs >= 100) AS hundreds
      FROM bat_l GROUP BY pid, k
),
fld AS (
    SELECT pid, k, SUM(catches) AS catches, SUM(stumpings) AS stumpings,
           SUM(run_outs) AS run_outs, SUM(substitute_catches) AS substitute_catches,
           SUM(substitute_stumpings) AS substitute_stumpings,
           SUM(substitute_run_outs) AS substitute_run_outs
      FROM fld_l GROUP BY pid, k
),
bowl AS (
    SELECT pid, k, COUNT(*) AS bowling_innings, SUM(legal_balls) AS legal_balls,
           SUM(runs_conceded) AS runs_conceded, SUM(wickets) AS wickets,
           SUM(maidens) AS maidens,
           -- overs of each match's own length (8-ball overs count as 8 balls), in 120ths
           -- of an over: exact for 4-, 5-, 6- and 8-ball overs, so economy rounds exactly
           SUM(legal_balls * 120.0 / balls_per_over) AS over_units,
           COUNT(*) FILTER (WHERE wickets = 4) AS four_wickets,
           COUNT(*) FILTER (WHERE wickets >= 5) AS five_wickets,
           -- best figures: most wickets, then fewest runs, as the greatest of
           -- wickets * 10^6 - runs (runs stay below 10^6; no ordered aggregate, no sort)
           (MAX(wickets::bigint * 1000000 - runs_conceded) + 999999) / 1000000
             AS best_wickets,
           ((MAX(wickets::bigint * 1000000 - runs_conceded) + 999999) / 1000000) * 1000000
             - MAX(wickets::bigint * 1000000 - runs_conceded) AS best_runs
      FROM bowl_l GROUP BY pid, k
),
bowl_match AS (
    SELECT pid, k,
           COUNT(*) FILTER (WHERE wickets >= 10) AS ten_wickets,
           (MAX(wickets * 1000000 - runs) + 999999) / 1000000 AS best_match_wickets,
           ((MAX(wickets * 1000000 - runs) + 999999) / 1000000) * 1000000
             - MAX(wickets * 1000000 - runs) AS best_match_runs
      FROM (SELECT pid, k, fixture_id, SUM(wickets) AS wickets, SUM(runs_conceded) AS runs
              FROM bowl_l GROUP BY pid, k, fixture_id) m
     GROUP BY pid, k
)
SELECT app.pid AS participant_id, app.k AS k,
       app.matches,
       COALESCE(bat.innings, 0) AS innings,
       COALESCE(bat.innings, 0) - COALESCE(bat.outs, 0) AS not_outs,
       COALESCE(bat.runs, 0) AS runs,
       COALESCE(bat.balls_faced, 0) AS balls_faced, COALESCE(bat.fours, 0) AS fours,
       COALESCE(bat.sixes, 0) AS sixes, COALESCE(bat.outs, 0) AS outs,
       COALESCE(bat.ducks, 0) AS ducks,
       bat.highest, COALESCE(bat.highest_not_out, false) AS highest_not_out,
       COALESCE(bat.fifties, 0) AS fifties, COALESCE(bat.hundreds, 0) AS hundreds,
       ROUND(bat.runs::numeric / NULLIF(bat.outs, 0), 2)::float8 AS average,
       ROUND(100.0 * bat.runs / NULLIF(bat.balls_faced, 0), 2)::float8 AS strike_rate,
       COALESCE(fld.catches, 0) AS catches, COALESCE(fld.stumpings, 0) AS stumpings,
       COALESCE(fld.run_outs, 0) AS run_outs,
       COALESCE(fld.substitute_catches, 0) AS substitute_catches,
       COALESCE(fld.substitute_stumpings, 0) AS substitute_stumpings,
       COALESCE(fld.substitute_run_outs, 0) AS substitute_run_outs,
       COALESCE(bowl.bowling_innings, 0) AS bowling_innings,
       COALESCE(bowl.legal_balls, 0) AS legal_balls,
       COALESCE(bowl.runs_conceded, 0) AS runs_conceded,
       COALESCE(bowl.wickets, 0) AS wickets, COALESCE(bowl.maidens, 0) AS maidens,
       bowl.best_wickets, bowl.best_runs,
       bm.best_match_wickets, bm.best_match_runs,
       COALESCE(bowl.four_wickets, 0) AS four_wickets,
       COALESCE(bowl.five_wickets, 0) AS five_wickets,
       COALESCE(bm.ten_wickets, 0) AS ten_wickets,
       ROUND(bowl.runs_conceded::numeric / NULLIF(bowl.wickets, 0), 2)::float8
         AS bowling_average,
       ROUND(bowl.runs_conceded * 120.0 / NULLIF(bowl.over_units, 0), 2)::float8 AS economy,
       ROUND(bowl.legal_balls::numeric / NULLIF(bowl.wickets, 0), 2)::float8
         AS bowling_strike_rate
  FROM app
  LEFT JOIN bat ON bat.pid = app.pid AND bat.k = app.k
  LEFT JOIN fld ON fld.pid = app.pid AND fld.k = app.k
  LEFT JOIN bowl ON bowl.pid = app.pid AND bowl.k = app.k
  LEFT JOIN bowl_match bm ON bm.pid = app.pid AND bm.k = app.k
"""
    return sql, params


def expand_merged(participant_ids: Iterable[Any]) -> list[str]:
    """The participants and every row merged into them (at any depth)."""
    ids = sorted({str(pk) for pk in participant_ids})
    if not ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """WITH RECURSIVE m(id) AS (
                   SELECT unnest(%s::uuid[])
                   UNION SELECT p.id FROM sports_participant p JOIN m ON p.merged_into_id = m.id
               ) SELECT id::text FROM m""",
            [ids],
        )
        return [row[0] for row in cursor.fetchall()]


def _json(value: Any) -> Any:
    """A jsonb value from a raw cursor (Django's psycopg setup hands them over as text)."""
    return json.loads(value) if isinstance(value, str) else value


def _rows(cursor) -> list[dict[str, Any]]:
    columns = [c.name for c in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


_IDENTITY = """
SELECT f.*, p.name,
       (SELECT min(e.external_id) FROM sports_externalidmap e
         WHERE e.source_code = 'cricsheet' AND e.entity_type = 'participant'
           AND e.internal_id = f.participant_id) AS registry_id
  FROM ({fold}) f JOIN sports_participant p ON p.id = f.participant_id
"""


def careers(
    scope: Scope,
    *,
    participant_ids: Iterable[Any] | None = None,
    ordering: str = "-runs",
    limit: int | None = None,
    offset: int = 0,
    minimum: dict[str, int] | None = None,
    group: GroupKey | None = None,
    figures: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """Every participant's figures in ``scope`` (one row each, with name and registry id),
    folded live from the lines. ``ordering`` is a figure (``-`` for descending; ties by
    name); ``minimum`` keeps rows whose figures reach the given values; ``group`` folds one
    row per participant and key (kept as ``k``). ``figures`` names the figures the caller
    reads: only their line folds (and those of the ordering and minimum) are read, the
    other figures come back as zero or empty; by default every figure is folded."""
    expanded = expand_merged(participant_ids) if participant_ids is not None else None
    folds: Collection[str] = FOLDS
    if figures is not None:
        needed = {*figures, ordering.lstrip("-"), *(minimum or {})}
        folds = {FOLD_OF[f] for f in needed if f in FOLD_OF}
    fold, params = _fold_sql(scope, key=group, participant_ids=expanded, folds=folds)
    sql = _IDENTITY.format(fold=fold)
    descending = ordering.startswith("-")
    column = ORDERINGS.get(ordering.lstrip("-"))
    if column is None:
        raise ValueError(f"ordering: {ordering!r} is not one of {', '.join(sorted(ORDERINGS))}")
    conditions = []
    for figure, value in (minimum or {}).items():
        if figure not in FIGURES:
            raise ValueError(f"minimum: {figure!r} is not a figure")
        conditions.append(f"COALESCE(f.{figure}, 0) >= %s")
        params.append(value)
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    sql += (
        f" ORDER BY {'p.name' if column == 'name' else 'f.' + column}"
        f" {'DESC NULLS LAST' if descending else 'ASC NULLS LAST'}, p.name, f.participant_id, f.k"
    )
    if limit is not None:
        sql += " LIMIT %s OFFSET %s"
        params += [limit, offset]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = _rows(cursor)
    if group is None:
        for row in rows:
            row.pop("k", None)
    return rows


def career_count(scope: Scope, *, bowlers: bool = False) -> int:
    """How many participants have a row in ``scope`` (bowlers: a bowling row), for
    pagination."""
    where, params = scope.where("l")
    table = "cricket_cricketbowlingline" if bowlers else "cricket_cricketappearance"
    with connection.cursor() as cursor:
        cursor.execute(
            f"""WITH RECURSIVE {_CANON}
                SELECT COUNT(DISTINCT COALESCE(canon.survivor, l.participant_id))
                  FROM {table} l
                  LEFT JOIN canon ON canon.id = l.participant_id WHERE {where}""",
            params,
        )
        return cursor.fetchone()[0]


# --- snapshots ------------------------------------------------------------------------------

# (level, key, super-over modes): career per format and overall, competition root, season.
_SNAPSHOT_LEVELS = (
    ("career", "format", SUPER_OVER_MODES),
    ("career", None, SUPER_OVER_MODES),
    ("competition", "root", ("exclude",)),
    ("season", "season", ("exclude",)),
)


def snapshots_rebuild(
    *, participant_ids: Iterable[Any] | None = None, versions: dict[str, int] | None = None
) -> int:
    """Rebuild the stored snapshots of these participants (every participant when None) and
    mark them built from the running definition and a data version: ``versions[pid]``
    where given (the version a refresh bumped them to), else their current one. Returns
    the number of snapshot rows written."""
    with transaction.atomic(), connection.cursor() as cursor:
        if participant_ids is None:
            # DELETE, not TRUNCATE: the application's role has no TRUNCATE privilege.
            cursor.execute("DELETE FROM cricket_participantaggregatesnapshot")
            cursor.execute("DELETE FROM cricket_participantaggregatesnapshotstate")
            # Everyone with a line gets a version row, so their snapshot can be validated.
            cursor.execute(
                """INSERT INTO cricket_participantstatisticsversion
                       (participant_id, data_version, updated_at)
                   SELECT DISTINCT participant_id, 1, now() FROM cricket_cricketappearance
                   ON CONFLICT (participant_id) DO NOTHING"""
            )
            expanded = None
            survivors = None
        else:
            survivors = sorted({str(pk) for pk in participant_ids})
            if not survivors:
                return 0
            expanded = expand_merged(survivors)
            cursor.execute(
                "DELETE FROM cricket_participantaggregatesnapshot "
                "WHERE participant_id = ANY(%s::uuid[])",
                [expanded],
            )
        written = 0
        for level, key, modes in _SNAPSHOT_LEVELS:
            for mode in modes:
                fold, params = _fold_sql(Scope(super_overs=mode), key=key, participant_ids=expanded)
                format_expr = "f.k" if key == "format" else "''"
                competition_expr = "f.k::uuid" if key in ("root", "season") else "NULL::uuid"
                cursor.execute(
                    f"""INSERT INTO cricket_participantaggregatesnapshot
                            (participant_id, level, format_code, competition_id, super_overs, row)
                        SELECT f.participant_id, %s, {format_expr}, {competition_expr}, %s,
                               to_jsonb(f) - 'k' - 'participant_id'
                          FROM ({fold}) f""",
                    [level, mode, *params],
                )
                written += cursor.rowcount
        # The state rows: built from the version each participant has now.
        source = "cricket_participantstatisticsversion v"
        state_params: list[Any] = [DEFINITION_VERSION]
        if survivors is not None:
            versions = versions or {}
            given = [pk for pk in survivors if pk in versions]
            source = (
                "(SELECT v.participant_id, v.data_version"
                " FROM cricket_participantstatisticsversion v"
                " WHERE v.participant_id = ANY(%s::uuid[])"
                " AND NOT v.participant_id = ANY(%s::uuid[])"
                " UNION ALL SELECT unnest(%s::uuid[]), unnest(%s::bigint[])) v"
            )
            state_params += [survivors, given, given, [versions[pk] for pk in given]]
        cursor.execute(
            f"""INSERT INTO cricket_participantaggregatesnapshotstate
                    (participant_id, data_version, definition_version, refresh_count,
                     failed_attempts, built_at)
                SELECT v.participant_id, v.data_version, %s, 1, 0, now()
                  FROM {source}
                ON CONFLICT (participant_id) DO UPDATE
                   SET data_version = EXCLUDED.data_version,
                       definition_version = EXCLUDED.definition_version,
                       refresh_count = cricket_participantaggregatesnapshotstate.refresh_count + 1,
                       failed_attempts = 0, built_at = now()""",
            state_params,
        )
    return written


def snapshots_invalidate_all() -> int:
    """The wholesale invalidation of stored snapshots:
    every stored snapshot goes. Any write to aggregate inputs that does not advance
    participant versions must call it. Returns the number of rows removed."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM cricket_participantaggregatesnapshot")
        removed = cursor.rowcount
        cursor.execute("DELETE FROM cricket_participantaggregatesnapshotstate")
    return removed


_VALID = """
JOIN cricket_participantaggregatesnapshotstate st ON st.participant_id = s.participant_id
JOIN cricket_participantstatisticsversion v ON v.participant_id = s.participant_id
WHERE st.data_version = v.data_version AND st.definition_version = %(definition)s
"""


def career_table(*, format_code: str = "", super_overs: str = "exclude") -> list[dict[str, Any]]:
    """The career row of every participant for one format ("" for all formats), read from
    the valid snapshots; participants whose snapshot is stale or missing, or who had
    someone merged into them since it was built, are folded live (over their lines and
    those of everyone merged into them, as ``careers_ranked_from_snapshots`` does). A
    merged participant has no row: its lines are its survivor's. Keyed rows carry
    ``participant_id``."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""WITH RECURSIVE {_SNAPSHOT_STALE}
                SELECT r.participant_id, r.row FROM ({_SNAPSHOT_ROWS}) r
                UNION ALL SELECT id, NULL FROM stale""",
            [DEFINITION_VERSION, DEFINITION_VERSION, format_code, super_overs],
        )
        table: dict[Any, dict[str, Any]] = {}
        stale = []
        for pid, row in cursor.fetchall():
            if row is None:
                stale.append(pid)
            else:
                table[pid] = {**_json(row), "participant_id": pid}
    if stale:
        scope = Scope(format_code=format_code or None, super_overs=super_overs)
        for row in careers(scope, participant_ids=stale):
            table[row["participant_id"]] = row
    return list(table.values())


def participant_snapshots(participant_id: Any) -> list[dict[str, Any]] | None:
    """A participant's stored snapshot rows when valid, else None (fold live instead). Not
    valid either while someone merged into them still has rows of their own: the merge
    came after the build, so the participant's rows lack their lines."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT s.level, s.format_code, s.competition_id, s.super_overs, s.row
                  FROM cricket_participantaggregatesnapshot s {_VALID}
                   AND s.participant_id = %(pk)s
                   AND NOT EXISTS (
                       WITH RECURSIVE m(id) AS (
                           SELECT p.id FROM sports_participant p
                            WHERE p.merged_into_id = %(pk)s
                           UNION SELECT p.id FROM sports_participant p
                             JOIN m ON p.merged_into_id = m.id)
                       SELECT 1 FROM cricket_participantaggregatesnapshot ms
                         JOIN m ON ms.participant_id = m.id)""",
            {"definition": DEFINITION_VERSION, "pk": participant_id},
        )
        rows = _rows(cursor)
    for row in rows:
        row["row"] = _json(row["row"])
    return rows or None


# --- a format's ranking from the career snapshots -------------------------------------------

# The figures a snapshot row stores as a decimal or a flag; every other one is whole.
_DECIMAL_FIGURES = ("average", "strike_rate", "bowling_average", "economy", "bowling_strike_rate")

# Survivors whose career snapshot cannot stand for their lines now: their data version moved
# since the build (a refresh is pending), or someone merged into them after it (the merged
# participant still has rows of its own, so the survivor's rows lack its lines); and the
# lines to fold live for them, theirs and those of everyone merged into them.
_SNAPSHOT_STALE = f"""
{_CANON},
stale AS (
    SELECT v.participant_id AS id FROM cricket_participantstatisticsversion v
      JOIN sports_participant p ON p.id = v.participant_id AND p.merged_into_id IS NULL
      LEFT JOIN cricket_participantaggregatesnapshotstate st
        ON st.participant_id = v.participant_id
     WHERE st.participant_id IS NULL OR st.data_version <> v.data_version
        OR st.definition_version <> %s
    UNION
    SELECT canon.survivor FROM canon
     WHERE EXISTS (SELECT 1 FROM cricket_participantaggregatesnapshot s
                    WHERE s.participant_id = canon.id)
),
stale_lines AS (
    SELECT id FROM stale
    UNION SELECT canon.id FROM canon JOIN stale ON stale.id = canon.survivor
)"""

_SNAPSHOT_ROWS = """
SELECT s.participant_id, s.row FROM cricket_participantaggregatesnapshot s
  JOIN cricket_participantaggregatesnapshotstate st ON st.participant_id = s.participant_id
  JOIN cricket_participantstatisticsversion v ON v.participant_id = s.participant_id
  JOIN sports_participant mp ON mp.id = s.participant_id AND mp.merged_into_id IS NULL
 WHERE st.data_version = v.data_version AND st.definition_version = %s
   AND s.level = 'career' AND s.format_code = %s AND s.super_overs = %s
   AND s.participant_id NOT IN (SELECT id FROM stale)
"""


def _stored(figure: str) -> str:
    kind = "float8" if figure in _DECIMAL_FIGURES else "bigint"
    if figure == "highest_not_out":
        kind = "boolean"
    return f"(r.row->>'{figure}')::{kind}"


def careers_ranked_from_snapshots(
    scope: Scope,
    *,
    ordering: str,
    limit: int | None,
    offset: int = 0,
    minimum: dict[str, int] | None = None,
) -> list[dict[str, Any]]:
    """``careers(scope, ordering=..., limit=..., offset=..., minimum=...)`` for a scope of
    one format (or every format) and nothing else, read from the career snapshots: each
    participant's stored row while it is valid, a live fold of the lines for those whose
    row is not (see ``_SNAPSHOT_STALE``), ranked together in one statement (one query).
    The rows carry every figure (a live fold of only some folds leaves the others zero)."""
    if scope != Scope(format_code=scope.format_code, super_overs=scope.super_overs):
        raise ValueError("careers_ranked_from_snapshots: a scope of a format alone")
    column = ORDERINGS.get(ordering.lstrip("-"))
    if column is None:
        raise ValueError(f"ordering: {ordering!r} is not one of {', '.join(sorted(ORDERINGS))}")
    fold, params = _fold_sql(scope, participants_from="SELECT id FROM stale_lines")
    params = [DEFINITION_VERSION, DEFINITION_VERSION, scope.format_code or "",
              scope.super_overs, *params]  # fmt: skip
    source = (
        f"{_SNAPSHOT_ROWS} UNION ALL SELECT f.participant_id, to_jsonb(f) - 'k' - 'participant_id'"
        f" FROM ({fold}) f"
    )
    conditions = ["true"]
    for figure, value in (minimum or {}).items():
        if figure not in FIGURES:
            raise ValueError(f"minimum: {figure!r} is not a figure")
        conditions.append(f"COALESCE({_stored(figure)}, 0) >= %s")
        params.append(value)
    key = "p.name" if column == "name" else _stored(column)
    direction = "DESC NULLS LAST" if ordering.startswith("-") else "ASC NULLS LAST"
    # Rank on the ordering figure alone; only the page's rows are read out in full.
    sql = f"""
WITH RECURSIVE {_SNAPSHOT_STALE},
ranked AS (
    SELECT r.participant_id, r.row, p.name, {key} AS o
      FROM ({source}) r JOIN sports_participant p ON p.id = r.participant_id
     WHERE {" AND ".join(conditions)}
     ORDER BY o {direction}, p.name, r.participant_id
     {"LIMIT %s OFFSET %s" if limit is not None else ""}
)
SELECT r.participant_id, '' AS k, {", ".join(f"{_stored(f)} AS {f}" for f in FIGURES)},
       r.name,
       (SELECT min(e.external_id) FROM sports_externalidmap e
         WHERE e.source_code = 'cricsheet' AND e.entity_type = 'participant'
           AND e.internal_id = r.participant_id) AS registry_id
  FROM ranked r ORDER BY r.o {direction}, r.name, r.participant_id"""
    if limit is not None:
        params += [limit, offset]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = _rows(cursor)
    for row in rows:
        row.pop("k")
    return rows
