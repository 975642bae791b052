"""The provenance trace API: reviewers within their competitions, editors and
administrators read it; viewers, outsiders and anonymous callers get 403."""

import hashlib

import pytest
from rest_framework.test import APIClient

from accounts.access import competition_grant_set
from accounts.models import Role
from cricket.tests.factories import seed_dismissal_kinds
from ingest.tests.batch_factories import SMALL, sample
from ingest.tests.provenance_factories import (
    NASH_MATCHES,
    NASH_REGISTRY_ID,
    participant_of,
    published_batch,
    reviewer_without_grants,
    top_batting_line,
)
from sports.services import competition_create
from sports.tests.factories import FootballFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


@pytest.fixture
def scoped(db):
    return reviewer_without_grants()


@pytest.fixture
def line(submitter, reviewer):
    batch = published_batch(submitter=submitter, reviewer=reviewer, match_ids=[SMALL[0]])
    return top_batting_line(batch.items.get().fixture_id)


def _client(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _line_url(line) -> str:
    return f"/api/v1/cricket/provenance/lines/batting/{line.pk}/"


def _player_url(participant) -> str:
    return f"/api/v1/cricket/provenance/players/{participant.pk}/"


def test_an_editor_reads_the_chain_from_figure_to_reviewer(editor, submitter, reviewer, line):
    response = _client(editor).get(_line_url(line), {"figure": "runs"})
    assert response.status_code == 200, response.data
    body = response.json()
    assert body["value"] == body["contributed"] == line.runs
    assert body["deliveries"] and all(d["revision"] >= 1 for d in body["deliveries"])
    (source,) = body["sources"]
    assert source["stored_object"]["sha256"] == hashlib.sha256(sample(SMALL[0])[1]).hexdigest()
    assert source["submitter"]["name"] == str(submitter)
    assert source["review_decisions"][0]["reviewer"]["name"] == str(reviewer)
    assert source["batch"]["id"] == str(source["batch"]["id"])  # serialised as text


@pytest.mark.parametrize("persona", ["viewer", "outsider", "submitter"])
def test_people_who_do_not_review_get_403(persona, request, line):
    user = request.getfixturevalue(persona)
    assert _client(user).get(_line_url(line)).status_code == 403


def test_an_anonymous_caller_gets_403(line):
    assert _client().get(_line_url(line)).status_code == 403


def test_a_reviewer_without_a_grant_on_the_competition_gets_403(scoped, admin_user, line):
    other = competition_create(
        code="other", name="Other", type="league", sport=FootballFactory(), actor="t"
    )
    competition_grant_set(user=scoped, competition=other, role=Role.REVIEWER, actor=admin_user)
    response = _client(scoped).get(_line_url(line))
    assert response.status_code == 403
    assert "do not review" in response.json()["message"]


def test_a_reviewer_with_no_grant_at_all_gets_403(scoped, line):
    assert _client(scoped).get(_line_url(line)).status_code == 403


def test_a_reviewer_granted_the_competition_reads_the_trace(scoped, admin_user, line):
    competition_grant_set(
        user=scoped, competition=line.competition, role=Role.REVIEWER, actor=admin_user
    )
    response = _client(scoped).get(_line_url(line), {"figure": "balls_faced"})
    assert response.status_code == 200
    assert response.json()["value"] == line.balls_faced


def test_a_figure_the_line_does_not_have_is_a_400_naming_it(editor, line):
    response = _client(editor).get(_line_url(line), {"figure": "wickets"})
    assert response.status_code == 400
    assert "figure" in {e.get("field") or e.get("parameter") for e in response.json()["errors"]}


def test_an_unknown_line_is_a_404(editor):
    assert (
        _client(editor).get("/api/v1/cricket/provenance/lines/batting/999999/").status_code == 404
    )


def test_a_career_trace_pages_by_fixture_with_a_cursor(editor, submitter, reviewer):
    published_batch(submitter=submitter, reviewer=reviewer, match_ids=NASH_MATCHES)
    nash = participant_of(NASH_REGISTRY_ID)
    client = _client(editor)
    first = client.get(_player_url(nash), {"figure": "runs", "fixtures": 1}).json()
    assert [g["value"] for g in first["fixtures"]] == [30]
    second = client.get(
        _player_url(nash), {"figure": "runs", "fixtures": 1, "cursor": first["next_cursor"]}
    ).json()
    assert [g["value"] for g in second["fixtures"]] == [112]
    assert second["next_cursor"] is None
    assert first["value"] == second["value"] == 142


def test_a_career_trace_in_another_format_is_empty(editor, submitter, reviewer):
    published_batch(submitter=submitter, reviewer=reviewer, match_ids=NASH_MATCHES)
    nash = participant_of(NASH_REGISTRY_ID)
    body = _client(editor).get(_player_url(nash), {"figure": "runs", "match_type": "Test"}).json()
    assert (body["value"], body["fixtures"], body["sources"]) == (0, [], [])


def test_a_scoped_reviewer_traces_a_career_only_inside_their_competition(scoped, admin_user, line):
    competition_grant_set(
        user=scoped, competition=line.competition, role=Role.REVIEWER, actor=admin_user
    )
    url = _player_url(line.participant)
    assert _client(scoped).get(url, {"figure": "runs"}).status_code == 403
    scoped = _client(scoped).get(url, {"figure": "runs", "competition": line.competition_id})
    assert scoped.status_code == 200
    assert scoped.json()["value"] == line.runs


def test_the_line_trace_endpoint_runs_a_fixed_number_of_queries(
    editor, line, django_assert_num_queries
):
    client = _client(editor)
    # The line, the merged ids, the deliveries, their wickets, the batch items and the
    # review decisions (no ball corrected, no wicket among them: no further lookups).
    with django_assert_num_queries(6):
        response = client.get(_line_url(line), {"figure": "balls_faced"})
    assert response.status_code == 200


def test_the_schema_documents_both_trace_endpoints(editor):
    schema = _client(editor).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/cricket/provenance/lines/{kind}/{id}/" in schema["paths"]
    assert "/api/v1/cricket/provenance/players/{id}/" in schema["paths"]
