import socket

import pytest


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.django_db
def test_healthz_is_200_when_database_and_redis_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert (body["database"], body["redis"]) == ("ok", "ok")


@pytest.mark.django_db
def test_healthz_is_503_naming_redis_when_redis_is_unreachable(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert (body["database"], body["redis"]) == ("ok", "unavailable")


@pytest.mark.django_db
def test_healthz_is_never_cached(client):
    assert "no-cache" in client.get("/healthz")["Cache-Control"]
