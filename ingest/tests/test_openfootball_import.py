import json

import pytest
from django.core.management import CommandError, call_command

from sports.models import (
    Competition,
    Fixture,
    FixtureCompetitor,
    FixtureStatus,
    StatLine,
    Submission,
    TableKind,
    TimelineItem,
)
from sports.services import fixture_amend, fixture_award, points_adjustment_create, stat_table

pytestmark = pytest.mark.django_db

MATCHES = [
    {
        "round": "Matchday 1",
        "date": "2020-08-01",
        "time": "15:00",
        "team1": "Ash FC",
        "team2": "Birch FC",
        "score": {"ht": [1, 0], "ft": [2, 0]},
    },
    {
        "round": "Matchday 1",
        "date": "2020-08-01",
        "team1": "Cedar FC",
        "team2": "Damson FC",
        "score": {"ft": [1, 1]},
    },
    {
        "round": "Matchday 2",
        "date": "2020-08-08",
        "team1": "Birch FC",
        "team2": "Cedar FC",
        "score": {"ft": [0, 3]},
    },
    {
        "round": "Matchday 2",
        "date": "2020-08-08",
        "team1": "Damson FC",
        "team2": "Ash FC",
        "status": "awarded",
    },
    {"round": "Matchday 3", "date": "2020-08-15", "team1": "Ash FC", "team2": "Cedar FC"},
]


def season_file(tmp_path, matches=MATCHES, name="Test League 2020/21"):
    folder = tmp_path / "2020-21"
    folder.mkdir(exist_ok=True)
    path = folder / "tl.1.json"
    path.write_text(json.dumps({"name": name, "matches": matches}))
    return path


def run(path, **options):
    call_command(
        "import_openfootball", str(path), code="tl", name="Test League", verbosity=0, **options
    )


def snapshot():
    return {
        "fixtures": list(Fixture.objects.order_by("id").values_list("id", "updated_at")),
        "competitors": list(
            FixtureCompetitor.objects.order_by("id").values_list("id", "updated_at")
        ),
        "lines": list(StatLine.objects.order_by("id").values_list("id", "values")),
        "timeline": TimelineItem.objects.count(),
        "competitions": Competition.objects.count(),
        "submissions": Submission.objects.count(),
    }


def test_import_builds_league_season_round_fixtures(tmp_path):
    run(season_file(tmp_path))
    season = Competition.objects.get(code="tl-2020-21")
    assert season.parent.code == "tl" and season.parent.type == "league"
    assert sorted(season.get_children().values_list("name", flat=True)) == [
        "Matchday 1",
        "Matchday 2",
        "Matchday 3",
    ]
    assert Fixture.objects.under(season).count() == 5


def test_scores_ranks_and_statuses_come_from_the_file(tmp_path):
    run(season_file(tmp_path))
    win = Fixture.objects.get(name="Ash FC v Birch FC")
    assert win.status == FixtureStatus.COMPLETED
    assert win.result == {
        "outcome": "win",
        "score": {"home": 2, "away": 0},
        "half_time": {"home": 1, "away": 0},
    }
    draw = Fixture.objects.get(name="Cedar FC v Damson FC")
    assert sorted(draw.competitors.values_list("rank", flat=True)) == [1, 1]
    assert Fixture.objects.get(name="Ash FC v Cedar FC").status == FixtureStatus.SCHEDULED


def test_every_fixture_is_first_seen_in_an_accepted_submission(tmp_path):
    run(season_file(tmp_path))
    assert Fixture.objects.public().count() == 5


def test_a_second_run_changes_no_row(tmp_path):
    path = season_file(tmp_path)
    run(path)
    before = snapshot()
    run(path)
    assert snapshot() == before


def test_a_field_an_editor_pinned_survives_a_reimport(tmp_path, editor):
    path = season_file(tmp_path)
    run(path)
    fixture = Fixture.objects.get(name="Ash FC v Birch FC")
    fixture_amend(fixture=fixture, changes={"name": "The Derby"}, reason="local name", actor=editor)
    changed = [dict(m) for m in MATCHES]
    changed[0]["time"] = "17:30"  # the source moves the kick-off too
    run(season_file(tmp_path, changed))
    fixture.refresh_from_db()
    assert fixture.name == "The Derby"
    assert fixture.scheduled_start.hour == 17  # not pinned, so the source's change applies


def test_an_awarded_match_waits_for_an_editor_to_name_the_winner(tmp_path, editor):
    path = season_file(tmp_path)
    run(path)
    awarded = Fixture.objects.get(name="Damson FC v Ash FC")
    assert awarded.status == FixtureStatus.COMPLETED
    assert list(awarded.competitors.values_list("rank", flat=True)) == [None, None]
    winner = awarded.competitors.get(alignment="away")
    fixture_award(fixture=awarded, winner=winner, actor=editor, reason="opponent withdrew")
    run(path)  # the next import keeps the decision
    winner.refresh_from_db()
    assert (winner.rank, winner.win_method) == (1, "AWARDED")
    table = {
        r["team"]: r
        for r in stat_table(
            node=Competition.objects.get(code="tl-2020-21"), kind=TableKind.STANDINGS
        )
    }
    assert (table["Ash FC"]["won"], table["Ash FC"]["points"]) == (2, 6)
    assert table["Damson FC"]["lost"] == 1


def test_standings_count_played_won_drawn_lost_goals_and_points(tmp_path):
    run(season_file(tmp_path))
    table = stat_table(node=Competition.objects.get(code="tl-2020-21"), kind=TableKind.STANDINGS)
    assert [
        (
            r["team"],
            r["played"],
            r["won"],
            r["drawn"],
            r["lost"],
            r["goals_for"],
            r["goals_against"],
            r["goal_difference"],
            r["points"],
        )
        for r in table
    ] == [
        ("Cedar FC", 2, 1, 1, 0, 4, 1, 3, 4),
        ("Ash FC", 1, 1, 0, 0, 2, 0, 2, 3),
        ("Damson FC", 1, 0, 1, 0, 1, 1, 0, 1),
        ("Birch FC", 2, 0, 0, 2, 0, 5, -5, 0),
    ]


def test_a_points_deduction_is_part_of_the_fold(tmp_path, editor):
    run(season_file(tmp_path))
    season = Competition.objects.get(code="tl-2020-21")
    cedar = FixtureCompetitor.objects.filter(participant__name="Cedar FC").first().participant
    stat_table(node=season, kind=TableKind.STANDINGS)  # cached before the decision
    points_adjustment_create(
        competition=season,
        participant=cedar,
        points=-3,
        reason="breach of financial rules",
        actor=editor,
    )
    table = {r["team"]: r for r in stat_table(node=season, kind=TableKind.STANDINGS)}
    assert (table["Cedar FC"]["points"], table["Cedar FC"]["adjustment"]) == (1, -3)
    assert table["Ash FC"]["position"] == 1


def test_the_points_rule_comes_from_the_league_config(tmp_path):
    run(season_file(tmp_path), points="2,1,0")
    table = {
        r["team"]: r
        for r in stat_table(
            node=Competition.objects.get(code="tl-2020-21"), kind=TableKind.STANDINGS
        )
    }
    assert table["Ash FC"]["points"] == 2


def test_standings_command_prints_json_rows(tmp_path, capsys):
    run(season_file(tmp_path))
    capsys.readouterr()  # drop the import's summary line
    call_command("standings", "tl-2020-21", json=True)
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {
        "position": 1,
        "team": "Cedar FC",
        "played": 2,
        "won": 1,
        "drawn": 1,
        "lost": 0,
        "goals_for": 4,
        "goals_against": 1,
        "goal_difference": 3,
        "points": 4,
    }


BROKEN = [
    ("truncated", '{"name": "x", "matches": [', "not valid JSON"),
    ("no matches", '{"name": "League 2020/21"}', "$.matches: a non-empty list is required"),
    (
        "negative score",
        json.dumps(
            {
                "name": "L 2020/21",
                "matches": [{"round": "R1", "team1": "A", "team2": "B", "score": {"ft": [-1, 0]}}],
            }
        ),
        "$.matches[0].score.ft: a score must be two whole numbers >= 0",
    ),
    (
        "team plays itself",
        json.dumps({"name": "L 2020/21", "matches": [{"round": "R1", "team1": "A", "team2": "A"}]}),
        "a team cannot play itself",
    ),
    (
        "bad date",
        json.dumps(
            {
                "name": "L 2020/21",
                "matches": [{"round": "R1", "team1": "A", "team2": "B", "date": "31/12/2020"}],
            }
        ),
        "not a date",
    ),
    (
        "unknown status",
        json.dumps(
            {
                "name": "L 2020/21",
                "matches": [{"round": "R1", "team1": "A", "team2": "B", "status": "maybe"}],
            }
        ),
        "unknown status",
    ),
    (
        "duplicate",
        json.dumps(
            {
                "name": "L 2020/21",
                "matches": [
                    {"round": "R1", "team1": "A", "team2": "B"},
                    {"round": "R1", "team1": "A", "team2": "B"},
                ],
            }
        ),
        "$.matches[1]: the same round and teams as $.matches[0]",
    ),
]


@pytest.mark.parametrize("label,content,message", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_file_is_refused_with_its_place_and_nothing_is_written(
    tmp_path, label, content, message
):
    folder = tmp_path / "2020-21"
    folder.mkdir()
    path = folder / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError) as excinfo:
        run(path)
    assert str(path) in str(excinfo.value) and message in str(excinfo.value)
    assert Fixture.objects.count() == Competition.objects.count() == 0


def test_every_problem_in_a_file_is_listed_not_just_the_first(tmp_path):
    folder = tmp_path / "2020-21"
    folder.mkdir()
    path = folder / "bad.json"
    path.write_text(
        json.dumps(
            {
                "name": "L 2020/21",
                "matches": [
                    {"round": "R1", "team1": "A", "team2": "A"},
                    {"round": "R1", "team1": "C", "team2": "D", "score": {"ft": [1]}},
                ],
            }
        )
    )
    with pytest.raises(CommandError, match="2 problem"):
        run(path)
