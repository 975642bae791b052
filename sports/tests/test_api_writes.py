"""Fixture writes over the API: editors only, checked against the version in If-Match."""

import pytest
from rest_framework.test import APIClient

from sports.models import Fixture, FixtureAmendment
from sports.services import fixture_amend, fixture_create
from sports.tests.factories import CompetitionFactory, FootballFactory, publish

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture
def match():
    league = CompetitionFactory(sport=FootballFactory(), code="league")
    fixture = fixture_create(competition=league, code="m1", name="Rovers v United", actor="t")
    publish(fixture)
    return fixture


def _url(fixture):
    return f"{API}/fixtures/{fixture.pk}/"


def _amend(client, fixture, if_match=None, **body):
    headers = {} if if_match is None else {"HTTP_IF_MATCH": if_match}
    return client.patch(_url(fixture), {"reason": "typo", **body}, format="json", **headers)


def _name(fixture):
    return Fixture.objects.get(pk=fixture.pk).name


def test_a_fixtures_etag_starts_with_its_version(editor_client, match):
    fixture_amend(fixture=match, changes={"name": "Derby"}, reason="r", actor="t")
    etag = editor_client.get(_url(match))["ETag"]
    assert etag.startswith('"1-') and etag.endswith('"')


def test_a_read_with_the_versioned_etag_still_gets_304(editor_client, match):
    first = editor_client.get(_url(match))
    again = editor_client.get(_url(match), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_an_amendment_with_the_current_etag_is_applied_and_answers_the_next_etag(
    editor_client, match
):
    etag = editor_client.get(_url(match))["ETag"]
    response = _amend(editor_client, match, if_match=etag, name="Derby")
    assert response.status_code == 200
    assert (response.data["name"], response.data["version"]) == ("Derby", 1)
    assert response["ETag"] == editor_client.get(_url(match))["ETag"]
    assert response["ETag"].startswith('"1-')


def test_an_amendment_with_a_stale_etag_answers_412_and_changes_nothing(editor_client, match):
    stale = editor_client.get(_url(match))["ETag"]
    fixture_amend(fixture=match, changes={"name": "Meanwhile"}, reason="other", actor="t")
    response = _amend(editor_client, match, if_match=stale, name="Late")
    assert response.status_code == 412
    assert response.json()["code"] == "precondition_failed"
    assert "changed since version 0: it is now at version 1" in response.json()["message"]
    assert set(response.json()) == {"code", "message"}
    assert _name(match) == "Meanwhile"
    assert FixtureAmendment.objects.filter(fixture=match).count() == 1


def test_if_match_may_name_the_bare_version(editor_client, match):
    assert _amend(editor_client, match, if_match='"1"', name="X").status_code == 412
    assert _amend(editor_client, match, if_match='"0"', name="X").status_code == 200
    assert _name(match) == "X"


def test_an_amendment_without_if_match_is_applied_unchecked(editor_client, match):
    fixture_amend(fixture=match, changes={"name": "Meanwhile"}, reason="other", actor="t")
    assert _amend(editor_client, match, name="Derby").status_code == 200
    assert _name(match) == "Derby"


@pytest.mark.parametrize("tag", ['W/"0"', "0", '"zero"', '"0", "1"'])
def test_an_if_match_that_can_never_hold_answers_412(editor_client, match, tag):
    response = _amend(editor_client, match, if_match=tag, name="X")
    assert response.status_code == 412
    assert response.json()["code"] == "precondition_failed"
    assert _name(match) == "Rovers v United"


def test_an_amendment_names_a_field_and_a_reason(editor_client, match):
    response = editor_client.patch(_url(match), {"reason": "nothing"}, format="json")
    assert response.status_code == 400
    response = editor_client.patch(_url(match), {"name": "X"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "reason"


def test_only_editors_amend_fixtures(outsider, match):
    client = APIClient()
    assert _amend(client, match, name="X").status_code in (401, 403)
    client.force_authenticate(outsider)
    assert _amend(client, match, name="X").status_code == 403
    assert _name(match) == "Rovers v United"


def test_an_amendment_with_a_meta_its_definition_refuses_answers_400_naming_the_field(
    editor_client, match
):
    response = _amend(editor_client, match, meta={"attendance": -5})
    assert response.status_code == 400
    assert "meta/attendance: -5 is less than the minimum of 0" in str(response.json())
    assert Fixture.objects.get(pk=match.pk).meta == {}


def test_an_amendment_of_meta_is_applied(editor_client, match):
    assert _amend(editor_client, match, meta={"attendance": 41000}).status_code == 200
    assert Fixture.objects.get(pk=match.pk).meta == {"attendance": 41000}
