"""The merge-candidate queue: one row per pair and level, decided once by one person."""

import threading
import time

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from accounts.models import AuditEntry
from catalogue.tests.factories import ProductFactory
from curation.models import MergeCandidate
from curation.services import merge_candidate_decide, merge_candidate_propose

pytestmark = pytest.mark.django_db


def propose(a, b, *, why="same line and size, one side names no variation", score=0.8):
    return merge_candidate_propose(
        level="product", left_id=a.pk, right_id=b.pk, score=score, why=why
    )


@pytest.fixture
def pair():
    return ProductFactory(), ProductFactory()


def test_a_pair_is_queued_once_whichever_way_round_it_is_proposed(pair):
    a, b = pair
    first = propose(a, b)
    second = propose(b, a)
    assert first.pk == second.pk
    assert MergeCandidate.objects.count() == 1


def test_the_pair_is_stored_in_key_order(pair):
    a, b = sorted(pair, key=lambda p: p.pk)
    candidate = propose(b, a)
    assert (candidate.left_id, candidate.right_id) == (a.pk, b.pk)


def test_an_open_candidate_takes_the_newer_score_and_reason(pair):
    propose(*pair)
    candidate = propose(*pair, score=0.95, why="known rebrand")
    assert (candidate.score, candidate.why) == (0.95, "known rebrand")


def test_a_rejected_pair_is_never_proposed_again(pair, reviewer):
    candidate = propose(*pair)
    merge_candidate_decide(candidate=candidate, accept=False, actor=reviewer, note="two sizes")
    again = propose(*pair, score=0.99, why="a new rule")
    assert again.status == "rejected"
    assert (again.score, again.why) == (0.8, "same line and size, one side names no variation")
    assert MergeCandidate.objects.count() == 1


def test_the_database_refuses_a_second_row_for_a_pair(pair):
    candidate = propose(*pair)
    with pytest.raises(IntegrityError), transaction.atomic():
        MergeCandidate.objects.create(
            level="product",
            left_id=candidate.left_id,
            right_id=candidate.right_id,
            why="again",
            detected_at=candidate.detected_at,
        )


def test_the_same_pair_may_wait_at_another_level(pair):
    propose(*pair)
    merge_candidate_propose(
        level="line",
        left_id=pair[0].pk,
        right_id=pair[1].pk,
        score=None,
        why="one line's words within another's",
    )
    assert MergeCandidate.objects.count() == 2


def test_deciding_records_the_person_the_time_and_the_note(pair, reviewer):
    candidate = merge_candidate_decide(
        candidate=propose(*pair), accept=True, actor=reviewer, note="same bottle"
    )
    candidate.refresh_from_db()
    assert candidate.status == "accepted"
    assert candidate.decided_by == reviewer and candidate.decided_at is not None
    assert candidate.decision_note == "same bottle"
    assert AuditEntry.objects.get(action="merge_candidate.decide").actor == reviewer


def test_a_pair_of_one_row_is_refused(pair):
    with pytest.raises(ValidationError, match="two different rows"):
        propose(pair[0], pair[0])


def test_deciding_needs_a_note(pair, reviewer):
    with pytest.raises(ValidationError, match="Say why"):
        merge_candidate_decide(candidate=propose(*pair), accept=True, actor=reviewer, note="")


def test_a_decided_candidate_cannot_be_decided_again(pair, reviewer, editor):
    candidate = propose(*pair)
    merge_candidate_decide(candidate=candidate, accept=False, actor=reviewer, note="no")
    with pytest.raises(ValidationError, match="already decided"):
        merge_candidate_decide(candidate=candidate, accept=True, actor=editor, note="yes")


@pytest.mark.django_db(transaction=True)
def test_two_reviewers_deciding_at_once_record_exactly_one_decision(reviewer, editor):
    candidate = propose(ProductFactory(), ProductFactory())
    outcomes: list[str] = []

    def decide(actor, accept):
        try:
            merge_candidate_decide(candidate=candidate, accept=accept, actor=actor, note="mine")
            outcomes.append("decided")
        except ValidationError:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [
        threading.Thread(target=decide, args=(reviewer, True)),
        threading.Thread(target=decide, args=(editor, False)),
    ]
    # Hold the row so both reviewers reach the lock before either can decide: without
    # the lock and the status check under it, both would read "open" and both would write.
    with transaction.atomic():
        MergeCandidate.objects.select_for_update().get(pk=candidate.pk)
        for t in threads:
            t.start()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _waiting_on_locks() < 2:
            if not any(t.is_alive() for t in threads):
                break
            time.sleep(0.02)
    for t in threads:
        t.join(timeout=10)

    assert sorted(outcomes) == ["decided", "refused"]
    assert AuditEntry.objects.filter(action="merge_candidate.decide").count() == 1
    candidate.refresh_from_db()
    assert candidate.status in ("accepted", "rejected")


def _waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]
