"""``fixture_competition_move``: a fixture filed under another node of its sport."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from sports.models import StatLine, TimelineItem
from sports.services import fixture_competition_move, fixture_create
from sports.tests.factories import (
    AthleticsFactory,
    CompetitionFactory,
    FootballFactory,
    TeamFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fixture(editor):
    league = CompetitionFactory(sport=FootballFactory(), code="league")
    return fixture_create(competition=league, code="m1", actor=editor)


def test_a_moved_fixture_takes_its_result_lines_to_the_new_node(fixture, editor):
    cup = CompetitionFactory(sport=fixture.sport, code="cup")
    StatLine.objects.create(
        fixture=fixture, subject=TeamFactory(), subject_role="side",
        occurred_on=dt.date(2024, 5, 1), sport=fixture.sport, competition=fixture.competition,
    )  # fmt: skip
    fixture_competition_move(fixture=fixture, competition=cup, actor=editor, reason="misfiled")
    fixture.refresh_from_db()
    assert fixture.competition_id == cup.pk
    assert list(StatLine.objects.values_list("competition_id", flat=True)) == [cup.pk]


def test_a_move_is_logged_on_the_fixture(fixture, editor):
    cup = CompetitionFactory(sport=fixture.sport, code="cup")
    fixture_competition_move(fixture=fixture, competition=cup, actor=editor, reason="misfiled")
    item = TimelineItem.objects.get(fixture=fixture, event_type="fixture.move")
    assert item.payload["to"] == str(cup.pk)


def test_moving_a_fixture_to_its_own_node_changes_nothing(fixture, editor):
    version = fixture.version
    fixture_competition_move(
        fixture=fixture, competition=fixture.competition, actor=editor, reason="misfiled"
    )
    fixture.refresh_from_db()
    assert fixture.version == version
    assert not TimelineItem.objects.filter(fixture=fixture, event_type="fixture.move").exists()


def test_a_fixture_is_not_moved_to_another_sports_node(fixture, editor):
    games = CompetitionFactory(sport=AthleticsFactory(), code="games")
    with pytest.raises(ValidationError):
        fixture_competition_move(fixture=fixture, competition=games, actor=editor, reason="x")
