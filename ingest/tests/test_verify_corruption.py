"""Each comparison of ``verify_cricket_statistics`` can fail: one stored figure corrupted in
the database (the files unchanged) makes the command exit non-zero, naming the player or
record and the figure. The sample is imported once for the module; each test's corruption
is rolled back with it."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from cricket.models import DismissalKind
from cricket.services import SOURCE
from cricket.stats.models import (
    CricketAppearance,
    CricketBattingLine,
    CricketBowlingLine,
    CricketFieldingLine,
    CricketMatchSide,
    CricketTeamInningsLine,
)
from ingest.cricsheet.verify.rules import series_of
from ingest.tests.verify_sample import imported_once, sample_sources, write_archive
from sports.models import EntityType, ExternalIdMap, Fixture, Venue

# A one-day international of the sample, won on D/L (a revised target in the chase).
MATCH = "64820"


@pytest.fixture(scope="module")
def archive(django_db_setup, django_db_blocker, tmp_path_factory):
    with imported_once(django_db_blocker, sample_sources()):
        yield write_archive(tmp_path_factory.mktemp("verify") / "sample.tar.gz", sample_sources())


def _differences(archive) -> list[str]:
    """The command's differences; it must exit non-zero."""
    stdout = io.StringIO()
    with pytest.raises(CommandError, match="disagree"):
        call_command("verify_cricket_statistics", str(archive), show=100_000, verbosity=0,
                     stdout=stdout)  # fmt: skip
    lines = stdout.getvalue().splitlines()
    assert lines[-1].startswith("verify-stats: ") and not lines[-1].endswith(" differences=0")
    return lines[:-1]


def _fixture_id(match_id: str):
    return ExternalIdMap.objects.get(
        source_code=SOURCE, entity_type=EntityType.FIXTURE, external_id=match_id
    ).internal_id


def _registry_id(participant_id) -> str:
    return ExternalIdMap.objects.get(
        source_code=SOURCE, entity_type=EntityType.PARTICIPANT, internal_id=participant_id
    ).external_id


def _document(match_id: str) -> dict:
    return next(
        json.loads(raw)
        for name, raw in sample_sources()
        if name.rsplit("/", 1)[-1] == f"{match_id}.json"
    )


def _opener() -> CricketBattingLine:
    return CricketBattingLine.objects.get(
        fixture_id=_fixture_id(MATCH), innings_ordinal=1, position=1
    )


def test_the_command_agrees_before_any_corruption(archive, db):
    stdout = io.StringIO()
    call_command("verify_cricket_statistics", str(archive), verbosity=0, stdout=stdout)
    assert stdout.getvalue().strip().endswith(" differences=0")


def test_a_wrong_batting_position_is_named_in_the_innings_list(archive, db):
    line = _opener()
    CricketBattingLine.objects.filter(pk=line.pk).update(position=7)
    expected = f"exclude innings {_registry_id(line.participant_id)} {MATCH}#1 position: "
    assert f"{expected}engine 7, files 1" in _differences(archive)


def test_a_wrong_dismissal_is_named_in_the_innings_list(archive, db):
    line = _opener()
    was = line.dismissal_kind.code if line.dismissal_kind else "not out"
    kind = DismissalKind.objects.exclude(code=was).filter(code__in=["bowled", "lbw"]).first()
    CricketBattingLine.objects.filter(pk=line.pk).update(dismissal_kind=kind)
    expected = f"exclude innings {_registry_id(line.participant_id)} {MATCH}#1 how_out: "
    assert f"{expected}engine {kind.code}, files {was}" in _differences(archive)


def test_a_wrong_venue_and_opposition_are_named_in_the_innings_list(archive, db):
    line = _opener()
    venue = Venue.objects.create(code="nowhere", name="Nowhere Oval")
    CricketMatchSide.objects.filter(fixture_id=line.fixture_id, team_id=line.team_id).update(
        venue=venue, opposition_id=line.team_id
    )
    differences = _differences(archive)
    prefix = f"exclude innings {_registry_id(line.participant_id)} {MATCH}#1 "
    assert any(d.startswith(f"{prefix}venue: engine nowhere-oval, files ") for d in differences)
    assert any(d.startswith(f"{prefix}opposition: engine ") for d in differences)


def test_a_wrong_date_is_named_in_the_innings_list(archive, db):
    line = _opener()
    date = _document(MATCH)["info"]["dates"][0]
    CricketBattingLine.objects.filter(pk=line.pk).update(occurred_on="1999-01-01")
    expected = f"exclude innings {_registry_id(line.participant_id)} {MATCH}#1 date: "
    assert f"{expected}engine 1999-01-01, files {date}" in _differences(archive)


def test_a_wrong_series_total_of_runs_is_named_in_the_series_record(archive, db):
    line = CricketBattingLine.objects.filter(super_over=False).order_by("-runs", "id").first()
    CricketBattingLine.objects.filter(pk=line.pk).update(runs=line.runs + 1)
    rid = _registry_id(line.participant_id)
    assert any(
        d.startswith(f"record most-runs-series {rid} ") and " runs: engine " in d
        for d in _differences(archive)
    )


def test_a_wrong_series_total_of_wickets_is_named_in_the_series_record(archive, db):
    line = CricketBowlingLine.objects.filter(super_over=False).order_by("-wickets", "id").first()
    CricketBowlingLine.objects.filter(pk=line.pk).update(wickets=line.wickets + 1)
    rid = _registry_id(line.participant_id)
    assert any(
        d.startswith(f"record most-wickets-series {rid} ") and " wickets: engine " in d
        for d in _differences(archive)
    )


def test_a_wrong_innings_total_is_named_in_the_points_table(archive, db):
    # The chase: the side batting first is credited with the revised target, not its total.
    line = CricketTeamInningsLine.objects.select_related("team").get(
        fixture_id=_fixture_id(MATCH), innings_ordinal=2
    )
    CricketTeamInningsLine.objects.filter(pk=line.pk).update(total=line.total + 30)
    row = f"points {series_of(_document(MATCH)['info'])} | {line.team.name} "
    differences = _differences(archive)
    assert any(d.startswith(f"{row}runs_for: engine ") for d in differences)
    assert any(d.startswith(f"{row}net_run_rate: engine ") for d in differences)


def test_a_wrong_result_is_named_in_the_points_table(archive, db):
    fixture_id = _fixture_id(MATCH)
    line = CricketTeamInningsLine.objects.select_related("team").get(
        fixture_id=fixture_id, innings_ordinal=1
    )
    fixture = Fixture.objects.get(pk=fixture_id)
    Fixture.objects.filter(pk=fixture_id).update(result={**fixture.result, "outcome": "no_result"})
    row = f"points {series_of(_document(MATCH)['info'])} | {line.team.name} "
    assert any(d.startswith(f"{row}no_result: engine ") for d in _differences(archive))


def test_a_wrong_substitute_catch_is_named_in_the_fielding_career(archive, db):
    # A substitute who plays no match of the sample has no career row to show it in.
    players = CricketAppearance.objects.values("participant_id")
    line = (
        CricketFieldingLine.objects.filter(substitute_catches__gt=0, participant_id__in=players)
        .order_by("id")
        .first()
    )
    CricketFieldingLine.objects.filter(pk=line.pk).update(
        substitute_catches=line.substitute_catches + 1
    )
    rid = _registry_id(line.participant_id)
    assert any(
        d.startswith(f"exclude batting {rid} substitute_catches: engine ")
        for d in _differences(archive)
    )


def test_a_wrong_wicket_count_is_named_in_the_bowling_view(archive, db):
    line = CricketBowlingLine.objects.filter(super_over=False).order_by("-wickets", "id").first()
    CricketBowlingLine.objects.filter(pk=line.pk).update(wickets=line.wickets + 1)
    expected = f"view bowling {_registry_id(line.participant_id)} best_innings: engine "
    assert any(d.startswith(expected) for d in _differences(archive))
