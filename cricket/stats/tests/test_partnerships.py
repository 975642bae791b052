"""Partnerships and milestones derived from the ball order of hand-made matches."""

import pytest

from cricket.stats.partnerships import (
    records_ensure,
    records_rebuild,
    records_rebuild_all,
    records_stale,
)
from cricket.stats.records_models import (
    CricketBattingMilestone,
    CricketPartnership,
    CricketRecordsState,
)
from cricket.stats.tests.builders import ball, document, import_match, innings
from sports.models import Participant

pytestmark = pytest.mark.django_db

BOWLED_A = [{"player_out": "A Batter", "kind": "bowled"}]
BOWLED_B = [{"player_out": "B Batter", "kind": "bowled"}]
A_RETIRES = [{"player_out": "A Batter", "kind": "retired hurt"}]


def _name(pk):
    return Participant.objects.get(pk=pk).name


def _stands(fixture):
    return [
        (
            p.wicket,
            _name(p.batter_one_id),
            _name(p.batter_two_id),
            p.runs,
            p.balls,
            p.unbroken,
            p.ended_by,
        )
        for p in CricketPartnership.objects.filter(fixture=fixture).order_by("ordinal")
    ]


def test_the_last_pair_in_is_an_unbroken_partnership():
    doc = document(
        innings(
            [
                ball(runs=1),
                ball("B Batter", non_striker="A Batter", runs=4),
                ball("B Batter", non_striker="A Batter", extras={"wides": 1}),
                ball("A Batter", wickets=BOWLED_A),
                ball("C Batter", non_striker="B Batter", runs=2),
                ball("B Batter", non_striker="C Batter", runs=1),
            ]
        )
    )
    fixture = import_match(doc)
    records_rebuild(fixture_ids=[fixture.pk])
    assert _stands(fixture) == [
        (1, "A Batter", "B Batter", 6, 3, False, "wicket"),
        (2, "B Batter", "C Batter", 3, 2, True, "innings_end"),
    ]


def test_a_batter_retiring_hurt_ends_the_stand_unbroken_and_the_next_is_for_the_same_wicket():
    doc = document(
        innings(
            [
                ball(runs=4),
                ball(wickets=A_RETIRES),
                ball("C Batter", runs=1),
                ball("B Batter", non_striker="C Batter", wickets=BOWLED_B),
            ]
        )
    )
    fixture = import_match(doc)
    records_rebuild(fixture_ids=[fixture.pk])
    assert _stands(fixture) == [
        (1, "A Batter", "B Batter", 4, 2, True, "retired"),
        (1, "B Batter", "C Batter", 1, 2, False, "wicket"),
    ]


def test_each_batters_share_of_a_stand_is_their_own_runs_and_balls():
    doc = document(
        innings([ball(runs=4), ball(runs=1), ball("B Batter", non_striker="A Batter", runs=6)])
    )
    fixture = import_match(doc)
    records_rebuild(fixture_ids=[fixture.pk])
    stand = CricketPartnership.objects.get(fixture=fixture)
    assert (stand.batter_one_runs, stand.batter_one_balls) == (5, 2)
    assert (stand.batter_two_runs, stand.batter_two_balls) == (6, 1)


def test_a_fifty_is_reached_at_the_ball_that_takes_the_batter_past_fifty():
    balls = [ball(runs=6) for _ in range(8)] + [ball(extras={"wides": 1}), ball(runs=4)]
    fixture = import_match(document(innings(balls)))
    records_rebuild(fixture_ids=[fixture.pk])
    mark = CricketBattingMilestone.objects.get(fixture=fixture)
    # 48 off 8, a wide (not faced), then the four: 52 off 9 balls faced.
    assert (mark.runs, mark.balls, mark.balls_to_fifty, mark.balls_to_hundred) == (52, 9, 9, None)
    assert mark.not_out


def test_records_ensure_rebuilds_a_never_built_fixture_once():
    fixture = import_match(document(innings([ball(runs=1)])))
    assert str(fixture.pk) in records_stale()
    assert str(fixture.pk) in records_ensure()
    assert CricketRecordsState.objects.filter(fixture=fixture).exists()
    assert records_stale() == []
    assert CricketPartnership.objects.filter(fixture=fixture).count() == 1


def test_a_rebuild_of_many_fixtures_takes_one_lock_and_builds_them_all(monkeypatch):
    monkeypatch.setattr("cricket.stats.partnerships._PER_FIXTURE_LOCKS", 1)
    fixtures = [import_match(document(innings([ball(runs=n)]))) for n in (1, 2)]
    records_rebuild_all()
    assert sorted(
        CricketPartnership.objects.filter(fixture__in=fixtures).values_list("runs", flat=True)
    ) == [1, 2]
    assert CricketRecordsState.objects.filter(fixture__in=fixtures).count() == 2
