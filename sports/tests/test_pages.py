"""Public pages: content, the public gate, merge redirects and pinned query counts."""

import pytest
from django.urls import reverse

from sports.models import Fixture, FixtureCompetitor
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    competition_create,
    fixture_create,
    fixture_merge,
    fixture_results_record,
)
from sports.tests.factories import AthleticsFactory, FootballFactory, TeamFactory, publish

pytestmark = pytest.mark.django_db


def _match(league, home, away, score, code):
    fixture = fixture_create(
        competition=league,
        code=code,
        actor="t",
        name=f"{home} v {away}",
        competitors=[
            CompetitorSpec(participant=home, alignment="home"),
            CompetitorSpec(participant=away, alignment="away"),
        ],
    )
    publish(fixture)
    sides = {c.alignment: c for c in fixture.competitors.all()}
    h, a = score
    fixture_results_record(
        fixture=fixture,
        actor="t",
        status="COMPLETED",
        results={
            sides["home"].pk: EntrantResult(rank=1 if h >= a else 2, result={"score": h}),
            sides["away"].pk: EntrantResult(rank=1 if a >= h else 2, result={"score": a}),
        },
    )
    return fixture


@pytest.fixture
def league():
    sport = FootballFactory()
    root = competition_create(code="cup", name="Village Cup", type="league", sport=sport, actor="t")
    teams = [TeamFactory(name=n) for n in ("Oak", "Elm", "Yew")]
    for i, (h, a, score) in enumerate([(0, 1, (2, 0)), (1, 2, (1, 1)), (2, 0, (0, 3))]):
        _match(root, teams[h], teams[a], score, f"m{i}")
    return root


def test_the_competition_page_shows_its_table_and_fixtures(client, league):
    page = client.get(reverse("sports:competition-detail", args=[league.pk])).content.decode()
    assert "Village Cup" in page and "Oak v Elm" in page
    assert page.index(">Oak<") < page.index(">Elm<") < page.index(">Yew<")


def test_an_unpublished_fixture_is_invisible_on_every_public_page(client, league):
    hidden = _match(league, *TeamFactory.create_batch(2), (9, 0), "secret")
    Fixture.objects.filter(pk=hidden.pk).update(first_seen_in=None)
    publish(hidden, accepted=False)
    page = client.get(reverse("sports:competition-detail", args=[league.pk])).content.decode()
    assert hidden.name not in page
    assert client.get(reverse("sports:fixture-detail", args=[hidden.pk])).status_code == 404
    standings = client.get(reverse("sports:standings", args=[league.pk])).content.decode()
    assert ">9<" not in standings  # its goals are in no public table


def test_a_merged_fixture_redirects_to_its_survivor(client, league):
    survivor = Fixture.objects.get(code="m0")
    twin = fixture_create(competition=league, code="m0-dup", actor="t")
    publish(twin)
    fixture_merge(loser=twin, survivor=survivor, actor="t", reason="duplicate")
    response = client.get(reverse("sports:fixture-detail", args=[twin.pk]))
    assert response.status_code == 301
    assert response["Location"] == reverse("sports:fixture-detail", args=[survivor.pk])


def test_a_head_to_head_fixture_page_shows_the_score(client, league):
    page = client.get(
        reverse("sports:fixture-detail", args=[Fixture.objects.get(code="m0").pk])
    ).content.decode()
    assert "<strong>2</strong>" in page and "<strong>0</strong>" in page


def test_a_ranked_field_page_shows_marks_and_irm_codes(client):
    athletics = AthleticsFactory()
    event = competition_create(
        code="lj", name="Long jump", type="event", sport=athletics, actor="t"
    )
    entrants = TeamFactory.create_batch(2)
    fixture = fixture_create(
        competition=event,
        code="lj-final",
        actor="t",
        competitors=[CompetitorSpec(participant=p, entry={"country": "KEN"}) for p in entrants],
    )
    publish(fixture)
    first, second = fixture.competitors.order_by("ordinal")
    fixture_results_record(
        fixture=fixture,
        actor="t",
        results={
            first.pk: EntrantResult(rank=1, result={"mark": "8.34", "medal": "gold"}),
            second.pk: EntrantResult(result_status="FINISHED", status_code="NM"),
        },
    )
    page = client.get(reverse("sports:fixture-detail", args=[fixture.pk])).content.decode()
    assert "8.34" in page and "NM" in page and "gold" in page


def test_the_medal_table_page_ranks_countries(client):
    athletics = AthleticsFactory()
    games = competition_create(code="mini-games", name="Mini Games", type="games", actor="t")
    sport = competition_create(
        code="ath", name="Athletics", type="sport", parent=games, sport=athletics, actor="t"
    )
    athletes = TeamFactory.create_batch(3)
    fixture = fixture_create(
        competition=sport,
        code="final",
        actor="t",
        competitors=[
            CompetitorSpec(participant=p, entry={"country": c})
            for p, c in zip(athletes, ("KEN", "ETH", "KEN"), strict=True)
        ],
    )
    publish(fixture)
    rows = list(FixtureCompetitor.objects.filter(fixture=fixture).order_by("ordinal"))
    fixture_results_record(
        fixture=fixture,
        actor="t",
        results={
            rows[0].pk: EntrantResult(rank=1, result={"medal": "gold"}),
            rows[1].pk: EntrantResult(rank=2, result={"medal": "silver"}),
            rows[2].pk: EntrantResult(rank=3, result={"medal": "bronze"}),
        },
    )
    page = client.get(reverse("sports:medal-table", args=[games.pk])).content.decode()
    assert page.index("KEN") < page.index("ETH")


def test_competition_page_query_count_does_not_grow_with_fixtures(
    client, league, django_assert_max_num_queries
):
    url = reverse("sports:competition-detail", args=[league.pk])
    client.get(url)  # warm the cached table
    with django_assert_max_num_queries(12):
        client.get(url)
    teams = TeamFactory.create_batch(2)
    for i in range(20):
        _match(league, teams[0], teams[1], (i % 3, 1), f"extra{i}")
    client.get(url)
    with django_assert_max_num_queries(12):
        client.get(url)


def test_fixture_page_query_count_is_fixed(client, league, django_assert_max_num_queries):
    url = reverse("sports:fixture-detail", args=[Fixture.objects.get(code="m0").pk])
    with django_assert_max_num_queries(8):
        assert client.get(url).status_code == 200


def test_a_fixture_page_lists_each_sides_line_up(client):
    from sports.tests.factories import ParticipantFactory

    sport = FootballFactory()
    root = competition_create(
        code="friendly", name="Friendly", type="league", sport=sport, actor="t"
    )
    keeper = ParticipantFactory(name="Ada Keeper")
    fixture = fixture_create(
        competition=root,
        code="f1",
        actor="t",
        competitors=[
            CompetitorSpec(
                participant=TeamFactory(),
                alignment="home",
                members=[CompetitorSpec(participant=keeper, slot="GK")],
            ),
            CompetitorSpec(participant=TeamFactory(), alignment="away"),
        ],
    )
    publish(fixture)
    page = client.get(reverse("sports:fixture-detail", args=[fixture.pk])).content.decode()
    assert "Ada Keeper" in page and "GK" in page


def test_the_competition_list_narrows_to_one_sport(client, league):
    cricket = competition_create(
        code="ipl",
        name="Indian Premier League",
        type="league",
        sport=AthleticsFactory(code="cricket", name="Cricket"),
        actor="t",
    )
    page = client.get(reverse("sports:competition-list") + "?sport=cricket").content.decode()
    assert cricket.name in page and league.name not in page


def test_the_navigation_links_every_section_that_has_a_page(client, league):
    page = client.get("/").content.decode()
    assert 'href="/competitions/?sport=cricket"' in page


def test_a_cricket_fixture_page_links_its_scorecard(client):
    cricket = AthleticsFactory(code="cricket", name="Cricket")
    league = competition_create(
        code="bbl", name="Big Bash", type="league", sport=cricket, actor="t"
    )
    fixture = publish(
        fixture_create(competition=league, code="bbl-1", actor="t", archetype="HEAD_TO_HEAD")
    )
    page = client.get(reverse("sports:fixture-detail", args=[fixture.pk])).content.decode()
    assert reverse("cricket:scorecard", args=[fixture.pk]) in page
