"""Compare every figure the engine derives with a recomputation straight from the files
(``ingest.cricsheet.verify``)."""

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from cricket.points import points_config, points_table
from cricket.services import SOURCE
from cricket.stats.aggregates import Scope, careers
from cricket.stats.figures import innings_rows, player_rows, team_rows
from cricket.stats.partnerships import records_rebuild, records_stale
from cricket.stats.query import StatsQuery
from cricket.stats.records import record_rows
from cricket.stats.records_filters import records_filter_from_params
from cricket.stats.records_models import CricketPartnership
from ingest.cricsheet.importer import iter_sources, match_id_of
from ingest.cricsheet.verify import (
    BATTING_COLUMNS,
    BOWLING_COLUMNS,
    RECORD_KINDS,
    Recomputation,
    compare,
    compare_records,
    engine_innings_rows,
    engine_rows,
    engine_team_rows,
    partnerships_in_file,
)
from ingest.cricsheet.verify.points import POINTS_COLUMNS, PointsFold
from ingest.cricsheet.verify.rules import series_label
from ingest.cricsheet.verify.views import VIEWS, views
from sports.models import Competition, EntityType, ExternalIdMap, Fixture, PointsAdjustment

# The development corpus sits in the shared data folder next to the checkout. It is spelled
# out here rather than taken from the test plugin, which imports pytest: a production install
# has no pytest, and this command must still start there.
DEV_CORPUS = settings.BASE_DIR.parent / "shared" / "data" / "cricsheet" / "dev_matches.tar.gz"


def engine_innings(careers_rows: list[dict], *, super_overs: str = "exclude") -> dict:
    """Every player's innings list as the engine answers it (``figures.innings_rows``, one
    read per player), keyed as ``Recomputation.innings_lists`` keys the files' innings."""
    query = StatsQuery.parse({"super_overs": super_overs}, view="innings")
    match_ids = _match_ids()
    return engine_innings_rows(
        (
            (row["registry_id"], innings_rows(query, participant_id=row["participant_id"]))
            for row in careers_rows
            if row["innings"]
        ),
        match_ids,
    )


def engine_views() -> dict[str, dict]:
    """Every row of the batting, bowling and fielding views with no filter, as the API
    answers them, keyed ``"<view> <registry id>"`` as ``views.views`` keys the files'."""
    rows = {}
    for view in VIEWS:
        for row in player_rows(StatsQuery.parse({}, view=view)):
            rows[f"{view} {row['registry_id']}"] = {
                k: v for k, v in row.items() if k not in ("participant_id", "registry_id", "name")
            }
    return rows


def engine_partnerships() -> dict:
    """Every stand the engine answers, keyed as ``partnerships_in_file`` keys the files'
    stands. Stands are derived on read (a records read rebuilds a fixture's stale rows from
    its live deliveries first), so the stale fixtures' stands are rebuilt here the same way;
    the statistic lines are never touched, so a fixture whose refresh is still owed shows as
    a difference in the careers."""
    records_rebuild(fixture_ids=records_stale())
    fixtures = _match_ids()
    registry = _registry_ids()
    rows: dict[str, dict] = {}
    seen: dict[tuple, int] = {}
    for stand in CricketPartnership.objects.order_by("fixture_id", "innings_ordinal", "ordinal"):
        innings = (str(stand.fixture_id), stand.innings_ordinal)
        seen[innings] = seen.get(innings, 0) + 1
        match_id = fixtures.get(innings[0], innings[0])
        pair = [registry.get(str(p), str(p)) for p in (stand.batter_one_id, stand.batter_two_id)]
        rows[f"{match_id}#{stand.innings_ordinal}.{seen[innings]}"] = {
            "pair": " ".join(sorted(pair)),
            "wicket": stand.wicket,
            "runs": stand.runs,
            "balls": stand.balls,
            "unbroken": stand.unbroken,
        }
    return rows


# How the engine's row of each record kind is keyed and ranked as ``Recomputation.records``
# keys and ranks the files' rows: the key's fields, the ranked figures (a leading "-" negates
# one) and the compared figures ("not_out" is read from the row's outs where it has none).
_RECORD_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "highest-innings": (
        ("participant_id", "fixture_id", "innings_ordinal"),
        ("-runs", "balls"),
        ("runs", "balls", "not_out"),
    ),
    "best-bowling-innings": (
        ("participant_id", "fixture_id", "innings_ordinal"),
        ("-wickets", "runs", "balls"),
        ("wickets", "runs", "balls"),
    ),
    "best-bowling-match": (
        ("participant_id", "fixture_id"),
        ("-wickets", "runs", "balls"),
        ("wickets", "runs", "balls"),
    ),
    "highest-totals": (
        ("fixture_id", "innings_ordinal"),
        ("-total", "balls"),
        ("total", "wickets", "balls"),
    ),
    "lowest-totals": (
        ("fixture_id", "innings_ordinal"),
        ("total", "-balls"),
        ("total", "wickets", "balls"),
    ),
    "most-runs-season": (("participant_id", "season"), ("-runs", "innings"), ("runs", "innings")),
    "most-runs-series": (
        ("participant_id", "series_id"),
        ("-runs", "innings"),
        ("runs", "innings"),
    ),
    "most-wickets-series": (
        ("participant_id", "series_id"),
        ("-wickets", "runs"),
        ("wickets", "runs"),
    ),
    "most-wickets-season": (
        ("participant_id", "season"),
        ("-wickets", "runs"),
        ("wickets", "runs"),
    ),
    "fastest-fifties": (
        ("participant_id", "fixture_id", "innings_ordinal"),
        ("balls", "-runs"),
        ("balls", "runs", "not_out"),
    ),
    "fastest-hundreds": (
        ("participant_id", "fixture_id", "innings_ordinal"),
        ("balls", "-runs"),
        ("balls", "runs", "not_out"),
    ),
}


def engine_records(*, limit: int) -> dict[str, list[tuple[tuple, tuple, dict]]]:
    """The first ``limit`` rows of each record kind the files are recomputed for, with no
    filter, as the records read answers them, keyed and ranked as the files' rows."""
    records_rebuild(fixture_ids=records_stale())  # milestones are derived on read too
    fixtures = _match_ids()
    registry = _registry_ids()
    series = {str(pk): label for label, pk in _series_nodes().items()}
    rf = records_filter_from_params({})
    found = {}
    for kind in RECORD_KINDS:
        key_fields, rank_fields, figure_fields = _RECORD_SHAPES[kind]
        rows = []
        for row in record_rows(kind, rf)[:limit]:
            if "not_out" not in row and "outs" in row:
                row["not_out"] = not row["outs"]
            names = {"participant_id": registry, "fixture_id": fixtures, "series_id": series}
            key = tuple(
                names[f].get(str(row[f]), str(row[f])) if f in names else row[f] for f in key_fields
            )
            rank = tuple(-row[f[1:]] if f.startswith("-") else row[f] for f in rank_fields)
            rows.append((key, rank, {f: row[f] for f in figure_fields}))
        found[kind] = rows
    return found


def _series_nodes() -> dict[str, Any]:
    """Each series node (a season node of cricket's competition tree) by the label
    ``series_of`` gives the files' matches: "<its parent's name> / <its name>"."""
    return {
        series_label(f"{node.parent.name} / {node.name}" if node.parent else node.name): node.pk
        for node in Competition.objects.filter(
            type="season", sport__code="cricket", merged_into__isnull=True
        ).select_related("parent")
    }


def engine_points_tables(
    labels: Iterable[str],
) -> tuple[dict[str, dict], dict[str, tuple[dict[str, int], str, dict[str, int]]]]:
    """The points table of every series node, each row keyed ``"<series> | <team>"`` as
    ``PointsFold.tables`` keys the files' rows, and the settings the files' tables are
    folded under (points per result, how a decided tie counts, adjustments), for every
    series label in ``labels`` (a series with no node is folded under the defaults, and
    its rows show as the files' only)."""
    nodes = {pk: label for label, pk in _series_nodes().items()}
    rows: dict[str, dict] = {}
    rules: dict[str, tuple[dict[str, int], str, dict[str, int]]] = {
        label: ({"win": 2, "loss": 0, "tie": 1, "draw": 1, "no_result": 1}, "win", {})
        for label in labels
    }
    for node in Competition.objects.filter(pk__in=nodes):
        label = nodes[node.pk]
        for row in points_table(node):
            rows[f"{label} | {row['team']}"] = {c: row[c] for c in POINTS_COLUMNS}
        points, _, decider = points_config(node)
        adjustments: dict[str, int] = defaultdict(int)
        for team, delta in PointsAdjustment.objects.filter(
            competition__tree_id=node.tree_id,
            competition__lft__gte=node.lft,
            competition__rght__lte=node.rght,
        ).values_list("participant__name", "points"):
            adjustments[team] += delta
        rules[label] = (points, decider, dict(adjustments))
    return rows, rules


def _registry_ids() -> dict[str, str]:
    return {
        str(internal): external
        for internal, external in ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.PARTICIPANT
        ).values_list("internal_id", "external_id")
    }


def _match_ids() -> dict[str, str]:
    return {
        str(fixture_id): match_id
        for match_id, fixture_id in ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.FIXTURE
        ).values_list("external_id", "internal_id")
    }


class Command(BaseCommand):
    help = (
        "Recompute every batting, bowling and fielding career, every player's innings list "
        "(figures, date, team, opposition, venue, position, how out), every partnership, "
        "every team's record, every series' points table with its net run rate and the first "
        "rows of each record (highest innings, best bowling, team totals, most in a season "
        "and in a series, fastest fifties and hundreds) straight from Cricsheet files (not "
        "through the engine) and compare them with the engine's in this database, figure by "
        "figure, in the standard and the super-over scope. Only files whose match is "
        "imported and public are read. Exits non-zero on any difference."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", type=Path, default=[DEV_CORPUS])
        parser.add_argument("--show", type=int, default=20, help="Differences to print.")
        parser.add_argument(
            "--records",
            type=int,
            default=100,
            help="Rows of each record kind to compare (the first, in the engine's order).",
        )

    def handle(self, *args, paths, show, records, **options):
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or directory: {', '.join(missing)}")
        public = set(Fixture.objects.public().values_list("pk", flat=True))
        imported = {
            match_id
            for match_id, fixture_id in ExternalIdMap.objects.filter(
                source_code=SOURCE, entity_type=EntityType.FIXTURE
            ).values_list("external_id", "internal_id")
            if fixture_id in public
        }
        folds = {mode: Recomputation(super_overs=mode) for mode in ("exclude", "only")}
        read = 0
        stands: dict[str, dict] = {}
        tables = PointsFold()
        with tqdm(unit="match", disable=options["verbosity"] == 0) as bar:
            for filename, raw in iter_sources(paths):
                match_id = match_id_of(filename)
                if match_id in imported:
                    document = json.loads(raw)
                    for fold in folds.values():
                        fold.add(document, match_id=match_id)
                    stands.update(partnerships_in_file(document, match_id=match_id))
                    tables.add(document, match_id=match_id)
                    read += 1
                bar.update(1)
        if read != len(imported):
            self.stderr.write(
                f"{len(imported) - read} imported match(es) have no file among the paths; "
                "their figures cannot agree"
            )
        problems = []
        players = 0
        innings_read = 0
        for mode, fold in folds.items():
            rows = careers(Scope(super_overs=mode))
            for label, columns, files in (
                ("batting", BATTING_COLUMNS, fold.batting()),
                ("bowling", BOWLING_COLUMNS, fold.bowling()),
            ):
                players += len(files)
                problems += [
                    f"{mode} {label} {p}" for p in compare(engine_rows(rows, columns), files)
                ]
            innings = fold.innings_lists()
            innings_read += len(innings)
            problems += [
                f"{mode} innings {p}"
                for p in compare(engine_innings(rows, super_overs=mode), innings)
            ]
        problems += [f"view {p}" for p in compare(engine_views(), views(folds["exclude"]))]
        problems += [f"partnership {p}" for p in compare(engine_partnerships(), stands)]
        teams = folds["exclude"].teams()
        problems += [
            f"team {p}"
            for p in compare(engine_team_rows(team_rows(StatsQuery.parse({}, view="team"))), teams)
        ]
        files_records = folds["exclude"].records()
        for kind, rows in engine_records(limit=records).items():
            problems += [
                f"record {p}"
                for p in compare_records(kind, rows, files_records[kind], limit=records)
            ]
        engine_tables, rules = engine_points_tables(tables.series)
        problems += [f"points {p}" for p in compare(engine_tables, tables.tables(rules))]
        for line in problems[:show]:
            self.stdout.write(line)
        self.stdout.write(
            f"verify-stats: matches={read} careers={players} innings={innings_read} "
            f"partnerships={len(stands)} records={len(RECORD_KINDS)}x{records} "
            f"points_tables={len(rules)} "
            f"differences={len(problems)}"
        )
        if problems or read != len(imported):
            raise CommandError("the engine and the files disagree")
