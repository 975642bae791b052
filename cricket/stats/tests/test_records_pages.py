"""The public records pages: every record under the records filter as select lists whose
choice is the URL, rows best first linked to their scorecards and players, against figures
worked out here from the hand-made files (the records tests' matches)."""

import pytest
from django.urls import reverse

from cricket.stats.partnerships import records_ensure
from cricket.stats.records import KINDS
from cricket.stats.refresh import statistics_rebuild_all
from cricket.stats.tests.builders import import_match
from cricket.stats.tests.html_tables import read_page, table
from cricket.stats.tests.test_records import _docs, _innings_scores, _totals

pytestmark = pytest.mark.django_db


@pytest.fixture
def docs():
    documents = _docs()
    for doc in documents:
        import_match(doc)
    statistics_rebuild_all(reason="test", actor="integration:test")
    return documents


def _get(client, kind=None, **params):
    url = reverse("cricket_stats:record", args=[kind]) if kind else reverse("cricket_stats:records")
    response = client.get(url, params)
    assert response.status_code == 200, response.content
    return read_page(response.content.decode())


def test_the_records_list_links_every_record_keeping_the_filter(client, docs):
    page = _get(client, format="ODI", gender="male")
    for kind in KINDS:
        assert f"{reverse('cricket_stats:record', args=[kind])}?format=ODI&gender=male" in (
            page.links
        )


def test_the_highest_innings_page_is_best_first_each_row_linked_to_its_scorecard(client, docs):
    scores = sorted(_innings_scores(docs).values(), key=lambda s: -s["runs"])
    page = _get(client, "highest-innings")
    head, body = table(page, "records")
    assert head[:3] == ["#", "Player", "Runs"]
    assert [row[2].rstrip("*") for row in body] == [str(s["runs"]) for s in scores if s["balls"]]
    scorecards = [link for link in page.links if "/cricket/fixtures/" in link]
    assert len(scorecards) == len(body)


def test_every_record_kind_has_a_page(client, docs):
    for kind in KINDS:
        head, _body = table(_get(client, kind), "records")
        assert head[0] == "#", kind


def test_the_filter_is_select_lists_with_the_urls_choice_selected(client, docs):
    page = _get(client, "highest-totals", format="odi", venue="Other Oval")
    assert page.selects["format"]["selected"] == "ODI"
    assert page.selects["venue"] == {
        "options": ["", "Hand Ground", "Other Oval"],
        "selected": "Other Oval",
    }
    assert page.selects["team"]["options"] == ["", "Away", "Home"]
    odi = sorted((v for (m, _i, _t), v in _totals(docs).items() if m == 1), reverse=True)
    assert [row[2].split("/")[0] for row in table(page, "records")[1]] == [str(t) for t in odi]


def test_the_partnerships_page_narrows_to_one_wicket(client, docs):
    page = _get(client, "partnerships", wicket="2")
    assert page.selects["wicket"]["selected"] == "2"
    assert {row[1] for row in table(page, "records")[1]} == {"2"}


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"format": "Tests"}, "format"),
        ({"team": "Nobody"}, "team"),
        ({"wicket": "2"}, "wicket"),  # highest innings takes no wicket
        ({"page": "0"}, "page"),
        ({"match_type": "ODI"}, "match_type"),
    ],
)
def test_a_bad_or_unknown_filter_is_a_400_naming_it(client, docs, params, named):
    response = client.get(reverse("cricket_stats:record", args=["highest-innings"]), params)
    assert response.status_code == 400
    assert named in response.content.decode()


def test_an_unknown_record_is_a_404(client, docs):
    assert client.get(reverse("cricket_stats:record", args=["longest-lunch"])).status_code == 404


def test_a_long_record_pages_on_with_the_filter_kept(client, docs, monkeypatch):
    monkeypatch.setattr("cricket.stats.records_views.PAGE_SIZE", 2)
    page = _get(client, "highest-innings", format="T20")
    assert "?format=T20&page=2" in page.links
    second = _get(client, "highest-innings", format="T20", page="2")
    assert table(second, "records")[1][0][0] == "3"


@pytest.mark.parametrize(
    ("kind", "queries"),
    [("highest-innings", 10), ("partnerships", 10), ("most-runs-series", 9)],
)
def test_a_records_page_costs_a_fixed_number_of_queries(
    client, docs, kind, queries, django_assert_num_queries
):
    records_ensure()
    # the stale check, the page, people, registry ids, sides and fixtures (or the
    # series), and the filter's four lists (seasons, teams, venues, host countries)
    with django_assert_num_queries(queries):
        client.get(reverse("cricket_stats:record", args=[kind]))
