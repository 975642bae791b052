"""Concurrent writers on real PostgreSQL connections (one per thread)."""

import threading
import time

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from sports.models import Competition, Fixture, FixtureAmendment, TimelineItem
from sports.services import (
    competition_create,
    competition_move,
    fixture_amend,
    fixture_create,
    timeline_append,
)
from sports.services.common import FixtureVersionConflict
from sports.tests.factories import CompetitionFactory, FixtureFactory, FootballFactory, SportFactory

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


def _football_match():
    league = CompetitionFactory(sport=FootballFactory(), code="league")
    return fixture_create(competition=league, code="m1", name="", actor="t")


def _someone_waits_for_a_row_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def test_a_writer_with_the_old_version_waits_for_the_lock_then_gets_a_conflict():
    fixture = _football_match()
    written, release = threading.Event(), threading.Event()
    outcome = {}

    def first():
        try:
            with transaction.atomic():
                fixture_amend(
                    fixture=fixture,
                    changes={"name": "A"},
                    reason="a",
                    actor="a",
                    expected_version=0,
                )
                written.set()
                release.wait(timeout=30)  # holds the row lock until the test lets go
        finally:
            connection.close()

    def second():
        try:
            fixture_amend(
                fixture=fixture, changes={"name": "B"}, reason="b", actor="b", expected_version=0
            )
            outcome["second"] = "applied"
        except FixtureVersionConflict as conflict:
            outcome["second"] = conflict
        finally:
            connection.close()

    holder = threading.Thread(target=first)
    holder.start()
    assert written.wait(timeout=30)
    waiter = threading.Thread(target=second)
    waiter.start()
    # The second writer read version 0 too; it must block on the row lock, not pass a
    # check made before it.
    for _ in range(600):
        if _someone_waits_for_a_row_lock():
            break
        time.sleep(0.05)
    assert _someone_waits_for_a_row_lock()
    release.set()
    holder.join(timeout=30)
    waiter.join(timeout=30)

    conflict = outcome["second"]
    assert isinstance(conflict, FixtureVersionConflict)
    assert (conflict.expected, conflict.current) == (0, 1)
    row = Fixture.objects.get(pk=fixture.pk)
    assert (row.name, row.version) == ("A", 1)
    assert FixtureAmendment.objects.filter(fixture=fixture).count() == 1


def test_twenty_writers_holding_one_version_one_wins_and_nineteen_get_a_conflict():
    fixture = _football_match()
    won, refused = [], []

    def write(index):
        try:
            fixture_amend(
                fixture=fixture,
                changes={"name": f"writer {index}"},
                reason="race",
                actor=f"writer-{index}",
                expected_version=0,
            )
            won.append(index)
        except FixtureVersionConflict as conflict:
            refused.append((conflict.expected, conflict.current))

    assert _run_concurrently(20, write) == []
    assert len(won) == 1
    assert refused == [(0, 1)] * 19
    row = Fixture.objects.get(pk=fixture.pk)
    assert (row.name, row.version) == (f"writer {won[0]}", 1)
    assert FixtureAmendment.objects.filter(fixture=fixture).count() == 1


def test_twenty_read_modify_write_writers_lose_no_update():
    fixture = _football_match()
    conflicts = []

    def write(index):
        # Read, change, write against the version read; on a conflict read again.
        for _ in range(500):
            name, version = Fixture.objects.values_list("name", "version").get(pk=fixture.pk)
            try:
                fixture_amend(
                    fixture=fixture,
                    changes={"name": f"{name} w{index}".strip()},
                    reason="append my token",
                    actor=f"writer-{index}",
                    expected_version=version,
                )
                return
            except FixtureVersionConflict:
                conflicts.append(index)
        raise AssertionError(f"writer {index} never got its turn")

    assert _run_concurrently(20, write) == []
    row = Fixture.objects.get(pk=fixture.pk)
    assert sorted(row.name.split()) == sorted(f"w{i}" for i in range(20))
    assert row.version == 20
    assert FixtureAmendment.objects.filter(fixture=fixture).count() == 20
