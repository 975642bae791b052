"""With Redis unreachable the API's reads still answer, and right: the cache fails open."""

import socket
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from catalogue.tests.factories import ListingFactory, PriceObservationFactory, ProductFactory
from omnium.cache import FAILURES
from sports.tests.factories import CompetitorFactory, FixtureFactory, publish

pytestmark = pytest.mark.django_db


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_down(settings):
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    settings.REDIS_URL = url
    settings.CACHES = {
        "default": {**settings.CACHES["default"], "LOCATION": url},
    }
    return FAILURES.count  # failures so far: a test that reads the cache sees it rise


@pytest.fixture
def api():
    return APIClient(REMOTE_ADDR="192.0.2.81")


@pytest.fixture
def fixture():
    fixture = publish(FixtureFactory())
    CompetitorFactory(fixture=fixture, ordinal=1)
    return fixture


def test_a_fixture_answers_in_full_with_redis_down(api, fixture, redis_down):
    response = api.get(f"/api/v1/fixtures/{fixture.pk}/")
    assert response.status_code == 200
    assert response.json()["id"] == str(fixture.pk)
    assert response["ETag"]
    assert FAILURES.count > redis_down  # the stored-body lookup did meet the dead server


def test_a_product_answers_with_its_price_with_redis_down(api, redis_down):
    product = ProductFactory()
    PriceObservationFactory(
        listing=ListingFactory(product=product),
        price=Decimal("10.00"),
        observed_at=datetime(2026, 1, 5, 9, tzinfo=UTC),
    )
    response = api.get(f"/api/v1/products/{product.pk}/")
    assert response.status_code == 200
    assert response.json()["id"] == str(product.pk)


def test_a_conditional_request_still_gets_its_304_with_redis_down(api, fixture, redis_down):
    first = api.get(f"/api/v1/fixtures/{fixture.pk}/")
    again = api.get(f"/api/v1/fixtures/{fixture.pk}/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_lists_and_pages_answer_with_redis_down(api, client, fixture, redis_down):
    assert api.get("/api/v1/fixtures/").status_code == 200
    assert api.get("/api/v1/products/").status_code == 200
    assert client.get("/").status_code == 200


def test_a_cache_read_is_a_miss_and_a_write_is_skipped_with_redis_down(redis_down):
    assert cache.get("anything", "default") == "default"
    assert cache.get_many(["a", "b"]) == {}
    cache.set("anything", 1)
    assert cache.delete("anything") is False


def test_healthz_counts_the_caches_failures(client, redis_down):
    cache.get("anything")
    body = client.get("/healthz").json()
    assert body["redis"] == "unavailable"
    assert body["cache"]["failures"] > redis_down
    assert body["cache"]["last_error"].startswith("get: ")


def test_the_cache_gives_up_connecting_within_a_second(settings):
    options = settings.CACHES["default"]["OPTIONS"]
    assert options["socket_connect_timeout"] <= 1
    assert options["socket_timeout"] <= 1
