"""The engine against an independent recomputation straight from the JSON files, on real
matches chosen for every edge case of the data README (``verify_sample``), imported once
for the module."""

import io
import json

import pytest
from django.core.management import call_command

from cricket.stats.aggregates import Scope, careers
from cricket.stats.figures import team_rows
from cricket.stats.query import StatsQuery
from ingest.cricsheet.importer import match_id_of
from ingest.cricsheet.verify import (
    BATTING_COLUMNS,
    BOWLING_COLUMNS,
    RECORD_KINDS,
    Recomputation,
    compare,
    compare_records,
    engine_rows,
    engine_team_rows,
    partnerships_in_file,
    recompute,
)
from ingest.cricsheet.verify.points import PointsFold
from ingest.cricsheet.verify.rules import series_of
from ingest.cricsheet.verify.views import views
from ingest.management.commands.verify_cricket_statistics import (
    engine_innings,
    engine_partnerships,
    engine_points_tables,
    engine_records,
    engine_views,
)
from ingest.tests.verify_sample import imported_once, sample_sources, write_archive


@pytest.fixture(scope="module")
def sources(django_db_setup, django_db_blocker):
    with imported_once(django_db_blocker, sample_sources()):
        yield sample_sources()


def test_engine_careers_equal_a_recomputation_from_the_files_in_every_scope(sources, db):
    for scope in ({}, {"super_overs": "only"}, {"format_code": "Test"}, {"gender": "female"}):
        batting, bowling = recompute(sources, **scope)
        rows = careers(Scope(**scope))
        assert compare(engine_rows(rows, BATTING_COLUMNS), batting) == [], scope
        assert compare(engine_rows(rows, BOWLING_COLUMNS), bowling) == [], scope
        assert batting, scope
    for scope, params in (({}, {}), ({"format_code": "Test"}, {"format": "Test"})):
        fold = Recomputation(**scope)
        for filename, raw in sources:
            fold.add_file(raw, match_id=match_id_of(filename))
        teams = team_rows(StatsQuery.parse(params, view="team"))
        assert compare(engine_team_rows(teams), fold.teams()) == [], scope
        assert teams, scope


def test_every_row_of_the_player_views_equals_a_recomputation_from_the_files(sources, db):
    fold = Recomputation()
    for filename, raw in sources:
        fold.add_file(raw, match_id=match_id_of(filename))
    files = views(fold)
    engine = engine_views()
    assert compare(engine, files) == []
    # Every field a view shows is recomputed, the shown figures ("152*", "5/20") too.
    for key, row in engine.items():
        assert set(row) == set(files[key]), key
    assert any(row.get("highest_score", "").endswith("*") for row in files.values())
    assert any(row.get("sub_catches") for row in files.values())


def test_every_innings_list_equals_a_recomputation_from_the_files(sources, db):
    for mode in ("exclude", "only"):
        fold = Recomputation(super_overs=mode)
        for filename, raw in sources:
            fold.add_file(raw, match_id=match_id_of(filename))
        files = fold.innings_lists()
        engine = engine_innings(careers(Scope(super_overs=mode)), super_overs=mode)
        assert compare(engine, files) == [], mode
        assert files, mode
        if mode == "exclude":
            # The sample's innings lists hit the edge cases of how an innings ends.
            kinds = {row["how_out"] for row in files.values()}
            assert {"not out", "retired-hurt", "caught-and-bowled", "run-out"} <= kinds
            assert max(row["position"] for row in files.values()) == 11


def test_every_series_points_table_equals_a_recomputation_from_the_files(sources, db):
    fold = PointsFold()
    for filename, raw in sources:
        fold.add(json.loads(raw), match_id=match_id_of(filename))
    engine, rules = engine_points_tables(fold.series)
    files = fold.tables(rules)
    assert compare(engine, files) == []
    assert any(row["no_result"] for row in files.values())
    assert any(row["tied"] for row in files.values())
    assert sum(row["net_run_rate"] is not None for row in files.values()) > 20


def test_every_partnership_equals_a_recomputation_from_the_files(sources, db):
    files = {}
    for filename, raw in sources:
        files.update(partnerships_in_file(json.loads(raw), match_id=match_id_of(filename)))
    assert compare(engine_partnerships(), files) == []
    assert len(files) > 100
    assert any(row["unbroken"] for row in files.values())


def test_the_first_rows_of_every_record_equal_a_recomputation_from_the_files(sources, db):
    fold = Recomputation()
    for filename, raw in sources:
        fold.add_file(raw, match_id=match_id_of(filename))
    files = fold.records()
    engine = engine_records(limit=30)
    assert set(engine) == set(RECORD_KINDS)
    for kind, rows in engine.items():
        assert compare_records(kind, rows, files[kind], limit=30) == [], kind
        assert rows, kind


def test_the_record_comparison_names_a_wrong_rank_a_wrong_figure_and_a_missing_row():
    files = {
        ("p1", "m1", 1): ((-120, 90), {"runs": 120, "balls": 90}),
        ("p2", "m1", 2): ((-99, 80), {"runs": 99, "balls": 80}),
        ("p3", "m2", 1): ((-99, 85), {"runs": 99, "balls": 85}),
    }
    # Ties in either order agree.
    tied = [
        (("p1", "m1", 1), (-120, 90), {"runs": 120, "balls": 90}),
        (("p3", "m2", 1), (-99, 85), {"runs": 99, "balls": 85}),
    ]
    assert compare_records("highest-innings", tied[:1], files, limit=1) == []
    engine = [
        (("p1", "m1", 1), (-120, 90), {"runs": 120, "balls": 91}),
        (("p3", "m2", 1), (-99, 85), {"runs": 99, "balls": 85}),
    ]
    assert compare_records("highest-innings", engine, files, limit=2) == [
        "highest-innings #2: engine ranks (-99, 85), files (-99, 80)",
        "highest-innings p1 m1 1 balls: engine 91, files 90",
    ]
    assert compare_records("highest-innings", engine[:1], files, limit=2)[0] == (
        "highest-innings: engine 1 rows, files 2"
    )
    stray = [(("p9", "m9", 1), (-120, 90), {"runs": 120, "balls": 90})]
    assert compare_records("highest-innings", stray, files, limit=1) == [
        "highest-innings p9 m9 1: in the engine only"
    ]


def test_the_command_reads_every_view_of_the_sample_and_agrees(sources, db, tmp_path):
    archive = write_archive(tmp_path / "sample.tar.gz", sources)
    stdout = io.StringIO()
    call_command("verify_cricket_statistics", str(archive), verbosity=0, stdout=stdout)
    last = stdout.getvalue().strip().splitlines()[-1]
    assert last.startswith(f"verify-stats: matches={len(sources)} ")
    assert " innings=" in last and " partnerships=" in last and last.endswith(" differences=0")
    assert f" records={len(RECORD_KINDS)}x" in last and " points_tables=" in last


def test_the_comparison_names_each_differing_figure():
    engine = {"x1": {"runs": 10, "outs": 1}, "x2": {"runs": 1, "outs": 0}}
    files = {"x1": {"runs": 12, "outs": 1}, "x3": {"runs": 0, "outs": 0}}
    assert compare(engine, files) == [
        "x2: in the engine only",
        "x3: in the files only",
        "x1 runs: engine 10, files 12",
    ]


def test_an_event_spelled_with_a_curly_or_a_straight_apostrophe_is_one_series():
    info = {"gender": "male", "season": "2023/24", "dates": ["2023-10-30"]}
    curly = series_of({**info, "event": {"name": "ICC Men\u2019s T20 World Cup Asia Qualifier"}})
    straight = series_of({**info, "event": {"name": "ICC Men's T20 World Cup Asia Qualifier"}})
    assert curly == straight == "ICC Men's T20 World Cup Asia Qualifier / 2023/24"
