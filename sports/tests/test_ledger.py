"""The ledger: voids and corrections append, and every rebuild reads the live chain."""

import pytest
from django.core.exceptions import ValidationError

from sports.models import Fixture, FixtureCompetitor, StatLine, TimelineItem, TimelineStatus
from sports.services import (
    CompetitorSpec,
    fixture_command,
    fixture_command_correct,
    fixture_create,
    timeline_append,
    timeline_void,
)
from sports.tests.factories import (
    CompetitionFactory,
    FixtureFactory,
    FootballFactory,
    ParticipantFactory,
    TeamFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast():
    football = FootballFactory()
    return {
        "league": CompetitionFactory(sport=football, code="league", format_code="90min"),
        "home": TeamFactory(name="Rovers"),
        "away": TeamFactory(name="United"),
        "striker": ParticipantFactory(),
        "winger": ParticipantFactory(),
        "keeper": ParticipantFactory(),
    }


def _match(cast, code="m1"):
    return fixture_create(
        competition=cast["league"],
        code=code,
        actor="editor",
        competitors=[
            CompetitorSpec(
                participant=cast["home"],
                alignment="home",
                members=[
                    CompetitorSpec(participant=cast["striker"]),
                    CompetitorSpec(participant=cast["winger"]),
                ],
            ),
            CompetitorSpec(
                participant=cast["away"],
                alignment="away",
                members=[CompetitorSpec(participant=cast["keeper"])],
            ),
        ],
    )


@pytest.fixture
def match(cast):
    return _match(cast)


def goal(cast, side, who, minute):
    return {"side": side, "player": str(cast[who].pk), "minute": minute}


def play(fixture, *commands):
    return [
        fixture_command(fixture=fixture, command=name, payload=payload, actor="scorer")
        for name, payload in commands
    ]


def item(fixture, seq):
    return TimelineItem.objects.get(fixture=fixture, seq=seq)


def board(fixture):
    """Everything a rebuild writes, in a form two fixtures can be compared by."""
    row = Fixture.objects.get(pk=fixture.pk)
    return {
        "scoreboard": row.scoreboard.state,
        "live_state": row.live_state,
        "status": row.status,
        "result": row.result,
        "competitors": sorted(
            FixtureCompetitor.objects.filter(fixture=fixture, parent__isnull=True).values_list(
                "alignment", "rank", "result_status", "result"
            )
        ),
        "lines": sorted(
            (str(line.subject_id), line.subject_role, line.segment, sorted(line.values.items()))
            for line in StatLine.objects.filter(fixture=fixture)
        ),
    }


def test_voiding_a_goal_rebuilds_the_scoreboard_and_stat_lines_at_once(cast, match):
    _, _, away_goal = play(
        match,
        ("start", {}),
        ("goal", goal(cast, "home", "striker", 10)),
        ("goal", goal(cast, "away", "keeper", 20)),
    )
    assert board(match)["scoreboard"]["score"] == {"home": 1, "away": 1}
    timeline_void(item=away_goal, actor="editor", reason="the keeper's goal was offside")
    after = board(match)
    assert after["scoreboard"]["score"] == {"home": 1, "away": 0}
    assert after["live_state"]["score"] == {"home": 1, "away": 0}
    half = {(line[0], line[2]): dict(line[3]) for line in after["lines"]}
    assert half[(str(cast["away"].pk), "half-1")] == {"goals_for": 0, "goals_against": 1}
    assert item(match, away_goal.seq).status == TimelineStatus.VOIDED


def test_a_void_is_logged_with_who_and_why_and_moves_the_version_on(cast, match):
    _, scored = play(match, ("start", {}), ("goal", goal(cast, "home", "striker", 10)))
    version = Fixture.objects.get(pk=match.pk).version
    timeline_void(item=scored, actor="editor", reason="wrong match")
    logged = TimelineItem.objects.get(fixture=match, event_type="timeline.void")
    assert logged.payload == {"voided": scored.pk, "seq": scored.seq, "reason": "wrong match"}
    assert logged.actor == "editor"
    assert Fixture.objects.get(pk=match.pk).version == version + 1


def test_voiding_needs_a_reason(cast, match):
    _, scored = play(match, ("start", {}), ("goal", goal(cast, "home", "striker", 10)))
    with pytest.raises(ValidationError, match="reason"):
        timeline_void(item=scored, actor="editor", reason="")
    assert item(match, scored.seq).status == TimelineStatus.ACTIVE


def test_a_void_that_leaves_a_log_that_cannot_replay_is_refused(cast, match):
    start, _ = play(match, ("start", {}), ("goal", goal(cast, "home", "striker", 10)))
    with pytest.raises(ValidationError, match="would no longer replay"):
        timeline_void(item=start, actor="editor", reason="never kicked off")
    assert item(match, start.seq).status == TimelineStatus.ACTIVE
    assert board(match)["scoreboard"]["score"] == {"home": 1, "away": 0}


def test_a_void_of_an_item_that_is_no_command_moves_only_the_version():
    fixture = FixtureFactory()
    note = timeline_append(fixture=fixture, event_type="note.add", actor="t")
    timeline_void(item=note, actor="editor", reason="typo")
    row = Fixture.objects.get(pk=fixture.pk)
    assert (row.version, row.live_state) == (1, None)


def test_a_correction_supersedes_the_old_item_and_both_stay(cast, match):
    _, scored = play(match, ("start", {}), ("goal", goal(cast, "home", "striker", 10)))
    corrected = fixture_command_correct(
        item=scored,
        payload=goal(cast, "home", "winger", 11),
        actor="editor",
        reason="the winger got the last touch",
    )
    old = item(match, scored.seq)
    assert old.status == TimelineStatus.SUPERSEDED and old.payload["minute"] == 10
    assert corrected.status == TimelineStatus.CORRECTED
    assert corrected.supersedes_id == old.pk
    assert corrected.event_type == "football.goal"
    [on_board] = board(match)["scoreboard"]["goals"]
    assert (on_board["player"], on_board["minute"]) == (str(cast["winger"].pk), 11)
    logged = TimelineItem.objects.get(fixture=match, event_type="timeline.correct")
    assert logged.payload["reason"] == "the winger got the last touch"
    assert corrected.actors.get().participant == cast["winger"]


def test_a_correction_stands_where_the_item_it_revises_stood(cast, match):
    _, first, _ = play(
        match,
        ("start", {}),
        ("goal", goal(cast, "home", "striker", 10)),
        ("goal", goal(cast, "away", "keeper", 30)),
    )
    fixture_command_correct(
        item=first, payload=goal(cast, "home", "winger", 12), actor="editor", reason="scorer"
    )
    minutes = [g["minute"] for g in board(match)["scoreboard"]["goals"]]
    assert minutes == [12, 30]


def test_a_correction_is_checked_against_the_state_at_its_position(cast, match):
    _, ended = play(match, ("start", {}), ("end_period", {"period": 1}))
    with pytest.raises(ValidationError, match="Period 2 cannot end"):
        fixture_command_correct(
            item=ended, payload={"period": 2}, actor="editor", reason="it was the second"
        )
    assert item(match, ended.seq).status == TimelineStatus.ACTIVE


def test_a_superseded_or_voided_item_is_neither_voided_nor_corrected_again(cast, match):
    _, scored, other = play(
        match,
        ("start", {}),
        ("goal", goal(cast, "home", "striker", 10)),
        ("goal", goal(cast, "home", "striker", 20)),
    )
    fixture_command_correct(
        item=scored, payload=goal(cast, "home", "winger", 10), actor="editor", reason="scorer"
    )
    timeline_void(item=other, actor="editor", reason="disallowed")
    with pytest.raises(ValidationError, match="only a live item"):
        timeline_void(item=scored, actor="editor", reason="again")
    with pytest.raises(ValidationError, match="only a live item"):
        fixture_command_correct(
            item=other, payload=goal(cast, "home", "winger", 20), actor="editor", reason="again"
        )


def test_voiding_a_correction_withdraws_the_fact(cast, match):
    _, scored = play(match, ("start", {}), ("goal", goal(cast, "home", "striker", 10)))
    corrected = fixture_command_correct(
        item=scored, payload=goal(cast, "home", "winger", 10), actor="editor", reason="scorer"
    )
    timeline_void(item=corrected, actor="editor", reason="no goal after all")
    assert board(match)["scoreboard"]["score"] == {"home": 0, "away": 0}
    assert item(match, scored.seq).status == TimelineStatus.SUPERSEDED


def test_a_log_with_voids_and_corrections_folds_to_the_boards_of_one_without_them(cast):
    messy, clean = _match(cast, "messy"), _match(cast, "clean")
    kept = [
        ("start", {}),
        ("goal", goal(cast, "home", "striker", 10)),
        ("goal", goal(cast, "away", "keeper", 40)),
        ("end_period", {"period": 1}),
        ("goal", goal(cast, "home", "winger", 70)),
        ("end_period", {"period": 2}),
        ("finish", {}),
    ]
    play(clean, *kept)

    play(messy, ("start", {}))
    wrong_scorer = play(messy, ("goal", goal(cast, "home", "winger", 10)))[0]
    phantom = play(messy, ("goal", goal(cast, "home", "striker", 25)))[0]
    wrong_minute = play(messy, ("goal", goal(cast, "away", "keeper", 44)))[0]
    play(messy, ("end_period", {"period": 1}))
    twice = play(messy, ("goal", goal(cast, "home", "striker", 70)))[0]
    play(messy, *kept[5:])
    fixture_command_correct(
        item=wrong_scorer, payload=kept[1][1], actor="editor", reason="the striker scored"
    )
    timeline_void(item=phantom, actor="editor", reason="never happened")
    first_fix = fixture_command_correct(
        item=wrong_minute, payload=goal(cast, "away", "keeper", 41), actor="editor", reason="41"
    )
    fixture_command_correct(item=first_fix, payload=kept[2][1], actor="editor", reason="40")
    fixture_command_correct(item=twice, payload=kept[4][1], actor="editor", reason="winger")

    assert board(messy) == board(clean)
    assert TimelineItem.objects.filter(fixture=messy, status=TimelineStatus.SUPERSEDED).count() == 4


def test_a_void_drops_the_cached_tables_that_fold_over_the_fixture(cast, match):
    from sports.models import StatTable
    from sports.services.tables import stat_table_rebuild

    _, scored = play(match, ("start", {}), ("goal", goal(cast, "home", "striker", 10)))
    stat_table_rebuild(node=cast["league"], kind="standings")
    assert StatTable.objects.filter(competition=cast["league"]).exists()
    timeline_void(item=scored, actor="editor", reason="offside")
    assert not StatTable.objects.filter(competition=cast["league"]).exists()
