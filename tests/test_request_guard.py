"""A NUL character in a path or a parameter is a 400 naming where it was, never a 500."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "place"),
    [
        ("/cricket/leaderboards/?match_type=T%0020", "match_type"),
        ("/cricket/leaderboards/?season=20%0019", "season"),
        ("/catalogue/products/?q=rum%00", "q"),
    ],
)
def test_a_nul_in_a_page_parameter_is_a_400_naming_it(client, url, place):
    response = client.get(url)
    assert response.status_code == 400
    assert response.content.decode().startswith(f"{place}: a NUL character")


def test_a_nul_in_an_api_path_is_a_400_in_the_error_shape(client):
    response = client.get("/api/v1/sports/%00/")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["errors"] == [
        {"code": "nul_character", "message": "a NUL character is not allowed."}
    ]


def test_a_nul_in_an_api_parameter_names_the_parameter(client):
    response = client.get("/api/v1/fixtures/?season=20%0019")
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == "season"


def test_a_nul_in_a_parameter_name_is_refused_too(client):
    response = client.get("/api/v1/fixtures/?sea%00son=1")
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == "sea\\x00son"


def test_a_request_without_one_is_untouched(client):
    assert client.get("/cricket/leaderboards/?season=2019").status_code == 200
