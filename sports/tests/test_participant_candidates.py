"""Look-alike participants queued for a person and merged through the spine's service."""

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.services import account_groups_sync
from curation.models import MergeCandidate
from curation.services import candidates_suggest, merge_candidate_resolve
from sports.models import EntityType, ParticipantSport
from sports.services.participant_candidates import participant_candidates_suggest
from sports.services.participants import (
    OutsideRow,
    external_id_link,
    participant_merge,
    participants_resolve,
)
from sports.tests.factories import ParticipantFactory, SportFactory

pytestmark = pytest.mark.django_db


def known(name, country, external_id, sport, source="feed"):
    participant = ParticipantFactory(name=name, country=country, sport=sport)
    ParticipantSport.objects.create(participant=participant, sport=sport)
    external_id_link(
        source_code=source,
        entity_type=EntityType.PARTICIPANT,
        external_id=external_id,
        internal_id=participant.pk,
        actor="integration:feed",
    )
    return participant


@pytest.fixture
def namesakes():
    sport = SportFactory(code="athletics")
    return known("Wang Yi", "CHN", "p-1", sport), known("WANG  Yi", "CHN", "p-2", sport)


def test_namesakes_with_different_outside_ids_are_queued(namesakes):
    assert participant_candidates_suggest() == 1
    candidate = MergeCandidate.objects.get(level="participant")
    assert "same person name 'wang yi' and country CHN" in candidate.why
    assert "feed:p-1" in candidate.why and "feed:p-2" in candidate.why


def test_another_country_or_sport_is_not_a_look_alike():
    athletics, judo = SportFactory(code="athletics"), SportFactory(code="judo")
    known("Wang Yi", "CHN", "p-1", athletics)
    known("Wang Yi", "SGP", "p-2", athletics)
    known("Wang Yi", "CHN", "p-3", judo)
    assert participant_candidates_suggest() == 0


def test_a_row_no_source_knows_is_not_queued():
    sport = SportFactory(code="athletics")
    known("Wang Yi", "CHN", "p-1", sport)
    ParticipantSport.objects.create(
        participant=ParticipantFactory(name="Wang Yi", country="CHN", sport=sport), sport=sport
    )
    assert participant_candidates_suggest() == 0


def test_accepting_merges_and_the_merged_rows_outside_id_keeps_resolving(namesakes, reviewer):
    older, newer = namesakes
    participant_candidates_suggest()
    merge_candidate_resolve(
        candidate=MergeCandidate.objects.get(level="participant"),
        accept=True,
        actor=reviewer,
        note="one athlete, two federation ids",
    )
    newer.refresh_from_db()
    assert newer.merged_into_id == older.pk
    found = participants_resolve(
        source_code="feed", rows=[OutsideRow(external_id="p-2", name="Wang Yi")], batch="t"
    )
    assert list(found.matched.values()) == [older]


def test_a_rejected_pair_is_not_queued_again(namesakes, reviewer):
    participant_candidates_suggest()
    merge_candidate_resolve(
        candidate=MergeCandidate.objects.get(level="participant"),
        accept=False,
        actor=reviewer,
        note="two athletes",
    )
    assert participant_candidates_suggest() == 0
    assert MergeCandidate.objects.get(level="participant").status == "rejected"


def test_the_console_queue_shows_participants_and_a_reviewer_accepts(namesakes, reviewer):
    participant_candidates_suggest()
    account_groups_sync(user=reviewer)
    client = Client()
    client.force_login(reviewer)
    page = client.get(reverse("admin:curation_candidate_queue"), {"level": "participant"})
    assert page.status_code == 200 and b"feed:p-2" in page.content
    candidate = MergeCandidate.objects.get(level="participant")
    client.post(
        reverse("admin:curation_mergecandidate_changelist"),
        {
            "action": "accept_candidates",
            "_selected_action": [candidate.pk],
            "confirm": "yes",
            "note": "same athlete",
        },
    )
    namesakes[1].refresh_from_db()
    assert namesakes[1].merged_into_id == namesakes[0].pk


def test_the_one_suggest_run_queues_participant_pairs_too(namesakes):
    report = candidates_suggest()
    assert report.proposed == 1 and report.by_rule == {"participant": 1}
    candidate = MergeCandidate.objects.get(level="participant")
    assert {candidate.left_id, candidate.right_id} == {namesakes[0].pk, namesakes[1].pk}


def test_the_suggest_command_queues_participant_pairs(namesakes, capsys):
    call_command("suggest", verbosity=0)
    assert "suggest: 1 new candidate(s)" in capsys.readouterr().out
    assert MergeCandidate.objects.filter(level="participant", status="open").count() == 1


def test_a_participant_merged_away_closes_its_pair_on_the_next_run(namesakes):
    candidates_suggest()
    participant_merge(loser=namesakes[1], survivor=namesakes[0], actor="t", note="same")
    assert candidates_suggest().superseded == 1
    assert MergeCandidate.objects.get(level="participant").status == "superseded"
