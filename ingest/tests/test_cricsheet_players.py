"""Players by registry id: a name is display text, never a join key (names are shared)."""

import copy
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from sports.models import EntityType, ExternalIdMap, ParticipantAlias


@pytest.fixture(autouse=True)
def _dismissal_kinds(request):
    if "db" in request.fixturenames or request.node.get_closest_marker("django_db"):
        request.getfixturevalue("db")
        seed_dismissal_kinds()


pytestmark = pytest.mark.django_db


def _renamed(doc, old, new):
    """The same document with one registry name replaced everywhere."""
    return json.loads(json.dumps(doc).replace(f'"{old}"', f'"{new}"'))


def _participant_of(registry_id):
    return ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type=EntityType.PARTICIPANT, external_id=registry_id
    ).internal_id


def _participant_lookups(queries):
    """Lookups of players (the two teams are looked up once per run, by their own ids)."""
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith("SELECT") and "sports_externalidmap" in q["sql"]
        and "'participant'" in q["sql"] and "'team:" not in q["sql"]
        and "internal_id" in q["sql"]
    ]  # fmt: skip


def test_a_run_reads_the_known_people_in_one_query_whatever_their_number():
    Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    doc = cricsheet_match(dates=["2024-05-08"])
    with CaptureQueriesContext(connection) as queries:
        result = Importer().import_file(json.dumps(doc).encode(), filename="900002.json")
    assert result.outcome == "new"
    loads = _participant_lookups(queries)
    # The map and the people behind it, for every id of the source at once: no list of
    # this match's ids.
    assert len(loads) == 2
    assert not any("aaaa0001" in sql for sql in loads)


def test_players_already_known_to_the_run_cost_no_lookup():
    importer = Importer()
    importer.import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    doc = cricsheet_match(dates=["2024-05-08"])
    with CaptureQueriesContext(connection) as queries:
        result = importer.import_file(json.dumps(doc).encode(), filename="900002.json")
    assert result.outcome == "new"
    assert _participant_lookups(queries) == []


def test_a_new_player_later_in_the_run_is_created_without_a_lookup():
    importer = Importer()
    importer.import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    doc = _renamed(cricsheet_match(dates=["2024-05-08"]), "A Batter", "Z Newcomer")
    doc["info"]["registry"]["people"]["Z Newcomer"] = "eeee0042"
    with CaptureQueriesContext(connection) as queries:
        result = importer.import_file(json.dumps(doc).encode(), filename="900002.json")
    assert result.outcome == "new", result.error
    assert _participant_lookups(queries) == []
    assert _participant_of("eeee0042") != _participant_of("aaaa0001")


def test_one_name_with_two_registry_ids_is_two_people():
    first = cricsheet_match()
    second = copy.deepcopy(cricsheet_match(dates=["2024-06-01"]))
    second["info"]["registry"]["people"]["A Batter"] = "ffff9999"
    importer = Importer()
    for i, doc in enumerate((first, second)):
        importer.import_file(json.dumps(doc).encode(), filename=f"90000{i}.json")
    assert _participant_of("aaaa0001") != _participant_of("ffff9999")


def test_one_registry_id_under_a_new_name_is_the_same_person_with_both_aliases():
    importer = Importer()
    importer.import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    renamed = _renamed(cricsheet_match(dates=["2025-01-01"]), "A Batter", "A Batter-Smith")
    assert (
        importer.import_file(json.dumps(renamed).encode(), filename="900002.json").outcome == "new"
    )
    names = ParticipantAlias.objects.filter(participant_id=_participant_of("aaaa0001"))
    assert set(names.values_list("name", flat=True)) == {"A Batter", "A Batter-Smith"}
    assert ExternalIdMap.objects.filter(external_id__startswith="aaaa0001").count() == 1


def test_an_alias_widens_its_first_and_last_seen_to_every_match_date():
    importer = Importer()
    for i, day in enumerate(("2024-05-01", "2020-01-01", "2026-01-01")):
        doc = cricsheet_match(dates=[day])
        importer.import_file(json.dumps(doc).encode(), filename=f"90000{i}.json")
    alias = ParticipantAlias.objects.get(
        participant_id=_participant_of("aaaa0001"), name="A Batter"
    )
    assert (alias.first_seen.year, alias.last_seen.year) == (2020, 2026)
