"""Conditional GETs on the hot read endpoints: a polling client gets a cheap 304 until the
data behind the response changes."""

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from catalogue.tests.factories import ListingFactory, PriceObservationFactory, ProductFactory
from ingest.cricsheet.importer import Importer
from sports.cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
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
    as_json = api.get(_url("fixture", fixture), {"format": "json"})
    plain = api.get(_url("fixture", fixture))
    assert as_json["ETag"] != plain["ETag"]


@pytest.fixture
def empty_cache():
    cache.clear()


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


def test_the_browsable_api_is_not_stored(api, fixture, empty_cache):
    api.get(_url("fixture", fixture), HTTP_ACCEPT="text/html")
    assert not [k for k in cache._cache.get_client().keys("*") if b"conditional-body" in k]
