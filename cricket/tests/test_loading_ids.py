"""Ids the Cricsheet match loader makes for the rows it COPYs."""

import threading
import uuid

import pytest
from django.db import connection

from cricket.loading import _allocate_ids, _event_ids


def test_event_ids_are_distinct_ordered_version_7_uuids():
    ids = _event_ids(1_000)
    parsed = [uuid.UUID(text) for text in ids]
    assert len(set(parsed)) == 1_000
    assert parsed == sorted(parsed)
    assert {u.version for u in parsed} == {7}
    assert {u.variant for u in parsed} == {uuid.RFC_4122}


def test_two_matches_get_disjoint_event_ids():
    assert not set(_event_ids(500)) & set(_event_ids(500))


@pytest.mark.django_db
def test_allocated_ids_are_fresh_values_of_the_sequence():
    first = _allocate_ids("cricket_delivery", 1_000)
    second = _allocate_ids("cricket_delivery", 10)
    assert len(set(first)) == 1_000 and len(second) == 10
    assert max(first) < min(second)


@pytest.mark.django_db(transaction=True)
def test_ids_drawn_at_once_by_two_sessions_never_overlap():
    drawn: dict[str, list[int]] = {}

    def draw(name):
        try:
            drawn[name] = _allocate_ids("cricket_delivery", 20_000)
        finally:
            connection.close()

    threads = [threading.Thread(target=draw, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(drawn["a"]) == len(drawn["b"]) == 20_000
    assert not set(drawn["a"]) & set(drawn["b"])
