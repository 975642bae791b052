"""Shipped sport definitions: published once, pinned by every new fixture, enforced on
every write of ``meta``, ``format`` and competitor status codes."""

from __future__ import annotations

import dataclasses
import json
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cricket.plugin import CricketPlugin
from sports.models import (
    Fixture,
    FixtureCompetitor,
    Sport,
    SportDefinitionVersion,
    Submission,
    SubmissionKind,
)
from sports.plugins.registry import get_plugin
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    fixture_amend,
    fixture_command,
    fixture_create,
    fixture_import,
    fixture_results_record,
    shipped_definitions,
    sport_definition_ensure,
    submission_record,
)
from sports.services import definitions as definitions_module
from sports.services.definitions import _read_file
from sports.tests.factories import CompetitionFactory, TeamFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def football():
    sport_definition_ensure(actor="t", sports=["football"])
    return Sport.objects.get(code="football")


@pytest.fixture
def league(football):
    return CompetitionFactory(sport=football, code="league")


@pytest.fixture
def match(league):
    return fixture_create(
        competition=league,
        code="m1",
        name="Rovers v United",
        actor="t",
        competitors=[
            CompetitorSpec(participant=TeamFactory(), alignment="home"),
            CompetitorSpec(participant=TeamFactory(), alignment="away"),
        ],
    )


def _writes(queries) -> list[str]:
    return [
        q["sql"]
        for q in queries
        if q["sql"].lstrip().split(" ", 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}
    ]


def _changed_football(monkeypatch, **changes):
    """The shipped definitions with football's body changed, as a later release ships it."""
    shipped = dict(shipped_definitions())
    shipped["football"] = dataclasses.replace(shipped["football"], **changes)
    monkeypatch.setattr(definitions_module, "shipped_definitions", lambda: shipped)


def test_ensure_publishes_version_one_of_every_shipped_sport():
    published = sport_definition_ensure(actor="t")
    assert sorted(v.sport.code for v in published) == sorted(shipped_definitions())
    assert {v.version for v in published} == {1}
    assert {"cricket", "football", "athletics", "swimming"} <= set(shipped_definitions())


def test_a_second_ensure_publishes_nothing_and_writes_nothing():
    sport_definition_ensure(actor="t")
    with CaptureQueriesContext(connection) as queries:
        assert sport_definition_ensure(actor="t") == []
    assert _writes(queries.captured_queries) == []
    assert SportDefinitionVersion.objects.filter(version__gt=1).count() == 0


def test_ensure_makes_a_missing_sport_under_its_shipped_parent():
    sport_definition_ensure(actor="t", sports=["swimming"])
    swimming = Sport.objects.get(code="swimming")
    assert (swimming.parent.code, swimming.parent.name) == ("aquatics", "Aquatics")
    assert swimming.definitions.get().plugin == "ranked_field"


def test_ensure_leaves_a_sport_with_no_shipped_definition_alone():
    assert sport_definition_ensure(actor="t", sports=["kabaddi"]) == []
    assert not Sport.objects.filter(code="kabaddi").exists()


def test_a_new_fixture_pins_its_sports_current_version(match, football):
    assert match.definition_version == football.definitions.get(version=1)


def test_a_changed_shipped_definition_leaves_existing_fixtures_on_theirs(
    monkeypatch, match, league, football
):
    _changed_football(monkeypatch, status_codes={"W/O": "DNS", "AWD": "FINISHED"})
    [published] = sport_definition_ensure(actor="t", sports=["football"])
    assert published.version == 2
    assert Fixture.objects.get(pk=match.pk).definition_version.version == 1
    later = fixture_create(competition=league, code="m2", actor="t")
    assert later.definition_version == published


def test_changed_notes_alone_publish_no_new_version(monkeypatch, football):
    _changed_football(monkeypatch, notes="Reworded.")
    assert sport_definition_ensure(actor="t", sports=["football"]) == []


def test_a_bad_meta_is_refused_by_fixture_create_naming_the_field(league):
    with pytest.raises(ValidationError) as refused:
        fixture_create(competition=league, code="m2", actor="t", meta={"attendance": -5})
    assert "meta/attendance: -5 is less than the minimum of 0" in str(refused.value)
    assert not Fixture.objects.filter(code="m2").exists()


def test_an_unknown_meta_key_is_refused_by_fixture_create(league):
    with pytest.raises(ValidationError) as refused:
        fixture_create(competition=league, code="m2", actor="t", meta={"atendance": 5})
    assert "'atendance' was unexpected" in str(refused.value)


def test_a_bad_format_is_refused_by_fixture_create_naming_the_field(league):
    with pytest.raises(ValidationError) as refused:
        fixture_create(competition=league, code="m2", actor="t", format={"periods": 0})
    assert "format/periods" in refused.value.message_dict["format"][0]


def test_a_bad_meta_is_refused_by_fixture_amend(match):
    with pytest.raises(ValidationError) as refused:
        fixture_amend(fixture=match, changes={"meta": {"attendance": -5}}, reason="r", actor="t")
    assert "meta/attendance" in refused.value.message_dict["meta"][0]
    assert Fixture.objects.get(pk=match.pk).meta == {}


def test_a_good_meta_is_amended_and_pinned(match):
    fixture_amend(fixture=match, changes={"meta": {"attendance": 5000}}, reason="r", actor="t")
    fixture = Fixture.objects.get(pk=match.pk)
    assert (fixture.meta, fixture.pinned) == ({"attendance": 5000}, ["meta"])


def test_a_bad_meta_is_refused_when_an_import_updates_a_fixture(league):
    submission = submission_record(kind=SubmissionKind.LEAGUE_IMPORT, source_code="feed", actor="t")
    fixture_import(
        source_code="feed",
        external_id="1",
        competition=league,
        code="m9",
        values={"name": "A v B"},
        competitors=[],
        submission=submission,
        actor="t",
    )
    with pytest.raises(ValidationError) as refused:
        fixture_import(
            source_code="feed",
            external_id="1",
            competition=league,
            code="m9",
            values={"meta": {"attendance": "many"}},
            competitors=[],
            submission=submission,
            actor="t",
        )
    assert "meta/attendance: 'many' is not of type 'integer'" in str(refused.value)
    assert Fixture.objects.get(code="m9").meta == {}


def test_an_update_is_checked_against_the_pinned_version_not_a_later_one(
    monkeypatch, match, football
):
    _changed_football(
        monkeypatch,
        meta_schema={"type": "object", "properties": {"attendance": {"type": "string"}}},
    )
    sport_definition_ensure(actor="t", sports=["football"])
    fixture_amend(fixture=match, changes={"meta": {"attendance": 10}}, reason="r", actor="t")
    assert Fixture.objects.get(pk=match.pk).meta == {"attendance": 10}


def test_a_status_code_the_definition_does_not_declare_is_refused(match):
    home = FixtureCompetitor.objects.get(fixture=match, alignment="home")
    with pytest.raises(ValidationError) as refused:
        fixture_results_record(
            fixture=match, results={home.pk: EntrantResult(status_code="XYZ")}, actor="t"
        )
    assert "XYZ not among Football's status codes" in refused.value.message_dict["status_code"][0]


def test_a_status_code_the_definition_declares_is_recorded(match):
    home = FixtureCompetitor.objects.get(fixture=match, alignment="home")
    fixture_results_record(
        fixture=match, results={home.pk: EntrantResult(status_code="W/O")}, actor="t"
    )
    assert FixtureCompetitor.objects.get(pk=home.pk).status_code == "W/O"


def test_cricket_is_registered_as_a_plugin_with_its_commands():
    plugin = get_plugin("cricket")
    assert isinstance(plugin, CricketPlugin)
    assert {"import", "delivery.corrected"} <= set(plugin.commands)
    assert shipped_definitions()["cricket"].plugin == "cricket"


def test_a_cricket_log_payload_missing_a_field_is_refused_naming_it():
    with pytest.raises(ValidationError) as refused:
        get_plugin("cricket").validate_payload("import", {"sha256": "0" * 64})
    assert "'submission' is a required property" in str(refused.value)


def test_cricket_takes_no_commands_through_the_generic_log(db):
    sport_definition_ensure(actor="t", sports=["cricket"])
    cricket = Sport.objects.get(code="cricket")
    fixture = fixture_create(competition=CompetitionFactory(sport=cricket), code="c1", actor="t")
    payload = {"submission": str(Submission().pk), "sha256": "0" * 64, "data_version": "1.0.0"}
    with pytest.raises(ValidationError) as refused:
        fixture_command(fixture=fixture, command="import", payload=payload, actor="t")
    assert "A cricket match is not scored through its log" in str(refused.value)


def test_a_shipped_file_with_an_unknown_plugin_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"plugin": "curling", "sports": [{"code": "x", "name": "X"}]}))
    with pytest.raises(ImproperlyConfigured) as refused:
        _read_file(path)
    assert str(path) in str(refused.value) and "'curling'" in str(refused.value)


def test_a_shipped_file_with_an_invalid_schema_is_refused_naming_the_key(tmp_path):
    path = tmp_path / "bad.json"
    body = {
        "plugin": "ranked_field",
        "sports": [{"code": "x", "name": "X"}],
        "meta_schema": {"type": "objekt"},
    }
    path.write_text(json.dumps(body))
    with pytest.raises(ImproperlyConfigured) as refused:
        _read_file(path)
    assert "meta_schema is not a JSON Schema" in str(refused.value)


def test_the_command_publishes_then_reports_everything_current():
    out = StringIO()
    call_command("sport_definitions_ensure", "football", stdout=out)
    call_command("sport_definitions_ensure", "football", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines == [
        "published football v1",
        "sport definitions: 1 published, 0 already current",
        "sport definitions: 0 published, 1 already current",
    ]


def test_the_command_refuses_a_sport_with_no_shipped_definition():
    with pytest.raises(CommandError, match="No shipped definition for kabaddi"):
        call_command("sport_definitions_ensure", "kabaddi")
