import pytest
from django.core.exceptions import ValidationError

from sports.models import FixtureCompetitor, FixtureStatus, ResultStatus, StatLine
from sports.services import CompetitorSpec, fixture_command, fixture_create, fixture_rebuild
from sports.tests.factories import (
    CompetitionFactory,
    FootballFactory,
    ParticipantFactory,
    TeamFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def match():
    football = FootballFactory()
    league = CompetitionFactory(sport=football, code="league", format_code="90min")
    home, away = TeamFactory(name="Rovers"), TeamFactory(name="United")
    scorer, defender, keeper = ParticipantFactory(), ParticipantFactory(), ParticipantFactory()
    fixture = fixture_create(
        competition=league,
        code="m1",
        actor="editor",
        competitors=[
            CompetitorSpec(
                participant=home, alignment="home", members=[CompetitorSpec(participant=scorer)]
            ),
            CompetitorSpec(
                participant=away,
                alignment="away",
                members=[CompetitorSpec(participant=defender), CompetitorSpec(participant=keeper)],
            ),
        ],
    )
    return {
        "fixture": fixture,
        "home": home,
        "away": away,
        "scorer": scorer,
        "defender": defender,
        "keeper": keeper,
    }


def play(fixture, *commands):
    for name, payload in commands:
        fixture_command(fixture=fixture, command=name, payload=payload, actor="scorer")


def two_one(m):
    play(
        m["fixture"],
        ("start", {}),
        ("goal", {"side": "home", "player": str(m["scorer"].pk), "minute": 12}),
        (
            "card",
            {"side": "away", "player": str(m["defender"].pk), "minute": 30, "colour": "yellow"},
        ),
        ("end_period", {"period": 1}),
        ("goal", {"side": "away", "player": str(m["keeper"].pk), "minute": 55}),
        ("goal", {"side": "home", "player": str(m["defender"].pk), "minute": 80, "own_goal": True}),
        ("end_period", {"period": 2}),
        ("finish", {}),
    )


def _lines(fixture):
    return {
        (str(line.subject_id), line.subject_role, line.segment): line.values
        for line in StatLine.objects.filter(fixture=fixture)
    }


def test_a_match_played_through_commands_gives_the_right_scoreboard(match):
    two_one(match)
    fixture = match["fixture"]
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.COMPLETED
    assert fixture.scoreboard.state["score"] == {"home": 2, "away": 1}
    assert fixture.scoreboard.state["periods"] == {
        "1": {"home": 1, "away": 0},
        "2": {"home": 1, "away": 1},
    }
    assert fixture.result == {
        "outcome": "win",
        "score": {"home": 2, "away": 1},
        "periods": {"1": {"home": 1, "away": 0}, "2": {"home": 1, "away": 1}},
    }


def test_the_winner_ranks_first_and_the_loser_second(match):
    two_one(match)
    ranks = {
        c.alignment: (c.rank, c.result_status)
        for c in FixtureCompetitor.objects.filter(fixture=match["fixture"], parent__isnull=True)
    }
    assert ranks == {"home": (1, ResultStatus.FINISHED), "away": (2, ResultStatus.FINISHED)}


def test_stat_lines_per_side_per_half_per_match_and_per_player(match):
    two_one(match)
    home, away = str(match["home"].pk), str(match["away"].pk)
    assert _lines(match["fixture"]) == {
        (home, "side", "half-1"): {"goals_for": 1, "goals_against": 0},
        (home, "side", "half-2"): {"goals_for": 1, "goals_against": 1},
        (home, "side", "match"): {"goals_for": 2, "goals_against": 1, "place": 1, "outcome": "win"},
        (away, "side", "half-1"): {"goals_for": 0, "goals_against": 1},
        (away, "side", "half-2"): {"goals_for": 1, "goals_against": 1},
        (away, "side", "match"): {
            "goals_for": 1,
            "goals_against": 2,
            "place": 2,
            "outcome": "loss",
        },
        (str(match["scorer"].pk), "player", "match"): {
            "goals": 1,
            "own_goals": 0,
            "yellow_cards": 0,
            "red_cards": 0,
        },
        (str(match["keeper"].pk), "player", "match"): {
            "goals": 1,
            "own_goals": 0,
            "yellow_cards": 0,
            "red_cards": 0,
        },
        (str(match["defender"].pk), "player", "match"): {
            "goals": 0,
            "own_goals": 1,
            "yellow_cards": 1,
            "red_cards": 0,
        },
    }


def test_replaying_the_log_rebuilds_identical_rows(match):
    two_one(match)
    fixture = match["fixture"]
    before = (
        _lines(fixture),
        fixture.scoreboard.state,
        list(
            FixtureCompetitor.objects.filter(fixture=fixture)
            .order_by("id")
            .values_list("rank", "result_status", "result")
        ),
    )
    StatLine.objects.filter(fixture=fixture).delete()
    fixture_rebuild(fixture=fixture)
    fixture.refresh_from_db()
    after = (
        _lines(fixture),
        fixture.scoreboard.state,
        list(
            FixtureCompetitor.objects.filter(fixture=fixture)
            .order_by("id")
            .values_list("rank", "result_status", "result")
        ),
    )
    assert after == before


def test_a_draw_is_both_sides_rank_one_with_outcome_draw(match):
    play(
        match["fixture"],
        ("start", {}),
        ("end_period", {"period": 1}),
        ("end_period", {"period": 2}),
        ("finish", {}),
    )
    match["fixture"].refresh_from_db()
    ranks = sorted(
        FixtureCompetitor.objects.filter(fixture=match["fixture"], parent__isnull=True).values_list(
            "rank", flat=True
        )
    )
    assert ranks == [1, 1]
    assert match["fixture"].result["outcome"] == "draw"


def test_a_goal_before_kick_off_is_refused(match):
    with pytest.raises(ValidationError, match="needs a live match"):
        fixture_command(
            fixture=match["fixture"],
            command="goal",
            payload={"side": "home", "minute": 1},
            actor="scorer",
        )


def test_a_payload_breaking_the_command_schema_lists_every_problem(match):
    fixture_command(fixture=match["fixture"], command="start", payload={}, actor="scorer")
    with pytest.raises(ValidationError) as excinfo:
        fixture_command(
            fixture=match["fixture"],
            command="goal",
            payload={"side": "left", "minute": -3},
            actor="scorer",
        )
    problems = excinfo.value.message_dict["payload"]
    assert any(p.startswith("side:") for p in problems)
    assert any(p.startswith("minute:") for p in problems)


def test_a_player_from_outside_the_squad_cannot_score(match):
    fixture_command(fixture=match["fixture"], command="start", payload={}, actor="scorer")
    with pytest.raises(ValidationError, match="not in the home side's squad"):
        fixture_command(
            fixture=match["fixture"],
            command="goal",
            actor="scorer",
            payload={"side": "home", "player": str(match["keeper"].pk), "minute": 3},
        )


def test_a_resent_goal_is_counted_once(match):
    fixture = match["fixture"]
    fixture_command(fixture=fixture, command="start", payload={}, actor="scorer")
    for _ in range(2):
        fixture_command(
            fixture=fixture,
            command="goal",
            idempotency_key="goal-1",
            payload={"side": "home", "minute": 5},
            actor="scorer",
        )
    fixture.refresh_from_db()
    assert fixture.scoreboard.state["score"] == {"home": 1, "away": 0}
    assert fixture.last_seq == 3  # create, start, one goal


def test_a_pinned_status_survives_a_rebuild(match):
    from sports.services import fixture_amend

    fixture = match["fixture"]
    fixture_command(fixture=fixture, command="start", payload={}, actor="scorer")
    fixture_amend(
        fixture=fixture,
        changes={"status": FixtureStatus.SUSPENDED},
        reason="floodlight failure",
        actor="editor",
    )
    fixture_rebuild(fixture=fixture)
    fixture.refresh_from_db()
    assert fixture.status == FixtureStatus.SUSPENDED
