"""The correction and history endpoints: who may call them and what they answer."""

import json

import pytest
from rest_framework.test import APIClient

from cricket.corrections import delivery_correct
from cricket.models import Delivery, DeliveryCorrectionHistory
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from sports.models import Participant

pytestmark = pytest.mark.django_db


@pytest.fixture
def ball():
    """0.2 of the hand-made match: a four by B Batter off X Bowler."""
    seed_dismissal_kinds()
    result = Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    return Delivery.objects.current().get(
        innings__fixture_id=result.fixture_id, over_number=0, position=2
    )


def client_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def corrections_url(delivery):
    return f"/api/v1/cricket/deliveries/{delivery.pk}/corrections/"


def history_url(delivery):
    return f"/api/v1/cricket/deliveries/{delivery.pk}/history/"


def test_an_editor_corrects_a_delivery_and_gets_the_new_revision(editor_client, ball):
    response = editor_client.post(
        corrections_url(ball),
        {"runs_batter": 3, "reason": "all run, no boundary", "non_boundary": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["delivery"]["revision"] == 2
    assert body["delivery"]["runs_total"] == 3 and body["delivery"]["non_boundary"] is True
    assert body["delivery"]["supersedes"] == ball.pk and body["previous"] == ball.pk
    assert body["fixture"] == str(ball.innings.fixture_id)
    assert str(ball.batter_id) in body["participant_ids"]


def test_wickets_can_be_set_through_the_api(editor_client, ball):
    keeper = Participant.objects.get(name="Z Keeper")
    batter = Participant.objects.get(name="B Batter")
    response = editor_client.post(
        corrections_url(ball),
        {
            "reason": "stumped, not four",
            "runs_batter": 0,
            "wickets": [
                {
                    "kind": "stumped",
                    "player_out": str(batter.pk),
                    "fielders": [{"participant": str(keeper.pk)}],
                }
            ],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    wicket = response.json()["delivery"]["wickets"][0]
    assert (wicket["kind"], wicket["fielders"][0]["participant"]["name"]) == ("stumped", "Z Keeper")


def test_a_correction_without_a_reason_is_a_400_and_changes_nothing(editor_client, ball):
    response = editor_client.post(corrections_url(ball), {"runs_batter": 3}, format="json")
    assert response.status_code == 400
    assert "reason" in {e.get("field") for e in response.json()["errors"]}
    assert not DeliveryCorrectionHistory.objects.exists()


def test_an_invalid_value_from_the_service_is_a_400_naming_the_field(editor_client, ball):
    response = editor_client.post(
        corrections_url(ball),
        {"reason": "r", "bowler": "00000000-0000-0000-0000-000000000000"},
        format="json",
    )
    assert response.status_code == 400
    (error,) = [e for e in response.json()["errors"] if e.get("field") == "bowler"]
    assert "no participant has id" in error["message"]


def test_correcting_a_superseded_revision_is_a_409(editor_client, editor, ball):
    delivery_correct(delivery=ball, changes={"runs_batter": 2}, reason="two", actor=editor)
    response = editor_client.post(
        corrections_url(ball), {"runs_batter": 3, "reason": "three"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "conflict"
    assert "already corrected" in response.json()["message"]


def test_an_unknown_delivery_is_a_404(editor_client, ball):
    response = editor_client.post(
        "/api/v1/cricket/deliveries/999999999/corrections/",
        {"runs_batter": 3, "reason": "r"},
        format="json",
    )
    assert response.status_code == 404


@pytest.mark.parametrize("persona", ["viewer", "submitter", "reviewer", "outsider"])
def test_only_editors_and_administrators_may_correct(request, ball, persona):
    user = request.getfixturevalue(persona)
    response = client_for(user).post(
        corrections_url(ball), {"runs_batter": 3, "reason": "r"}, format="json"
    )
    assert response.status_code == 403
    assert not DeliveryCorrectionHistory.objects.exists()


def test_an_administrator_may_correct(admin_user, ball):
    response = client_for(admin_user).post(
        corrections_url(ball), {"runs_batter": 3, "reason": "r"}, format="json"
    )
    assert response.status_code == 201


def test_anonymous_callers_may_not_correct(anon_client, ball):
    response = anon_client.post(corrections_url(ball), {"runs_batter": 3, "reason": "r"})
    assert response.status_code in (401, 403)


def test_the_history_lists_every_revision_and_correction_record(editor_client, editor, ball):
    first = delivery_correct(delivery=ball, changes={"runs_batter": 2}, reason="two", actor=editor)
    delivery_correct(
        delivery=first.delivery, changes={"runs_batter": 4}, reason="back", actor=editor
    )
    response = editor_client.get(history_url(ball))
    assert response.status_code == 200
    body = response.json()
    assert [(r["revision"], r["is_current"]) for r in body["revisions"]] == [
        (1, False),
        (2, False),
        (3, True),
    ]
    assert [c["reason"] for c in body["corrections"]] == ["two", "back"]
    record = body["corrections"][0]
    assert record["previous_snapshot"]["runs"]["batter"] == 4
    assert record["resulting_snapshot"]["runs"]["batter"] == 2
    assert record["requested_by"] == "editor"
    assert record["original_submission"] == str(ball.submission_id)


def test_the_history_of_any_revision_is_the_same_lineage(editor_client, editor, ball):
    result = delivery_correct(delivery=ball, changes={"runs_batter": 2}, reason="two", actor=editor)
    old = editor_client.get(history_url(ball)).json()
    new = editor_client.get(history_url(result.delivery)).json()
    assert old == new


@pytest.mark.parametrize("persona", ["editor", "reviewer", "admin_user"])
def test_editors_reviewers_and_administrators_read_the_history(request, ball, persona):
    user = request.getfixturevalue(persona)
    assert client_for(user).get(history_url(ball)).status_code == 200


@pytest.mark.parametrize("persona", ["viewer", "submitter", "outsider"])
def test_others_may_not_read_the_history(request, ball, persona):
    user = request.getfixturevalue(persona)
    assert client_for(user).get(history_url(ball)).status_code == 403


def test_anonymous_callers_may_not_read_the_history(anon_client, ball):
    assert anon_client.get(history_url(ball)).status_code in (401, 403)


def test_the_history_costs_a_fixed_number_of_queries(
    editor_client, editor, ball, django_assert_max_num_queries
):
    current = ball
    for runs in (1, 2, 3, 5):
        current = delivery_correct(
            delivery=current, changes={"runs_batter": runs}, reason=f"{runs}", actor=editor
        ).delivery
    with django_assert_max_num_queries(12):
        assert editor_client.get(history_url(ball)).status_code == 200


def _fixture(ball):
    from sports.models import Fixture

    return Fixture.objects.get(pk=ball.innings.fixture_id)


def test_a_correction_moves_its_fixtures_version_on(editor, ball):
    before = _fixture(ball).version
    delivery_correct(delivery=ball, changes={"runs_batter": 1}, reason="one", actor=editor)
    assert _fixture(ball).version == before + 1


def test_a_correction_made_from_the_current_scorecard_is_applied(editor_client, ball):
    scorecard = editor_client.get(f"/api/v1/cricket/fixtures/{ball.innings.fixture_id}/scorecard/")
    assert scorecard["ETag"].startswith(f'"{_fixture(ball).version}-')
    response = editor_client.post(
        corrections_url(ball),
        {"runs_batter": 1, "reason": "one"},
        format="json",
        HTTP_IF_MATCH=scorecard["ETag"],
    )
    assert response.status_code == 201, response.content


def test_a_correction_made_from_a_stale_scorecard_answers_412_and_writes_nothing(
    editor_client, editor, ball
):
    stale = f'"{_fixture(ball).version}"'
    other = Delivery.objects.current().get(
        innings_id=ball.innings_id, over_number=ball.over_number, position=1
    )
    delivery_correct(delivery=other, changes={"runs_batter": 2}, reason="two", actor=editor)
    response = editor_client.post(
        corrections_url(ball), {"runs_batter": 1, "reason": "one"}, format="json",
        HTTP_IF_MATCH=stale,
    )  # fmt: skip
    assert response.status_code == 412
    assert response.json()["code"] == "precondition_failed"
    assert Delivery.objects.current().get(pk=ball.pk).revision == 1
    assert not DeliveryCorrectionHistory.objects.filter(previous_delivery=ball).exists()
