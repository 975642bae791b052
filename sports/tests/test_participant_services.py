from datetime import date

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.module_loading import import_string

from sports.models import (
    EntityType,
    ExternalIdMap,
    FixtureCompetitor,
    Participant,
    ParticipantSport,
    ParticipantType,
    TimelineItem,
    UnmatchedRow,
)
from sports.services import (
    OutsideRow,
    external_id_link,
    participant_create,
    participant_merge,
    participants_resolve,
)
from sports.tests.factories import (
    AthleticsFactory,
    CompetitorFactory,
    CountryFactory,
    FootballFactory,
    ParticipantFactory,
)

pytestmark = pytest.mark.django_db


def test_creating_the_same_person_twice_returns_the_first_row():
    first, created = participant_create(
        type="PERSON", name="Léon Marchand", country="FRA", born_on=date(2002, 5, 17), actor="t"
    )
    again, created_again = participant_create(
        type="PERSON", name="leon  MARCHAND", country="FRA", born_on=date(2002, 5, 17), actor="t"
    )
    assert created and not created_again
    assert again.pk == first.pk


def test_a_different_birth_date_is_a_different_person():
    a, _ = participant_create(
        type="PERSON", name="J Smith", country="GBR", born_on=date(1990, 1, 1), actor="t"
    )
    b, created = participant_create(
        type="PERSON", name="J Smith", country="GBR", born_on=date(1991, 1, 1), actor="t"
    )
    assert created and a.pk != b.pk


def test_merge_keeps_the_loser_pointing_at_the_survivor_and_moves_appearances():
    survivor, loser = ParticipantFactory(name="A. Runner"), ParticipantFactory(name="Alex Runner")
    appearance = CompetitorFactory(participant=loser)
    participant_merge(loser=loser, survivor=survivor, actor="editor", note="same person")
    loser.refresh_from_db()
    assert loser.merged_into_id == survivor.pk
    assert FixtureCompetitor.objects.get(pk=appearance.pk).participant_id == survivor.pk
    assert set(survivor.aliases.values_list("name", flat=True)) >= {"Alex Runner"}
    assert (
        TimelineItem.objects.filter(
            fixture=appearance.fixture, event_type="participant.merge"
        ).count()
        == 1
    )


def test_merge_requires_a_note():
    with pytest.raises(ValidationError, match="note"):
        participant_merge(
            loser=ParticipantFactory(), survivor=ParticipantFactory(), actor="editor", note=""
        )


def test_the_loser_s_external_id_resolves_to_the_survivor():
    survivor, loser = ParticipantFactory(), ParticipantFactory()
    external_id_link(
        source_code="olympics",
        entity_type=EntityType.PARTICIPANT,
        external_id="1234",
        internal_id=loser.pk,
        actor="t",
    )
    participant_merge(loser=loser, survivor=survivor, actor="editor", note="dup")
    result = participants_resolve(
        source_code="olympics", rows=[OutsideRow(external_id="1234")], batch="b1"
    )
    assert list(result.matched.values()) == [survivor]


def test_an_outside_id_cannot_be_relinked_to_another_row():
    a, b = ParticipantFactory(), ParticipantFactory()
    external_id_link(
        source_code="s", entity_type="participant", external_id="9", internal_id=a.pk, actor="t"
    )
    with pytest.raises(ValidationError, match="already points at"):
        external_id_link(
            source_code="s", entity_type="participant", external_id="9", internal_id=b.pk, actor="t"
        )


def test_resolver_matches_by_id_then_country_code_then_name(django_assert_num_queries):
    by_id, by_name = ParticipantFactory(name="Ana Id"), ParticipantFactory(name="Bea Name")
    india = CountryFactory(code="IND", name="India")
    ExternalIdMap.objects.create(
        source_code="feed", entity_type="participant", external_id="A1", internal_id=by_id.pk
    )
    rows = [
        OutsideRow(external_id="A1", name="Someone Else"),
        OutsideRow(country="IND", name="Bharat", type=ParticipantType.COUNTRY),
        OutsideRow(external_id="Z9", name="Bea Name"),
    ]
    # One query per key kind (ids, country codes, names via aliases and via participants),
    # one for the source's ids of the name candidates and one to load the candidates,
    # however many rows the batch has.
    with django_assert_num_queries(6):
        result = participants_resolve(
            source_code="feed", rows=rows, batch="b", keep_unmatched=False
        )
    assert result.matched == {rows[0]: by_id, rows[1]: india, rows[2]: by_name}
    assert result.unmatched == []


def test_unmatched_rows_are_kept_with_a_sentence_saying_why():
    ParticipantFactory(name="Chris Twin")
    ParticipantFactory(name="Chris Twin")
    rows = [OutsideRow(external_id="Q1", name="Nobody Known"), OutsideRow(name="Chris Twin")]
    result = participants_resolve(source_code="feed", rows=rows, batch="run-7")
    reasons = dict(result.unmatched)
    assert "no participant is known by the name 'Nobody Known'" in reasons[rows[0]]
    assert "feed id 'Q1' is not in the external-id map" in reasons[rows[0]]
    assert "fits 2 participants, so it decides nothing" in reasons[rows[1]]
    assert UnmatchedRow.objects.filter(batch="run-7").count() == 2


def test_dangling_external_ids_are_reported(capsys):
    from django.core.management import call_command

    person = ParticipantFactory()
    ExternalIdMap.objects.create(
        source_code="s", entity_type="participant", external_id="ok", internal_id=person.pk
    )
    ExternalIdMap.objects.create(
        source_code="s", entity_type="fixture", external_id="gone", internal_id=Participant().pk
    )
    call_command("dangling_external_ids")
    out = capsys.readouterr().out
    assert "gone" in out and "\tok\t" not in out
    assert "1 dangling external id(s)" in out


def test_a_merge_by_a_person_writes_an_audit_row(editor):
    from accounts.models import AuditEntry

    survivor, loser = ParticipantFactory(), ParticipantFactory()
    participant_merge(loser=loser, survivor=survivor, actor=editor, note="same athlete")
    entry = AuditEntry.objects.get(action="participant.merge")
    assert (entry.actor, entry.entity_key) == (editor, str(loser.pk))
    assert entry.detail["note"] == "same athlete"


def test_a_name_never_joins_a_row_to_someone_the_source_knows_under_another_id():
    wang = ParticipantFactory(name="Wang Yi", country="CHN")
    external_id_link(
        source_code="olympics",
        entity_type=EntityType.PARTICIPANT,
        external_id="111",
        internal_id=wang.pk,
        actor="t",
    )
    row = OutsideRow(external_id="222", name="Wang Yi", country="CHN")
    result = participants_resolve(
        source_code="olympics", rows=[row], batch="b", keep_unmatched=False
    )
    assert result.matched == {}
    assert "olympics knows as 111, not '222'" in dict(result.unmatched)[row]


def test_without_dedupe_namesakes_stay_two_participants():
    first, _ = participant_create(
        type="PERSON", name="Wang Yi", country="CHN", actor="t", dedupe=False
    )
    second, created = participant_create(
        type="PERSON", name="Wang Yi", country="CHN", actor="t", dedupe=False
    )
    assert created and first.pk != second.pk
    assert first.identity_hash is None


def _plugins_told_of_merges(monkeypatch) -> list:
    told: list = []

    def heard(plugin, *, loser, survivor, actor):
        told.append((plugin.key, loser.pk, survivor.pk))

    for path in settings.SPORT_PLUGINS.values():
        monkeypatch.setattr(import_string(path), "participants_merged", heard)
    return told


def test_a_merge_tells_the_plugin_of_each_sport_that_sees_the_pair(monkeypatch):
    told = _plugins_told_of_merges(monkeypatch)
    football, _athletics = FootballFactory(), AthleticsFactory()
    loser, survivor = ParticipantFactory(sport=football), ParticipantFactory(sport=football)
    ParticipantSport.objects.create(participant=loser, sport=football)
    participant_merge(loser=loser, survivor=survivor, actor="t", note="same player")
    assert told == [("football", loser.pk, survivor.pk)]


def test_a_merge_in_the_commons_tells_every_sports_plugin(monkeypatch):
    told = _plugins_told_of_merges(monkeypatch)
    FootballFactory(), AthleticsFactory()
    loser, survivor = CountryFactory(), CountryFactory()
    participant_merge(loser=loser, survivor=survivor, actor="t", note="one country")
    assert sorted(key for key, _, _ in told) == ["football", "ranked_field"]
