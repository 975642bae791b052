"""The conventions every list and every error under /api/ share (docs/api.md): one paging
style per kind with a validated page size, one error shape, one filter vocabulary checked
against what each list documents, and cache headers on public reads."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.tests.builders import ball, document, import_match, innings
from cricket.tests.factories import seed_dismissal_kinds
from sports.tests.factories import FixtureFactory, SportFactory, publish

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture
def api():
    return APIClient(REMOTE_ADDR="192.0.2.10")


@pytest.fixture
def fixtures():
    sport = SportFactory(code="football", name="Football")
    return [publish(FixtureFactory(sport=sport, name=f"Match {n}")) for n in range(5)]


@pytest.fixture
def board():
    seed_dismissal_kinds()
    bowled = [{"player_out": "B Batter", "kind": "bowled"}]
    import_match(document(innings([ball(runs=4), ball("C Batter", runs=1), ball(wickets=bowled)])))
    statistics_rebuild_all(reason="test", actor="integration:test")


def _walk(api, url, params=None):
    """Every row of a paged list, following ``next`` to the end."""
    rows, pages = [], 0
    response = api.get(url, params or {})
    while True:
        assert response.status_code == 200, response.content
        body = response.json()
        rows.extend(body["results"])
        pages += 1
        if not body["next"]:
            return rows, pages
        response = api.get(body["next"])


def _problem(response) -> tuple[str, str]:
    body = response.json()
    assert set(body) == {"code", "message", "errors"}, body
    (error,) = body["errors"]
    return error.get("parameter") or error.get("field"), error["code"]


# --- paging ------------------------------------------------------------------------------


def test_a_page_size_over_the_cap_is_a_400_naming_the_limit(api, fixtures):
    response = api.get(f"{API}/fixtures/", {"page_size": 100000})
    assert response.status_code == 400
    assert _problem(response) == ("page_size", "max_value")
    assert "200" in response.json()["message"]


def test_a_page_size_at_the_cap_is_accepted(api, fixtures):
    assert api.get(f"{API}/fixtures/", {"page_size": 200}).status_code == 200


def test_fixtures_page_by_cursor_to_the_end_without_repeats(api, fixtures):
    rows, pages = _walk(api, f"{API}/fixtures/", {"page_size": 2})
    assert pages == 3
    assert sorted(r["id"] for r in rows) == sorted(str(f.pk) for f in fixtures)


def test_a_position_cursor_beyond_any_list_is_a_400_not_a_database_overflow(api):
    import base64

    huge = base64.b64encode(b"o=99999999999999999999999").decode()
    response = api.get(f"{API}/cricket/leaderboards/batting/", {"cursor": huge})
    assert response.status_code == 400
    assert _problem(response) == ("cursor", "invalid_cursor")


def test_a_cursor_the_list_did_not_give_out_is_a_400(api, fixtures):
    response = api.get(f"{API}/fixtures/", {"cursor": "not-a-cursor"})
    assert response.status_code == 400
    assert _problem(response) == ("cursor", "invalid_cursor")


def test_the_leaderboard_pages_with_next_links_and_honours_page_size(api, board):
    url = reverse("cricket-leaderboard-batting")
    rows, pages = _walk(api, url, {"page_size": 1})
    assert pages == len(rows) >= 3
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert len({r["participant_id"] for r in rows}) == len(rows)


def test_the_leaderboard_refuses_a_page_size_over_the_cap(api, board):
    response = api.get(reverse("cricket-leaderboard-batting"), {"page_size": 201})
    assert response.status_code == 400
    assert _problem(response) == ("page_size", "max_value")


# --- errors ------------------------------------------------------------------------------


def test_a_malformed_id_in_a_uuid_path_is_a_json_404(api):
    response = api.get(f"{API}/cricket/fixtures/not-a-uuid/scorecard/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "not_found", "message": "Not found."}


def test_a_method_not_allowed_is_a_405_in_the_error_shape(api):
    response = api.delete(f"{API}/sports/")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_an_accept_header_naming_no_format_is_a_406_in_the_error_shape(api):
    response = api.get(f"{API}/sports/", HTTP_ACCEPT="text/csv")
    assert response.status_code == 406
    assert response.json()["code"] == "not_acceptable"


def test_a_body_of_an_unread_media_type_is_a_415(editor_client):
    response = editor_client.post(f"{API}/threads/", data="a,b", content_type="text/csv")
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


def test_a_body_over_the_upload_limit_is_a_413(editor_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = editor_client.post(
        f"{API}/threads/", data={"subject_type": "x" * 500}, format="json"
    )
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"


def test_an_unhandled_error_is_a_json_500(api, monkeypatch):
    from sports.apis import SportViewSet

    def broken(self, request, *args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(SportViewSet, "list", broken)
    api.raise_request_exception = False
    response = api.get(f"{API}/sports/")
    assert response.status_code == 500
    assert response.json() == {
        "code": "server_error",
        "message": "Server error: the failure was logged.",
    }


def test_a_throttled_request_is_a_429_in_the_error_shape(api, settings):
    settings.API_ANON_PER_MINUTE = 1
    api.get(f"{API}/sports/")
    response = api.get(f"{API}/sports/")
    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert "Retry-After" in response


# --- filters -----------------------------------------------------------------------------


def test_an_unknown_parameter_is_a_400_naming_it(api, fixtures):
    response = api.get(f"{API}/fixtures/", {"colour": "red"})
    assert response.status_code == 400
    assert _problem(response) == ("colour", "unknown")


def test_an_unknown_sport_is_a_400_not_an_empty_list(api, fixtures):
    response = api.get(f"{API}/fixtures/", {"sport": "bogus"})
    assert response.status_code == 400
    assert _problem(response) == ("sport", "invalid_choice")


def test_a_status_outside_its_choices_is_a_400_naming_it(api, fixtures):
    response = api.get(f"{API}/fixtures/", {"status": "bogus"})
    assert response.status_code == 400
    assert _problem(response)[0] == "status"


def test_participants_search_with_q(api, fixtures):
    from sports.tests.factories import ParticipantFactory

    ParticipantFactory(name="Ada Lovelace")
    ParticipantFactory(name="Grace Hopper")
    body = api.get(f"{API}/participants/", {"q": "lovel"}).json()
    assert [p["name"] for p in body["results"]] == ["Ada Lovelace"]


def test_format_is_the_cricket_format_filter_on_the_leaderboard(api, board):
    response = api.get(reverse("cricket-leaderboard-batting"), {"format": "T20"})
    assert response.status_code == 200
    assert response.json()["scope"]["match_type"] == "T20"
    assert response.json()["results"]
    odi = api.get(reverse("cricket-leaderboard-batting"), {"format": "ODI"}).json()
    assert odi["results"] == []


def test_an_unknown_leaderboard_parameter_is_a_400_naming_it(api, board):
    response = api.get(reverse("cricket-leaderboard-batting"), {"limit": 5})
    assert response.status_code == 400
    assert _problem(response) == ("limit", "unknown")


def test_a_leaderboard_ordering_outside_the_figures_is_a_400(api, board):
    response = api.get(reverse("cricket-leaderboard-batting"), {"ordering": "shoe_size"})
    assert response.status_code == 400
    assert _problem(response) == ("ordering", "invalid_choice")


def test_fixtures_order_by_the_offered_orderings_only(api, fixtures):
    newest = api.get(f"{API}/fixtures/", {"ordering": "-scheduled_start"})
    assert newest.status_code == 200
    refused = api.get(f"{API}/fixtures/", {"ordering": "name"})
    assert refused.status_code == 400
    assert _problem(refused) == ("ordering", "invalid_choice")


# --- cache headers -----------------------------------------------------------------------


def test_an_anonymous_read_is_publicly_cacheable_and_varies_on_credentials(api, fixtures):
    response = api.get(f"{API}/fixtures/")
    assert response["Cache-Control"] == "public, max-age=60"
    assert {"Accept", "Authorization", "Cookie"} <= {v.strip() for v in response["Vary"].split(",")}


def test_a_signed_in_read_is_private(editor_client, fixtures):
    response = editor_client.get(f"{API}/fixtures/")
    assert response["Cache-Control"] == "private, no-cache"


@pytest.mark.parametrize("table", ["medal-table", "standings"])
def test_a_table_refuses_an_unknown_parameter_naming_it(api, table):
    import uuid

    response = api.get(f"{API}/competitions/{uuid.uuid4()}/{table}/", {"colour": "red"})
    assert response.status_code == 400
    assert _problem(response) == ("colour", "unknown")
