"""The results page and ``/api/v1/search/``: grouped answers, links, validation, and pinned
query counts."""

from __future__ import annotations

import pytest
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from catalogue.tests.factories import BrandFactory, ListingFactory, LocationFactory, ProductFactory
from omnium.testing import error_names
from search.selectors import site_search
from sports.services import alias_observe
from sports.tests.factories import CompetitionFactory, CompetitorFactory, FixtureFactory, publish
from sports.tests.factories import ParticipantFactory as PersonFactory

pytestmark = pytest.mark.django_db

PAGE = reverse("search:results")
API = reverse("search")


@pytest.fixture
def records():
    league = CompetitionFactory(name="Premier League")
    fixture = FixtureFactory(competition=league, sport=league.sport)
    publish(fixture)
    player = PersonFactory(name="HC Knight")
    CompetitorFactory(fixture=fixture, participant=player)
    alias_observe(participant=player, name="Heather Knight", source_code="press")
    house = BrandFactory(slug="lindt", name="Lindt")
    product = ProductFactory(brand=house, name="Excellence 70% Cocoa Dark")
    ListingFactory(product=product, location=LocationFactory(visible=True))
    return {"league": league, "player": player, "product": product, "house": house}


def test_the_page_groups_results_and_links_each_to_its_page(client, records):
    page = client.get(PAGE, {"q": "premier leage"}).content.decode()

    assert '<h2 id="search-competitions">Competitions</h2>' in page
    url = reverse("sports:competition-detail", args=[records["league"].pk])
    assert f'<a href="{url}">Premier League</a>' in page


def test_the_page_says_which_other_name_found_a_record(client, records):
    page = client.get(PAGE, {"q": "heather night"}).content.decode()

    assert "HC Knight" in page
    assert "found as “Heather Knight”" in page


def test_the_page_shows_the_best_group_first(client, records):
    page = client.get(PAGE, {"q": "lindt excelence"}).content.decode()

    assert page.index('id="search-products"') < page.index('id="search-brands"')


def test_the_page_without_a_query_shows_only_the_box(client):
    response = client.get(PAGE)

    assert response.status_code == 200
    assert 'name="q"' in response.content.decode()
    assert response.context["answer"] is None and response.context["error"] == ""


def test_the_page_says_why_a_query_is_refused(client):
    response = client.get(PAGE, {"q": " x "})

    assert response.status_code == 200
    assert "type at least 2 characters" in response.content.decode()


def test_the_page_says_when_nothing_is_found(client, records):
    page = client.get(PAGE, {"q": "qqxxzz"}).content.decode()

    assert "Nothing public is called anything like “qqxxzz”" in page


def test_the_page_costs_a_fixed_number_of_queries(client, records, django_assert_num_queries):
    client.get(PAGE, {"q": "knight"})  # the connection's first use of the extensions
    # A savepoint and its release (the test's transaction), the thresholds, the query's
    # terms, the names every table holds with all the words, those with all but one (some
    # table held too few), the products under a house's aliased spellings, and one ranking
    # statement per source with a name found (here competitions only): never one per row.
    with django_assert_num_queries(8):
        response = client.get(PAGE, {"q": "premier leage"})
    assert response.status_code == 200


def test_the_api_answers_what_the_page_shows(client, records):
    body = client.get(API, {"q": "heather night"}).json()

    answer = site_search("heather night")
    assert body["query"] == "heather night"
    assert [g["key"] for g in body["groups"]] == [g.key for g in answer.groups]
    first = body["groups"][0]["results"][0]
    assert first == {
        "group": "people",
        "id": str(records["player"].pk),
        "name": "HC Knight",
        "detail": first["detail"],
        "matched": "Heather Knight",
        "score": answer.top.score,
        "url": answer.top.url,
    }


def test_the_api_gives_one_group_alone(client, records):
    body = client.get(API, {"q": "lindt", "kind": "brands"}).json()

    assert [g["key"] for g in body["groups"]] == ["brands"]
    assert body["groups"][0]["results"][0]["url"] == reverse(
        "catalogue:brand-detail", args=["lindt"]
    )


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "q"),
        ({"q": ""}, "q"),
        ({"q": "   "}, "q"),
        ({"q": "a"}, "q"),
        ({"q": "a" * 101}, "q"),
        ({"q": "ab\x00cd"}, "q"),
        ({"q": "lindt", "kind": "horses"}, "kind"),
        ({"q": "lindt", "page": "2"}, "page"),
    ],
)
def test_the_api_refuses_bad_parameters_naming_them(client, params, field):
    response = client.get(API, params)

    assert response.status_code == 400
    assert field in error_names(response)


def test_the_api_costs_a_fixed_number_of_queries(client, records, django_assert_num_queries):
    client.get(API, {"q": "knight"})
    # The anonymous admission (one statement counting this minute), then what the page costs.
    with django_assert_num_queries(9):
        response = client.get(API, {"q": "premier leage"})
    assert response.status_code == 200


def test_the_schema_documents_q_as_required():
    schema = SchemaGenerator().get_schema(public=True)
    parameters = {p["name"]: p for p in schema["paths"]["/api/v1/search/"]["get"]["parameters"]}

    assert parameters["q"]["required"] is True
    assert set(parameters["kind"]["schema"]["enum"]) >= {"teams", "products", "articles"}
