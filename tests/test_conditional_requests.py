"""Conditional GETs on the hot read endpoints: a polling client gets a cheap 304 until the
data behind the response changes."""

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from catalogue.tests.factories import ListingFactory, PriceObservationFactory, ProductFactory
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from omnium.testing import cache_clear_own
from sports.models import Fixture
from sports.tests.factories import CompetitorFactory, FixtureFactory, publish

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    return APIClient(REMOTE_ADDR="192.0.2.80")


@pytest.fixture
def fixture():
    fixture = publish(FixtureFactory())
    CompetitorFactory(fixture=fixture, ordinal=1)
    return fixture


@pytest.fixture
def cricket_fixture():
    seed_dismissal_kinds()
    raw = json.dumps(cricsheet_match()).encode()
    result = Importer().import_file(raw, filename="900001.json")
    return Fixture.objects.get(pk=result.fixture_id)


@pytest.fixture
def product():
    product = ProductFactory()
    PriceObservationFactory(
        listing=ListingFactory(product=product),
        price=Decimal("10.00"),
        observed_at=datetime(2026, 1, 5, 9, tzinfo=UTC),
    )
    return product


def _url(kind, obj):
    return {
        "fixture": f"/api/v1/fixtures/{obj.pk}/",
        "scorecard": f"/api/v1/cricket/fixtures/{obj.pk}/scorecard/",
        "product": f"/api/v1/products/{obj.pk}/",
    }[kind]


@pytest.mark.parametrize("kind", ["fixture", "scorecard", "product"])
def test_a_matching_etag_gets_304_without_a_body(request, api, kind, django_assert_max_num_queries):
    obj = request.getfixturevalue({"scorecard": "cricket_fixture"}.get(kind, kind))
    first = api.get(_url(kind, obj))
    assert first.status_code == 200
    assert first["ETag"] and first["Last-Modified"]
    # The anonymous admission and the freshness query; the response is never built.
    with django_assert_max_num_queries(2):
        again = api.get(_url(kind, obj), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]
    assert again["RateLimit-Limit"]


@pytest.mark.parametrize("kind", ["fixture", "scorecard", "product"])
def test_an_unchanged_last_modified_gets_304(request, api, kind):
    obj = request.getfixturevalue({"scorecard": "cricket_fixture"}.get(kind, kind))
    first = api.get(_url(kind, obj))
    again = api.get(_url(kind, obj), HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 304


def test_a_renamed_player_changes_the_fixtures_etag(api, fixture):
    first = api.get(_url("fixture", fixture))
    participant = fixture.competitors.get().participant
    participant.name = "Renamed FC"
    participant.save()
    again = api.get(_url("fixture", fixture), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]


def test_a_changed_innings_changes_the_scorecards_etag(api, cricket_fixture):
    first = api.get(_url("scorecard", cricket_fixture))
    innings = cricket_fixture.innings.get()
    innings.penalty_runs_post = 5
    innings.save()
    again = api.get(_url("scorecard", cricket_fixture), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]


def test_a_new_price_changes_the_products_etag(api, product):
    first = api.get(_url("product", product))
    PriceObservationFactory(
        listing=product.listings.get(),
        price=Decimal("9.00"),
        observed_at=datetime(2026, 1, 4, 9, tzinfo=UTC),  # even one dated earlier
    )
    again = api.get(_url("product", product), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200


def test_a_fixture_the_reader_cannot_see_is_404_whatever_it_sends(api):
    hidden = publish(FixtureFactory(), accepted=False)
    response = api.get(_url("fixture", hidden), HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 404


def test_a_merged_product_id_answers_in_full_as_its_survivor(api, product):
    merged = ProductFactory(merged_into=product)
    response = api.get(_url("product", merged), HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 200
    assert response.json()["id"] == str(product.pk)
    assert "ETag" not in response


def test_the_etag_differs_between_representations(api, fixture):
    # The format is negotiated from Accept alone (no ?format= override).
    as_json = api.get(_url("fixture", fixture), HTTP_ACCEPT="application/json")
    as_page = api.get(_url("fixture", fixture), HTTP_ACCEPT="text/html")
    assert as_page["Content-Type"].startswith("text/html")
    assert as_json["ETag"] != as_page["ETag"]


@pytest.fixture
def empty_cache():
    cache_clear_own()


@pytest.mark.parametrize("kind", ["fixture", "scorecard", "product"])
def test_an_unchanged_record_is_served_from_the_stored_body(
    request, api, kind, empty_cache, django_assert_max_num_queries
):
    obj = request.getfixturevalue({"scorecard": "cricket_fixture"}.get(kind, kind))
    first = api.get(_url(kind, obj))
    # No validator sent: the admission and the freshness query, then the stored bytes.
    with django_assert_max_num_queries(2):
        again = api.get(_url(kind, obj))
    assert again.status_code == 200
    assert again.content == first.content
    assert again["ETag"] == first["ETag"]


def test_a_change_is_never_answered_with_the_stored_body(api, fixture, empty_cache):
    first = api.get(_url("fixture", fixture)).json()
    participant = fixture.competitors.get().participant
    participant.name = "Renamed FC"
    participant.save()
    again = api.get(_url("fixture", fixture)).json()
    assert again != first
    assert "Renamed FC" in json.dumps(again)


def test_the_browsable_api_is_not_stored(api, fixture, empty_cache, settings):
    api.get(_url("fixture", fixture), HTTP_ACCEPT="text/html")
    # Only this run's keys: other runs share the Redis database under their own prefixes.
    ours = cache._cache.get_client().keys(f"{settings.CACHES['default']['KEY_PREFIX']}:*")
    assert not [k for k in ours if b"conditional-body" in k]


def _first_delivery(fixture):
    from cricket.models import Delivery

    return Delivery.objects.current().filter(innings__fixture=fixture).order_by("sequence").first()


def test_a_corrected_delivery_changes_the_scorecards_etag(api, cricket_fixture, editor):
    from cricket.corrections import delivery_correct

    first = api.get(_url("scorecard", cricket_fixture))
    delivery = _first_delivery(cricket_fixture)
    delivery_correct(
        delivery=delivery,
        changes={"runs_batter": delivery.runs_batter + 1},
        reason="scorer's error",
        actor=editor,
    )
    again = api.get(_url("scorecard", cricket_fixture), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]


@pytest.fixture
def batter(cricket_fixture):
    from cricket.stats.refresh import statistics_refresh, statistics_refresh_run

    refresh = statistics_refresh(
        fixture_ids=[cricket_fixture.pk], reason="test import", actor="editor:test"
    )
    statistics_refresh_run(refresh_id=refresh.pk)
    return _first_delivery(cricket_fixture).batter


def _career(player):
    return f"/api/v1/cricket/players/{player.pk}/career/"


def test_a_matching_career_etag_gets_304(api, batter, django_assert_max_num_queries):
    first = api.get(_career(batter))
    assert first.status_code == 200
    # The freshness state, plus the refreshes the career still owes (a queued refresh is a
    # new answer: it says ``stale``).
    with django_assert_max_num_queries(3):
        again = api.get(_career(batter), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_a_refresh_touching_the_player_changes_the_careers_etag(
    api, cricket_fixture, batter, editor
):
    from cricket.corrections import delivery_correct
    from cricket.stats.models import StatisticsRefresh
    from cricket.stats.refresh import statistics_refresh_run

    first = api.get(_career(batter))
    delivery = _first_delivery(cricket_fixture)
    delivery_correct(
        delivery=delivery,
        changes={"runs_batter": delivery.runs_batter + 1},
        reason="scorer's error",
        actor=editor,
    )
    pending = api.get(_career(batter), HTTP_IF_NONE_MATCH=first["ETag"])
    assert pending.status_code == 200  # the data version moved with the correction
    statistics_refresh_run(refresh_id=StatisticsRefresh.objects.order_by("-requested_at")[0].pk)
    rebuilt = api.get(_career(batter), HTTP_IF_NONE_MATCH=pending["ETag"])
    assert rebuilt.status_code == 200  # and again when the snapshot is rebuilt
    assert rebuilt.json() != first.json()


def test_a_merged_players_career_answers_as_the_survivor_without_a_validator(
    api, cricket_fixture, batter
):
    from sports.models import Participant

    survivor = _first_delivery(cricket_fixture).bowler
    Participant.objects.filter(pk=batter.pk).update(merged_into=survivor)
    response = api.get(_career(batter), HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 200
    assert response.json()["id"] == str(survivor.pk)
    assert "ETag" not in response


def test_an_editor_gets_304_for_a_fixture_the_public_cannot_see(editor):
    hidden = publish(FixtureFactory(), accepted=False)
    client = APIClient()
    client.force_authenticate(editor)
    first = client.get(_url("fixture", hidden))
    assert first.status_code == 200
    again = client.get(_url("fixture", hidden), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_a_compiled_freshness_query_answers_each_key_it_is_given(fixture):
    from sports.freshness import _FIXTURE_STATE, _fixture_state
    from sports.querysets import Visibility

    other = publish(FixtureFactory())
    compiled = _FIXTURE_STATE[Visibility.PUBLISHED]
    for record in (fixture, other):
        expected = _fixture_state(Fixture.objects.public(), record.pk).first()
        assert compiled.row(record.pk) == expected
    hidden = publish(FixtureFactory(), accepted=False)
    assert compiled.row(hidden.pk) is None


def test_a_finished_refresh_changes_the_leaderboards_etag(api, batter, cricket_fixture):
    from cricket.stats.refresh import statistics_refresh, statistics_refresh_run

    url = "/api/v1/cricket/leaderboards/batting/"
    first = api.get(url)
    assert api.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    refresh = statistics_refresh(
        fixture_ids=[cricket_fixture.pk], reason="test again", actor="editor:test"
    )
    statistics_refresh_run(refresh_id=refresh.pk)
    assert api.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_leaderboards_with_other_parameters_have_other_etags(api, batter):
    url = "/api/v1/cricket/leaderboards/batting/"
    assert api.get(url)["ETag"] != api.get(url, {"ordering": "-balls_faced"})["ETag"]


@pytest.fixture
def league(editor):
    from sports.services.tree import competition_create

    root = competition_create(code="etag-league", name="Etag League", type="league", actor=editor)
    season = competition_create(
        code="etag-2026", name="2026", type="season", parent=root, actor=editor
    )
    return root, season


def test_a_competition_answers_304_until_a_child_is_added(api, league, editor):
    from sports.services.tree import competition_create

    root, _season = league
    url = f"/api/v1/competitions/{root.pk}/"
    first = api.get(url)
    assert first["ETag"] and first["Last-Modified"]
    assert api.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    competition_create(code="etag-2027", name="2027", type="season", parent=root, actor=editor)
    again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert len(again.json()["children"]) == 2


def test_a_renamed_ancestor_changes_a_competitions_etag(api, league, editor):
    from sports.services.tree import competition_update

    root, season = league
    url = f"/api/v1/competitions/{season.pk}/"
    first = api.get(url)
    competition_update(node=root, changes={"name": "Renamed League"}, actor=editor)
    again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert "Renamed League" in json.dumps(again.json()["breadcrumb"])


def test_a_participant_answers_304_until_it_gains_an_alias(api):
    from sports.models import ParticipantAlias
    from sports.tests.factories import ParticipantFactory

    player = ParticipantFactory()
    url = f"/api/v1/participants/{player.pk}/"
    first = api.get(url)
    assert first["ETag"]
    assert api.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    seen = datetime(2026, 1, 5, tzinfo=UTC)
    ParticipantAlias.objects.create(
        participant=player, name="Another Name", source_code="test", first_seen=seen, last_seen=seen
    )
    assert api.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_a_merged_participant_still_moves_to_its_survivor(api):
    from sports.tests.factories import ParticipantFactory

    survivor = ParticipantFactory()
    merged = ParticipantFactory(merged_into=survivor)
    response = api.get(f"/api/v1/participants/{merged.pk}/", HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 301
