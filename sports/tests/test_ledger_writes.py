"""Voiding a log item from the console and over the API: one service, a reason each time."""

import json

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from rest_framework.test import APIClient

from accounts.services import account_groups_sync
from sports.models import Fixture, TimelineItem, TimelineStatus
from sports.services import CompetitorSpec, fixture_command, fixture_create
from sports.tests.factories import CompetitionFactory, FootballFactory, TeamFactory, publish

pytestmark = pytest.mark.django_db

ITEMS = "/admin/sports/timelineitem/"
API = "/api/v1"


@pytest.fixture
def match():
    league = CompetitionFactory(sport=FootballFactory(), code="league")
    fixture = fixture_create(
        competition=league,
        code="m1",
        actor="t",
        competitors=[
            CompetitorSpec(participant=TeamFactory(), alignment="home"),
            CompetitorSpec(participant=TeamFactory(), alignment="away"),
        ],
    )
    publish(fixture)
    for name, payload in (
        ("start", {}),
        ("goal", {"side": "home", "minute": 5}),
        ("goal", {"side": "away", "minute": 9}),
    ):
        fixture_command(fixture=fixture, command=name, payload=payload, actor="scorer")
    return fixture


def _away_goal(fixture):
    return TimelineItem.objects.get(fixture=fixture, event_type="football.goal", payload__minute=9)


def _score(fixture):
    return Fixture.objects.get(pk=fixture.pk).live_state["score"]


@pytest.fixture
def console(client, editor):
    account_groups_sync(user=editor)  # the role's console permissions
    client.force_login(editor)
    return client


def _action(console, action, items, **data):
    return console.post(
        ITEMS, {"action": action, ACTION_CHECKBOX_NAME: [str(i.pk) for i in items], **data}
    )


def _void_action(console, items, **data):
    return _action(console, "void", items, **data)


def test_the_void_action_asks_for_a_reason_first(console, match):
    response = _void_action(console, [_away_goal(match)], index="0")
    assert response.status_code == 200
    assert "reason" in response.context["form"].fields
    assert _away_goal(match).status == TimelineStatus.ACTIVE


def test_voiding_without_a_reason_is_refused(console, match):
    response = _void_action(console, [_away_goal(match)], confirm="yes")
    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    assert _away_goal(match).status == TimelineStatus.ACTIVE


def test_the_void_action_voids_through_the_service_and_rebuilds_the_board(console, match, editor):
    response = _void_action(console, [_away_goal(match)], confirm="yes", reason="offside")
    assert response.status_code == 302
    assert _away_goal(match).status == TimelineStatus.VOIDED
    assert _score(match) == {"home": 1, "away": 0}
    logged = TimelineItem.objects.get(fixture=match, event_type="timeline.void")
    assert (logged.actor, logged.payload["reason"]) == (editor.username, "offside")


def test_a_refused_void_in_the_console_voids_none_of_the_items(console, match):
    start = TimelineItem.objects.get(fixture=match, event_type="football.start")
    response = console.post(
        ITEMS,
        {
            "action": "void",
            ACTION_CHECKBOX_NAME: [str(_away_goal(match).pk), str(start.pk)],
            "confirm": "yes",
            "reason": "bad data",
        },
        follow=True,
    )
    assert any("Nothing voided" in str(m) for m in response.context["messages"])
    assert _away_goal(match).status == TimelineStatus.ACTIVE
    assert _score(match) == {"home": 1, "away": 1}


def test_the_void_action_is_offered_to_editors_only(console, client, reviewer, match):
    assert "void" in dict(console.get(ITEMS).context["action_form"].fields["action"].choices)
    account_groups_sync(user=reviewer)
    client.force_login(reviewer)
    # A reviewer reads the log but is not offered the action, and posting it does nothing.
    page = client.get(ITEMS)
    assert page.status_code == 200 and page.context["action_form"] is None
    assert _void_action(client, [_away_goal(match)], confirm="yes", reason="x").status_code == 200
    assert _away_goal(match).status == TimelineStatus.ACTIVE


def _void_url(fixture, seq):
    return f"{API}/fixtures/{fixture.pk}/timeline/{seq}/void/"


def test_an_editor_voids_an_item_over_the_api_and_gets_the_rebuilt_fixture(editor_client, match):
    seq = _away_goal(match).seq
    response = editor_client.post(_void_url(match, seq), {"reason": "offside"}, format="json")
    assert response.status_code == 200
    assert response.data["live_state"]["score"] == {"home": 1, "away": 0}
    assert response["ETag"] == editor_client.get(f"{API}/fixtures/{match.pk}/")["ETag"]
    assert _away_goal(match).status == TimelineStatus.VOIDED


def test_a_void_with_a_stale_if_match_answers_412(editor_client, match):
    seq = _away_goal(match).seq
    response = editor_client.post(
        _void_url(match, seq), {"reason": "offside"}, format="json", HTTP_IF_MATCH='"1"'
    )
    assert response.status_code == 412
    assert response.json()["code"] == "precondition_failed"
    assert _away_goal(match).status == TimelineStatus.ACTIVE


def test_a_void_over_the_api_needs_a_reason_and_a_live_item(editor_client, match):
    seq = _away_goal(match).seq
    assert editor_client.post(_void_url(match, seq), {}, format="json").status_code == 400
    editor_client.post(_void_url(match, seq), {"reason": "offside"}, format="json")
    again = editor_client.post(_void_url(match, seq), {"reason": "again"}, format="json")
    assert again.status_code == 400
    assert "only a live item" in again.json()["message"]
    missing = editor_client.post(_void_url(match, 999), {"reason": "x"}, format="json")
    assert missing.status_code == 404


def test_only_editors_void_over_the_api(outsider, match):
    api = APIClient()
    api.force_authenticate(outsider)
    response = api.post(_void_url(match, _away_goal(match).seq), {"reason": "x"}, format="json")
    assert response.status_code == 403
    assert _away_goal(match).status == TimelineStatus.ACTIVE


def _correct_url(fixture, seq):
    return f"{API}/fixtures/{fixture.pk}/timeline/{seq}/correct/"


def test_an_editor_corrects_a_command_over_the_api(editor_client, match):
    old = _away_goal(match)
    etag = editor_client.get(f"{API}/fixtures/{match.pk}/")["ETag"]
    response = editor_client.post(
        _correct_url(match, old.seq),
        {"payload": {"side": "home", "minute": 9}, "reason": "wrong side"},
        format="json",
        HTTP_IF_MATCH=etag,
    )
    assert response.status_code == 200
    assert response.data["live_state"]["score"] == {"home": 2, "away": 0}
    old.refresh_from_db()
    assert old.status == TimelineStatus.SUPERSEDED
    assert old.superseded_by.get().payload == {"side": "home", "minute": 9}


def test_a_correction_the_command_does_not_take_answers_400(editor_client, match):
    seq = _away_goal(match).seq
    response = editor_client.post(
        _correct_url(match, seq),
        {"payload": {"side": "middle", "minute": 9}, "reason": "x"},
        format="json",
    )
    assert response.status_code == 400
    assert _away_goal(match).status == TimelineStatus.ACTIVE


def test_a_correction_with_a_stale_if_match_answers_412(editor_client, match):
    response = editor_client.post(
        _correct_url(match, _away_goal(match).seq),
        {"payload": {"side": "home", "minute": 9}, "reason": "wrong side"},
        format="json",
        HTTP_IF_MATCH='"0"',
    )
    assert response.status_code == 412
    assert _away_goal(match).status == TimelineStatus.ACTIVE


def test_the_correct_action_offers_the_items_payload_to_edit(console, match):
    response = _action(console, "correct", [_away_goal(match)], index="0")
    assert response.status_code == 200
    assert json.loads(response.context["form"]["payload"].value()) == {"side": "away", "minute": 9}


def test_the_correct_action_supersedes_the_item_through_the_service(console, match):
    old = _away_goal(match)
    response = _action(
        console,
        "correct",
        [old],
        confirm="yes",
        payload='{"side": "home", "minute": 9}',
        reason="wrong side",
    )
    assert response.status_code == 302
    old.refresh_from_db()
    assert old.status == TimelineStatus.SUPERSEDED
    assert _score(match) == {"home": 2, "away": 0}


def test_the_correct_action_needs_a_reason(console, match):
    response = _action(
        console, "correct", [_away_goal(match)], confirm="yes", payload='{"side": "home"}'
    )
    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    assert _away_goal(match).status == TimelineStatus.ACTIVE
