"""Concurrent writers on real PostgreSQL connections (one per thread)."""

import threading

import pytest
from django.core.management import call_command
from django.db import connection

from sports.models import Competition, TimelineItem
from sports.services import competition_create, competition_move, timeline_append
from sports.tests.factories import FixtureFactory, SportFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _run_concurrently(count, work):
    barrier = threading.Barrier(count)
    errors = []

    def runner(index):
        try:
            barrier.wait(timeout=30)
            work(index)
        except Exception as exc:  # reported by the test, not swallowed
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


def test_twenty_concurrent_writers_get_seq_one_to_twenty_without_gaps():
    fixture = FixtureFactory()

    def append(index):
        timeline_append(
            fixture=fixture,
            event_type="test.tick",
            actor=f"writer-{index}",
            payload={"writer": index},
        )

    assert _run_concurrently(20, append) == []
    seqs = sorted(TimelineItem.objects.filter(fixture=fixture).values_list("seq", flat=True))
    assert seqs == list(range(1, 21))
    fixture.refresh_from_db()
    assert fixture.last_seq == 20


def test_a_resent_command_with_the_same_idempotency_key_writes_nothing_new():
    fixture = FixtureFactory()

    def resend(index):
        timeline_append(
            fixture=fixture,
            event_type="test.tick",
            actor="scorer",
            source_code="app",
            idempotency_key="cmd-42",
        )

    assert _run_concurrently(10, resend) == []
    assert TimelineItem.objects.filter(fixture=fixture).count() == 1
    fixture.refresh_from_db()
    assert fixture.last_seq == 1


def test_concurrent_competition_moves_leave_the_trees_sound(capsys):
    sport = SportFactory(code="tennis")
    root = competition_create(code="tour", name="Tour", type="tour", sport=sport, actor="t")
    parents = [
        competition_create(code=f"p{i}", name=f"P{i}", type="group", parent=root, actor="t")
        for i in range(4)
    ]
    leaves = [
        competition_create(
            code=f"leaf{i}", name=f"Leaf {i}", type="stage", parent=parents[i % 4], actor="t"
        )
        for i in range(12)
    ]
    for leaf in leaves[:6]:
        competition_create(
            code=f"{leaf.code}-x",
            name="x",
            type="round",
            parent=Competition.objects.get(pk=leaf.pk),
            actor="t",
        )

    def move(index):
        leaf = Competition.objects.get(pk=leaves[index].pk)
        target = Competition.objects.get(pk=parents[(index + 1 + index // 4) % 4].pk)
        competition_move(node=leaf, new_parent=target, actor=f"mover-{index}")

    assert _run_concurrently(12, move) == []
    call_command("check_trees")  # raises CommandError (exit 1) on any damaged node
    assert "sound" in capsys.readouterr().out
    assert Competition.objects.get(pk=root.pk).get_descendant_count() == 22


def test_check_trees_reports_a_damaged_node():
    sport = SportFactory(code="golf")
    root = competition_create(code="tour", name="Tour", type="tour", sport=sport, actor="t")
    child = competition_create(code="open", name="Open", type="event", parent=root, actor="t")
    Competition.objects.filter(pk=child.pk).update(rght=99)
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="1 competition node"):
        call_command("check_trees")
