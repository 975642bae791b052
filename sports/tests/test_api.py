"""The public read API of the sports spine."""

import itertools
from datetime import UTC, datetime

import pytest
from django.urls import include, path
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from sports.models import Competition, EntityType, ExternalIdMap
from sports.services import (
    CompetitorSpec,
    competition_create,
    competition_merge,
    external_id_link,
    fixture_amend,
    fixture_command,
    fixture_create,
    fixture_merge,
    participant_merge,
)
from sports.tests.factories import (
    AthleticsFactory,
    FootballFactory,
    ParticipantFactory,
    SportFactory,
    TeamFactory,
    publish,
)

pytestmark = pytest.mark.django_db

API = "/api/v1"
_addresses = itertools.count(1)


@pytest.fixture
def api():
    # A client address of its own per test: the anonymous throttle counts per address, and
    # other suites share the throttle's cache.
    n = next(_addresses)
    return APIClient(REMOTE_ADDR=f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}")


def at(day: int, hour: int = 12) -> datetime:
    return datetime(2024, 8, day, hour, tzinfo=UTC)


@pytest.fixture
def games():
    """Paris 2024 (no sport) > athletics (format OUT) > 100 m (type race) > heats."""
    athletics = AthleticsFactory()
    root = competition_create(code="paris-2024", name="Paris 2024", type="games", actor="t")
    sport = competition_create(
        code="ath",
        name="Athletics",
        type="sport",
        parent=root,
        sport=athletics,
        format_code="OUT",
        actor="t",
    )
    event = competition_create(
        code="100m", name="100 m", type="event", parent=sport, fixture_type="race", actor="t"
    )
    heats = competition_create(code="heats", name="Heats", type="phase", parent=event, actor="t")
    return {"root": root, "sport": sport, "event": event, "heats": heats, "athletics": athletics}


@pytest.fixture
def league():
    football = FootballFactory()
    return competition_create(
        code="epl", name="Premier League", type="league", sport=football, actor="t"
    )


def race(node, code, start=None, **kwargs):
    return publish(
        fixture_create(competition=node, code=code, scheduled_start=start, actor="t", **kwargs)
    )


def match(league, code, start=None, home=None, away=None):
    home, away = home or TeamFactory(), away or TeamFactory()
    return publish(
        fixture_create(
            competition=league,
            code=code,
            scheduled_start=start,
            actor="t",
            competitors=[
                CompetitorSpec(participant=home, alignment="home"),
                CompetitorSpec(participant=away, alignment="away"),
            ],
        )
    )


def codes(response):
    return [row["code"] for row in response.json()["results"]]


# --- schema -----------------------------------------------------------------------------


def test_the_sports_api_schema_is_generated_without_warnings():
    GENERATOR_STATS.reset()
    generator = SchemaGenerator(patterns=[path("api/v1/", include("sports.api_urls"))])
    schema = generator.get_schema(request=None, public=True)
    assert "/api/v1/participants/lookup/" in schema["paths"]
    assert not GENERATOR_STATS._warn_cache and not GENERATOR_STATS._error_cache


# --- sports -----------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [0, 4])
def test_sports_list_costs_the_same_however_many_sports(api, extra, django_assert_num_queries):
    football = FootballFactory()
    for n in range(extra):
        SportFactory(code=f"futsal-{n}", parent=football)
    with django_assert_num_queries(3):  # the page count and the page, the anonymous admission
        response = api.get(f"{API}/sports/")
    assert response.json()["count"] == 1 + extra


def test_a_sport_is_found_by_its_code_and_names_its_parent(api, django_assert_num_queries):
    SportFactory(code="beach-volleyball", name="Beach volleyball", parent=SportFactory(code="vb"))
    with django_assert_num_queries(2):  # + the anonymous admission
        body = api.get(f"{API}/sports/beach-volleyball/").json()
    assert (body["name"], body["parent"]) == ("Beach volleyball", "vb")


def test_an_unknown_sport_is_404(api):
    assert api.get(f"{API}/sports/quidditch/").status_code == 404


# --- competitions -----------------------------------------------------------------------


@pytest.mark.parametrize("extra", [0, 5])
def test_competition_list_costs_the_same_however_many_nodes(
    api, games, extra, django_assert_num_queries
):
    for n in range(extra):
        competition_create(
            code=f"h{n}", name=f"Heat {n}", type="unit", parent=games["heats"], actor="t"
        )
    with django_assert_num_queries(2):  # + the anonymous admission (a cursor page, no count)
        response = api.get(f"{API}/competitions/")
    assert len(response.json()["results"]) == 4 + extra


def test_competition_list_is_in_tree_order_with_effective_values(api, games):
    rows = api.get(f"{API}/competitions/").json()["results"]
    assert [r["code"] for r in rows] == ["paris-2024", "ath", "100m", "heats"]
    heats = rows[-1]
    assert (heats["fixture_type"], heats["format_code"]) == (None, None)
    assert (heats["effective_fixture_type"], heats["effective_format_code"]) == ("race", "OUT")


def test_competitions_filter_by_sport_code(api, games, league):
    response = api.get(f"{API}/competitions/", {"sport": "football"})
    assert codes(response) == ["epl"]


def test_competitions_filter_to_roots_or_to_one_parents_children(api, games, league):
    assert codes(api.get(f"{API}/competitions/", {"root": "true"})) == ["paris-2024", "epl"]
    children = api.get(f"{API}/competitions/", {"parent": str(games["sport"].pk)})
    assert codes(children) == ["100m"]


def test_competition_list_leaves_out_merged_nodes(api, games):
    twin = competition_create(
        code="100m-dup", name="100 m (dup)", type="event", parent=games["sport"], actor="t"
    )
    competition_merge(loser=twin, survivor=games["event"], actor="t", reason="duplicate")
    assert "100m-dup" not in codes(api.get(f"{API}/competitions/"))


def test_competition_detail_has_children_breadcrumb_and_effective_values(
    api, games, django_assert_num_queries
):
    competition_create(code="final", name="Final", type="phase", parent=games["event"], actor="t")
    # the node, its children, its ancestors, the anonymous admission, the freshness state
    with django_assert_num_queries(5):
        body = api.get(f"{API}/competitions/{games['event'].pk}/").json()
    assert [c["code"] for c in body["children"]] == ["heats", "final"]
    assert [c["code"] for c in body["breadcrumb"]] == ["paris-2024", "ath"]
    assert (body["effective_fixture_type"], body["effective_format_code"]) == ("race", "OUT")
    assert body["sport"] == "athletics"


def test_a_merged_competition_redirects_to_its_survivor(api, games):
    twin = competition_create(
        code="100m-dup", name="100 m (dup)", type="event", parent=games["sport"], actor="t"
    )
    competition_merge(loser=twin, survivor=games["event"], actor="t", reason="duplicate")
    response = api.get(f"{API}/competitions/{twin.pk}/")
    assert response.status_code == 301
    assert response["Location"] == f"http://testserver{API}/competitions/{games['event'].pk}/"


@pytest.mark.parametrize("bad", ["01a2aaaa-0000-7000-8000-000000000000", "not-a-uuid"])
def test_an_unknown_competition_is_404(api, bad):
    assert api.get(f"{API}/competitions/{bad}/").status_code == 404


# --- every fixture under a node ---------------------------------------------------------


@pytest.mark.parametrize("extra", [0, 6])
def test_fixtures_under_a_node_cost_the_same_however_many(
    api, games, extra, django_assert_num_queries
):
    for n in range(1 + extra):
        race(games["heats"], f"heat-{n}", at(2, n % 24))
    with django_assert_num_queries(
        3
    ):  # the node, and the page with its joins, the anonymous admission
        response = api.get(f"{API}/competitions/{games['root'].pk}/fixtures/")
    assert len(response.json()["results"]) == 1 + extra


def test_every_fixture_under_a_node_is_listed_at_any_depth(api, games, league):
    race(games["heats"], "heat-1", at(2))
    race(games["event"], "final", at(4))
    race(games["sport"], "opening", at(1))
    match(league, "epl-1", at(17))
    response = api.get(f"{API}/competitions/{games['root'].pk}/fixtures/")
    assert codes(response) == ["opening", "heat-1", "final"]
    assert codes(api.get(f"{API}/competitions/{games['event'].pk}/fixtures/")) == [
        "heat-1",
        "final",
    ]


def test_fixtures_under_a_node_leave_out_merged_fixtures(api, games):
    keep, twin = race(games["heats"], "heat-1", at(2)), race(games["heats"], "heat-1b", at(2))
    fixture_merge(loser=twin, survivor=keep, actor="t", reason="entered twice")
    assert codes(api.get(f"{API}/competitions/{games['root'].pk}/fixtures/")) == ["heat-1"]


def test_fixtures_under_a_node_filter_by_status_and_day_range(api, games):
    race(games["heats"], "day-1", at(1))
    race(games["heats"], "day-2", at(2, 23))
    race(games["heats"], "day-3", at(3))
    postponed = race(games["heats"], "day-2-late", at(2, 9))
    fixture_amend(fixture=postponed, changes={"status": "POSTPONED"}, reason="storm", actor="t")
    url = f"{API}/competitions/{games['root'].pk}/fixtures/"
    by_day = {"date_from": "2024-08-02", "date_to": "2024-08-02"}
    assert codes(api.get(url, by_day)) == ["day-2-late", "day-2"]
    assert codes(api.get(url, {**by_day, "status": "SCHEDULED"})) == ["day-2"]
    assert codes(api.get(url, {"status": ["POSTPONED", "SCHEDULED"], "sport": "athletics"})) == [
        "day-1",
        "day-2-late",
        "day-2",
        "day-3",
    ]
    # No such sport here: refused by name rather than answered with an empty page.
    assert api.get(url, {"sport": "football"}).status_code == 400


def test_fixtures_under_a_node_page_by_cursor_with_unscheduled_ones_last(api, games):
    for day in (5, 1, 3, 2, 4):
        race(games["heats"], f"d{day}", at(day))
    race(games["heats"], "tbd-1")
    race(games["heats"], "tbd-2")
    seen, url = [], f"{API}/competitions/{games['root'].pk}/fixtures/?page_size=2"
    while url:
        body = api.get(url).json()
        seen.extend(row["code"] for row in body["results"])
        url = body["next"]
    assert seen == ["d1", "d2", "d3", "d4", "d5", "tbd-1", "tbd-2"]


def test_fixtures_under_a_merged_node_redirect_to_the_survivors_list(api, games):
    twin = competition_create(
        code="100m-dup", name="100 m (dup)", type="event", parent=games["sport"], actor="t"
    )
    competition_merge(loser=twin, survivor=games["event"], actor="t", reason="duplicate")
    response = api.get(f"{API}/competitions/{twin.pk}/fixtures/", {"status": "LIVE"})
    assert response.status_code == 301
    assert response["Location"].endswith(f"/competitions/{games['event'].pk}/fixtures/?status=LIVE")


# --- fixtures ---------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [0, 6])
def test_fixture_list_costs_one_query_however_many(api, league, extra, django_assert_num_queries):
    for n in range(1 + extra):
        match(league, f"m{n}", at(10 + n))
    with django_assert_num_queries(2):  # + the anonymous admission
        response = api.get(f"{API}/fixtures/")
    assert len(response.json()["results"]) == 1 + extra


def test_fixture_list_shows_the_competition_and_filters_by_sport(api, league, games):
    match(league, "m1", at(17))
    race(games["heats"], "heat-1", at(2))
    rows = api.get(f"{API}/fixtures/", {"sport": "football"}).json()["results"]
    assert [r["code"] for r in rows] == ["m1"]
    assert rows[0]["competition"]["code"] == "epl" and rows[0]["sport"] == "football"


def test_fixture_list_filters_by_status_and_dates(api, league):
    match(league, "early", at(1))
    match(league, "late", at(20))
    live = match(league, "live", at(10))
    fixture_command(fixture=live, command="start", payload={}, actor="t")
    assert codes(api.get(f"{API}/fixtures/", {"status": "LIVE"})) == ["live"]
    window = {"date_from": "2024-08-05", "date_to": "2024-08-25"}
    assert codes(api.get(f"{API}/fixtures/", window)) == ["live", "late"]


def test_an_unknown_status_filter_is_a_400(api):
    assert api.get(f"{API}/fixtures/", {"status": "FINISHED-ISH"}).status_code == 400


@pytest.mark.parametrize("players", [1, 11])
def test_fixture_detail_nests_players_under_their_side_in_constant_queries(
    api, league, players, django_assert_num_queries
):
    home, away = TeamFactory(name="Arsenal"), TeamFactory(name="Chelsea")
    fixture = publish(
        fixture_create(
            competition=league,
            code="ars-che",
            actor="t",
            competitors=[
                CompetitorSpec(
                    participant=home,
                    alignment="home",
                    members=[
                        CompetitorSpec(participant=ParticipantFactory(name=f"Home {n}"))
                        for n in range(players)
                    ],
                ),
                CompetitorSpec(placeholder_label="Winner of QF1", alignment="away"),
            ],
        )
    )
    del away
    # The fixture with its joins, the competitors, the anonymous admission, the freshness query.
    with django_assert_num_queries(4):
        body = api.get(f"{API}/fixtures/{fixture.pk}/").json()
    home_side, away_side = body["competitors"]
    assert home_side["participant"]["name"] == "Arsenal"
    assert [m["participant"]["name"] for m in home_side["members"]] == [
        f"Home {n}" for n in range(players)
    ]
    assert away_side["participant"] is None
    assert away_side["placeholder_label"] == "Winner of QF1" and away_side["members"] == []
    assert body["definition_version"] == 1 and body["competition"]["sport"] == "football"


def test_a_merged_fixture_redirects_to_the_end_of_its_merge_chain(api, league):
    first, second, third = (match(league, c, at(3)) for c in ("a", "b", "c"))
    fixture_merge(loser=first, survivor=second, actor="t", reason="dup")
    fixture_merge(loser=second, survivor=third, actor="t", reason="dup")
    response = api.get(f"{API}/fixtures/{first.pk}/")
    assert response.status_code == 301
    assert response["Location"] == f"http://testserver{API}/fixtures/{third.pk}/"
    assert api.get(response["Location"]).json()["code"] == "c"


def test_an_unknown_fixture_is_404(api):
    assert api.get(f"{API}/fixtures/01a2aaaa-0000-7000-8000-000000000000/").status_code == 404


# --- the log ----------------------------------------------------------------------------


@pytest.fixture
def played(league):
    fixture = match(league, "played", at(17))
    fixture_command(fixture=fixture, command="start", payload={}, actor="t")
    return fixture


@pytest.mark.parametrize("goals", [1, 5])
def test_the_timeline_costs_the_same_however_long(api, played, goals, django_assert_num_queries):
    for minute in range(goals):
        fixture_command(
            fixture=played, command="goal", payload={"side": "home", "minute": minute}, actor="t"
        )
    with django_assert_num_queries(3):  # the fixture, the page, the anonymous admission
        body = api.get(f"{API}/fixtures/{played.pk}/timeline/").json()
    assert len(body["results"]) == 2 + goals


def test_the_timeline_pages_in_sequence_order(api, played):
    for minute in (10, 20, 30):
        fixture_command(
            fixture=played, command="goal", payload={"side": "away", "minute": minute}, actor="t"
        )
    seen, url = [], f"{API}/fixtures/{played.pk}/timeline/?page_size=2"
    while url:
        body = api.get(url).json()
        seen.extend((row["seq"], row["event_type"]) for row in body["results"])
        url = body["next"]
    assert [seq for seq, _ in seen] == [1, 2, 3, 4, 5]
    assert seen[0][1] == "fixture.create" and seen[-1][1] == "football.goal"


def test_the_timeline_filters_by_event_type_and_hides_the_actor(api, played):
    body = api.get(f"{API}/fixtures/{played.pk}/timeline/", {"event_type": "football.start"})
    rows = body.json()["results"]
    assert [r["event_type"] for r in rows] == ["football.start"]
    assert "actor" not in rows[0]


def test_the_timeline_of_an_unknown_fixture_is_404(api):
    url = f"{API}/fixtures/01a2aaaa-0000-7000-8000-000000000000/timeline/"
    assert api.get(url).status_code == 404


# --- participants -----------------------------------------------------------------------


@pytest.mark.parametrize("extra", [0, 6])
def test_participant_list_costs_one_query_however_many(api, extra, django_assert_num_queries):
    for n in range(1 + extra):
        ParticipantFactory(name=f"Runner {n}", sport=AthleticsFactory())
    with django_assert_num_queries(2):  # + the anonymous admission
        response = api.get(f"{API}/participants/")
    assert len(response.json()["results"]) == 1 + extra


def test_participants_are_found_by_name_or_alias_once_each(api):
    survivor = ParticipantFactory(name="Mo Farah")
    loser = ParticipantFactory(name="Mohamed Farah")
    ParticipantFactory(name="Someone Else")
    participant_merge(loser=loser, survivor=survivor, actor="t", note="same runner")
    assert [
        r["name"] for r in api.get(f"{API}/participants/", {"name": "farah"}).json()["results"]
    ] == ["Mo Farah"]
    by_alias = api.get(f"{API}/participants/", {"name": "mohamed"}).json()["results"]
    assert [r["name"] for r in by_alias] == ["Mo Farah"]


def test_participant_list_leaves_out_merged_rows(api):
    survivor, loser = ParticipantFactory(name="Kept"), ParticipantFactory(name="Folded")
    participant_merge(loser=loser, survivor=survivor, actor="t", note="same")
    assert [r["name"] for r in api.get(f"{API}/participants/").json()["results"]] == ["Kept"]


def test_participant_list_pages_by_cursor_in_name_order(api):
    for name in ("Eve", "Ann", "Dan", "Bob", "Cat", "Ann"):
        ParticipantFactory(name=name)
    seen, url = [], f"{API}/participants/?page_size=2"
    while url:
        body = api.get(url).json()
        seen.extend(row["name"] for row in body["results"])
        url = body["next"]
    assert seen == ["Ann", "Ann", "Bob", "Cat", "Dan", "Eve"]


@pytest.fixture
def merged_person():
    """Ana (survivor) <- Ana I. <- A. Id: three rows, each given an id by a source."""
    ana, middle, first = (ParticipantFactory(name=n) for n in ("Ana Id", "Ana I.", "A. Id"))
    for who, source, external_id in (
        (ana, "olympics", "OLY-1"),
        (middle, "cricsheet", "cs-77"),
        (first, "cricsheet", "cs-12"),
    ):
        external_id_link(
            source_code=source,
            entity_type=EntityType.PARTICIPANT,
            external_id=external_id,
            internal_id=who.pk,
            actor="t",
        )
    participant_merge(loser=first, survivor=middle, actor="t", note="same")
    participant_merge(loser=middle, survivor=ana, actor="t", note="same")
    return {"survivor": ana, "middle": middle, "first": first}


def test_participant_detail_shows_aliases_sports_and_every_external_id(
    api, merged_person, django_assert_num_queries
):
    ana = merged_person["survivor"]
    ExternalIdMap.objects.create(
        source_code="x", entity_type=EntityType.FIXTURE, external_id="F", internal_id=ana.pk
    )
    # the participant, its aliases, its sports, its external ids through the merge chain
    with django_assert_num_queries(6):  # + the anonymous admission and the freshness state
        body = api.get(f"{API}/participants/{ana.pk}/").json()
    assert {(e["source"], e["external_id"]) for e in body["external_ids"]} == {
        ("olympics", "OLY-1"),
        ("cricsheet", "cs-77"),
        ("cricsheet", "cs-12"),
    }
    assert {"Ana I.", "A. Id"} <= {a["name"] for a in body["aliases"]}
    assert body["seen_by"] == []


def test_a_merged_participant_redirects_to_its_survivor(api, merged_person):
    response = api.get(f"{API}/participants/{merged_person['first'].pk}/")
    assert response.status_code == 301
    assert response["Location"].endswith(f"/participants/{merged_person['survivor'].pk}/")


def test_lookup_by_a_sources_id_answers_with_the_participant(api, merged_person):
    response = api.get(
        f"{API}/participants/lookup/", {"source": "olympics", "external_id": "OLY-1"}
    )
    assert response.status_code == 200
    assert response.json()["id"] == str(merged_person["survivor"].pk)


def test_lookup_follows_the_merge_chain_to_the_survivor(
    api, merged_person, django_assert_num_queries
):
    # the map row, three steps along the chain, then the survivor's detail (four queries)
    with django_assert_num_queries(9):  # + the anonymous admission
        response = api.get(
            f"{API}/participants/lookup/", {"source": "cricsheet", "external_id": "cs-12"}
        )
    assert response.json()["name"] == "Ana Id"


def test_lookup_of_an_unknown_id_is_a_404_that_says_so(api, merged_person):
    response = api.get(f"{API}/participants/lookup/", {"source": "olympics", "external_id": "X"})
    assert response.status_code == 404
    assert response.json()["message"] == "No participant is known to 'olympics' by the id 'X'."


def test_lookup_does_not_match_another_entity_types_id(api):
    ExternalIdMap.objects.create(
        source_code="feed",
        entity_type=EntityType.FIXTURE,
        external_id="7",
        internal_id=ParticipantFactory().pk,
    )
    response = api.get(f"{API}/participants/lookup/", {"source": "feed", "external_id": "7"})
    assert response.status_code == 404


def test_lookup_without_an_external_id_is_a_400(api):
    response = api.get(f"{API}/participants/lookup/", {"source": "olympics"})
    assert response.status_code == 400
    assert [e["parameter"] for e in response.json()["errors"]] == ["external_id"]


def test_lookup_of_an_id_whose_participant_is_gone_is_a_404(api):
    ExternalIdMap.objects.create(
        source_code="feed",
        entity_type=EntityType.PARTICIPANT,
        external_id="ghost",
        internal_id=Competition().pk,
    )
    response = api.get(f"{API}/participants/lookup/", {"source": "feed", "external_id": "ghost"})
    assert response.status_code == 404
    assert "no longer exists" in response.json()["message"]
