"""Entity and competition pages: a league's one season, teams, people, countries, venues.

Each page: what it shows, that its names link to their pages, and its pinned query count.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from sports.models import (
    Competition,
    CompetitionEntry,
    FixtureCompetitor,
    Membership,
    ParticipantSport,
    TableKind,
)
from sports.services import (
    CompetitorSpec,
    EntrantResult,
    competition_create,
    fixture_create,
    fixture_results_record,
    participant_merge,
    stat_table,
)
from sports.tests.factories import (
    AthleticsFactory,
    CountryFactory,
    FootballFactory,
    ParticipantFactory,
    SportFactory,
    TeamFactory,
    VenueFactory,
    publish,
)

pytestmark = pytest.mark.django_db


def match(node, home, away, score, *, code, when, venue=None, players=()):
    """A published head-to-head fixture under ``node``; ``score`` None leaves it scheduled."""
    fixture = fixture_create(
        competition=node,
        code=code,
        actor="t",
        name=f"{home.name} v {away.name}",
        scheduled_start=when,
        venue=venue,
        competitors=[
            CompetitorSpec(
                participant=home,
                alignment="home",
                members=[CompetitorSpec(participant=p) for p in players],
            ),
            CompetitorSpec(participant=away, alignment="away"),
        ],
    )
    publish(fixture)
    if score is None:
        return fixture
    sides = {c.alignment: c for c in fixture.competitors.filter(parent__isnull=True)}
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


def day(n):
    return datetime(2020, 8, 1, 15, tzinfo=UTC) + timedelta(days=n)


@pytest.fixture
def teams():
    return {n: TeamFactory(name=n) for n in ("Oak", "Elm", "Yew")}


@pytest.fixture
def two_seasons(teams):
    """A league of two seasons: Oak won the first, Elm wins the second."""
    sport = FootballFactory()
    league = competition_create(
        code="shire", name="Shire League", type="league", sport=sport, actor="t"
    )
    first = competition_create(
        code="shire-2019", name="Shire 2019", type="season", parent=league, actor="t"
    )
    second = competition_create(
        code="shire-2020", name="Shire 2020", type="season", parent=league, actor="t"
    )
    oak, elm, yew = teams["Oak"], teams["Elm"], teams["Yew"]
    r1 = competition_create(code="s19-r1", name="Matchday 1", type="round", parent=first, actor="t")
    match(r1, oak, elm, (3, 0), code="a1", when=day(-400))
    match(r1, oak, yew, (2, 0), code="a2", when=day(-399))
    md1 = competition_create(
        code="s20-r1", name="Matchday 1", type="round", parent=second, ordinal=1, actor="t"
    )
    md2 = competition_create(
        code="s20-r2", name="Matchday 2", type="round", parent=second, ordinal=2, actor="t"
    )
    match(md1, elm, oak, (1, 0), code="b1", when=day(0))
    match(md2, yew, elm, (1, 1), code="b2", when=day(7))
    # Fresh rows: the tree's nested-set columns moved as the children were added.
    return tuple(Competition.objects.get(pk=n.pk) for n in (league, first, second))


def row(rows, team):
    return next(r for r in rows if r["team"] == team)


# The fold: one season, never the seasons summed ------------------------------------------


def test_a_league_table_is_its_latest_season_not_every_season_summed(two_seasons):
    league, _, second = two_seasons
    rows = stat_table(node=league, kind=TableKind.STANDINGS)
    assert rows == stat_table(node=second, kind=TableKind.STANDINGS)
    assert (row(rows, "Oak")["played"], row(rows, "Oak")["points"]) == (1, 0)
    assert (row(rows, "Elm")["played"], row(rows, "Elm")["points"]) == (2, 4)


def test_an_all_time_table_is_asked_for_explicitly_and_sums_the_seasons(two_seasons):
    league, _, _ = two_seasons
    rows = stat_table(node=league, kind=TableKind.STANDINGS, all_time=True)
    assert (row(rows, "Oak")["played"], row(rows, "Oak")["points"]) == (3, 6)


def test_the_league_page_shows_the_latest_season_and_a_season_selector(client, two_seasons):
    league, first, second = two_seasons
    response = client.get(reverse("sports:competition-detail", args=[league.pk]))
    assert response.context["choice"].selected == second
    assert [r["team"] for r in response.context["rows"]] == ["Elm", "Yew", "Oak"]
    page = response.content.decode()
    assert f'<option value="{first.pk}">Shire 2019</option>' in page
    assert f'<option value="{second.pk}" selected>Shire 2020</option>' in page


def test_the_season_selector_shows_the_chosen_season(client, two_seasons):
    league, first, _ = two_seasons
    response = client.get(
        reverse("sports:competition-detail", args=[league.pk]), {"season": first.pk}
    )
    rows = response.context["rows"]
    assert (rows[0]["team"], rows[0]["played"], rows[0]["points"]) == ("Oak", 2, 6)


def test_the_full_table_page_keeps_the_chosen_season(client, two_seasons):
    league, first, _ = two_seasons
    response = client.get(reverse("sports:standings", args=[league.pk]), {"season": first.pk})
    assert row(response.context["rows"], "Oak")["points"] == 6


def test_a_season_page_links_its_sibling_seasons(client, two_seasons):
    _, first, second = two_seasons
    page = client.get(reverse("sports:competition-detail", args=[second.pk])).content.decode()
    assert reverse("sports:competition-detail", args=[first.pk]) in page


def test_a_seasons_fixtures_are_grouped_by_matchday_with_results(client, two_seasons):
    league, _, _ = two_seasons
    page = client.get(reverse("sports:competition-detail", args=[league.pk])).content.decode()
    assert page.index("Matchday 1") < page.index("Elm v Oak") < page.index("Matchday 2")
    assert page.index("Matchday 2") < page.index("Yew v Elm")
    assert "1\N{EN DASH}0" in page and "Oak v Elm" not in page  # the other season's fixture


def test_the_points_progression_follows_each_match(client, two_seasons):
    league, _, _ = two_seasons
    progression = client.get(reverse("sports:competition-detail", args=[league.pk])).context[
        "progression"
    ]
    assert dict(progression.series)["Elm"] == [3, 4]
    assert dict(progression.series)["Oak"] == [0, None]


def test_table_names_link_to_team_pages(client, two_seasons, teams):
    league, _, _ = two_seasons
    page = client.get(reverse("sports:competition-detail", args=[league.pk])).content.decode()
    for team in teams.values():
        assert reverse("sports:participant-detail", args=[team.pk]) in page


def test_the_league_page_query_count_is_pinned(client, two_seasons, django_assert_num_queries):
    league, _, second = two_seasons
    url = reverse("sports:competition-detail", args=[league.pk])
    client.get(url)  # fold the table once
    with django_assert_num_queries(9):
        client.get(url)
    extra = competition_create(
        code="s20-r3", name="Matchday 3", type="round", parent=second, actor="t"
    )
    for i in range(5):
        match(extra, *TeamFactory.create_batch(2), (i, 1), code=f"x{i}", when=day(20 + i))
    client.get(url)
    with django_assert_num_queries(9):
        client.get(url)


# The competition list ------------------------------------------------------------------


def test_the_competition_list_groups_by_sport_with_seasons_and_dates(client, two_seasons):
    athletics = AthleticsFactory()
    competition_create(code="relays", name="Relay Cup", type="league", sport=athletics, actor="t")
    response = client.get(reverse("sports:competition-list"))
    groups = {g.label: g for g in response.context["groups"]}
    assert set(groups) >= {"Football", "Athletics"}
    shire = groups["Football"].roots[0]
    assert [s.name for s in shire.seasons] == ["Shire 2020", "Shire 2019"]
    page = response.content.decode()
    assert "1 Aug 2020 \N{EN DASH} 8 Aug 2020" in page  # the 2020 season's first and last fixture


def test_the_competition_list_query_count_is_pinned(client, two_seasons, django_assert_num_queries):
    with django_assert_num_queries(3):
        client.get(reverse("sports:competition-list"))
    competition_create(
        code="other", name="Other League", type="league", sport=FootballFactory(), actor="t"
    )
    with django_assert_num_queries(3):
        client.get(reverse("sports:competition-list"))


# A team ---------------------------------------------------------------------------------


@pytest.fixture
def club(two_seasons, teams):
    """Oak with a player seen for it and a fixture still to come."""
    _, _, second = two_seasons
    ada = ParticipantFactory(name="Ada Striker")
    future = timezone.now() + timedelta(days=30)
    md3 = competition_create(
        code="s20-r9", name="Matchday 9", type="round", parent=second, actor="t"
    )
    match(md3, teams["Oak"], teams["Yew"], None, code="c1", when=future, players=[ada])
    match(md3, teams["Oak"], teams["Elm"], (0, 0), code="c2", when=day(9), players=[ada])
    return teams["Oak"], ada


def test_a_team_page_shows_competitions_recent_and_upcoming_fixtures(client, club, two_seasons):
    oak, _ = club
    league, _, second = two_seasons
    page = client.get(reverse("sports:participant-detail", args=[oak.pk]))
    assert league in page.context["page"].competitions
    assert second in page.context["page"].competitions
    assert [f.code for f in page.context["page"].upcoming] == ["c1"]
    assert [f.code for f in page.context["page"].recent][:2] == ["c2", "b1"]


def test_a_team_page_lists_the_players_seen_for_it(client, club):
    oak, ada = club
    page = client.get(reverse("sports:participant-detail", args=[oak.pk])).content.decode()
    assert "Ada Striker" in page
    assert reverse("sports:participant-detail", args=[ada.pk]) in page


def test_a_team_page_shows_the_head_to_head_against_another_team(client, club, teams):
    oak, _ = club
    response = client.get(
        reverse("sports:participant-detail", args=[oak.pk]), {"vs": str(teams["Elm"].pk)}
    )
    h2h = response.context["page"].head_to_head
    assert (len(h2h.fixtures), h2h.won, h2h.drawn, h2h.lost) == (3, 1, 1, 1)
    assert "3 played, 1 won, 1 drawn, 1 lost" in response.content.decode()


def test_a_team_page_query_count_is_pinned(client, club, teams, django_assert_num_queries):
    oak, _ = club
    url = reverse("sports:participant-detail", args=[oak.pk])
    # One of them asks which country the team is a national side of (it has no code).
    with django_assert_num_queries(13):
        client.get(url, {"vs": str(teams["Elm"].pk)})
    node = competition_create(
        code="friendlies", name="Friendlies", type="league", sport=FootballFactory(), actor="t"
    )
    for i in range(4):
        match(node, oak, TeamFactory(), (1, i), code=f"f{i}", when=day(30 + i))
    with django_assert_num_queries(13):
        client.get(url, {"vs": str(teams["Elm"].pk)})


def test_a_merged_participant_redirects_to_its_survivor(client, teams):
    loser, survivor = teams["Yew"], teams["Oak"]
    participant_merge(loser=loser, survivor=survivor, actor="t", note="duplicate")
    response = client.get(reverse("sports:participant-detail", args=[loser.pk]))
    assert response.status_code == 301
    assert response["Location"] == reverse("sports:participant-detail", args=[survivor.pk])


# A person -------------------------------------------------------------------------------


def test_a_player_page_shows_sports_teams_and_results(client, club):
    oak, ada = club
    ParticipantSport.objects.create(participant=ada, sport=FootballFactory())
    response = client.get(reverse("sports:participant-detail", args=[ada.pk]))
    page = response.context["page"]
    assert page.sports == ["Football"] and page.teams == [oak]
    assert {r.fixture.code for r in page.results} == {"c1", "c2"}
    assert reverse("sports:participant-detail", args=[oak.pk]) in response.content.decode()


def test_a_cricket_player_page_links_the_cricket_statistics(client):
    cricketer = ParticipantFactory(name="Sachin Example")
    ParticipantSport.objects.create(
        participant=cricketer, sport=SportFactory(code="cricket", name="Cricket")
    )
    page = client.get(reverse("sports:participant-detail", args=[cricketer.pk])).content.decode()
    assert reverse("cricket_stats:player", args=[cricketer.pk]) in page


def test_a_footballer_page_has_no_cricket_link(client, club):
    _, ada = club
    page = client.get(reverse("sports:participant-detail", args=[ada.pk])).content.decode()
    assert "/cricket/players/" not in page


def test_a_player_page_query_count_is_pinned(client, club, django_assert_num_queries):
    _, ada = club
    url = reverse("sports:participant-detail", args=[ada.pk])
    with django_assert_num_queries(11):
        client.get(url)
    node = competition_create(
        code="cup", name="Cup", type="league", sport=FootballFactory(), actor="t"
    )
    for i in range(3):
        match(node, TeamFactory(), TeamFactory(), (1, 0), code=f"g{i}", when=day(i), players=[ada])
    with django_assert_num_queries(11):
        client.get(url)


# A country and a Games -------------------------------------------------------------------


@pytest.fixture
def games():
    """A Games where Kenya wins gold and bronze and Ethiopia silver in one final."""
    athletics = AthleticsFactory()
    root = competition_create(code="mini-games", name="Mini Games", type="games", actor="t")
    sport = competition_create(
        code="ath", name="Athletics", type="sport", parent=root, sport=athletics, actor="t"
    )
    event = competition_create(
        code="ath-10k", name="10,000 m", type="event", parent=sport, actor="t"
    )
    ken, eth = CountryFactory(code="KEN", name="Kenya"), CountryFactory(code="ETH", name="Ethiopia")
    runners = [
        ParticipantFactory(name=n, country=c)
        for n, c in (("Runner A", "KEN"), ("Runner B", "ETH"), ("Runner C", "KEN"))
    ]
    for runner in runners:
        ParticipantSport.objects.create(participant=runner, sport=athletics)
    fixture = publish(
        fixture_create(
            competition=event,
            code="final",
            name="10,000 m final",
            actor="t",
            venue=VenueFactory(name="Stade de France", city="Saint-Denis", country="FRA"),
            competitors=[
                CompetitorSpec(participant=p, entry={"country": p.country}) for p in runners
            ],
        )
    )
    rows = list(FixtureCompetitor.objects.filter(fixture=fixture).order_by("ordinal"))
    fixture_results_record(
        fixture=fixture,
        actor="t",
        status="COMPLETED",
        results={
            rows[0].pk: EntrantResult(rank=1, result={"medal": "gold", "mark": "27:43"}),
            rows[1].pk: EntrantResult(rank=2, result={"medal": "silver", "mark": "27:44"}),
            rows[2].pk: EntrantResult(rank=3, result={"medal": "bronze", "mark": "27:45"}),
        },
    )
    for runner, country in zip(runners, (ken, eth, ken), strict=True):
        CompetitionEntry.objects.create(competition=event, participant=runner, country=country)
    root, event = (Competition.objects.get(pk=n.pk) for n in (root, event))
    return root, event, fixture, ken, eth, runners


def test_a_country_page_lists_its_athletes_and_medals_per_games(client, games):
    root, _, _, ken, _, runners = games
    response = client.get(reverse("sports:participant-detail", args=[ken.pk]))
    page = response.context["page"]
    assert [(g.sport, [a.name for a in g.athletes]) for g in page.by_sport] == [
        ("Athletics", ["Runner A", "Runner C"])
    ]
    assert [(m.games, m.gold, m.silver, m.bronze) for m in page.medals] == [(root, 1, 0, 1)]
    medal_row = next(
        r for r in stat_table(node=root, kind=TableKind.MEDALS) if r["country"] == "KEN"
    )
    assert (medal_row["gold"], medal_row["bronze"]) == (1, 1)  # the same count as the table
    assert reverse("sports:participant-detail", args=[runners[0].pk]) in response.content.decode()


def test_a_country_page_lists_its_teams_in_every_sport(client, games):
    _, _, _, ken, _, _ = games
    team = TeamFactory(name="Kenya Sevens", country="KEN")
    ParticipantSport.objects.create(participant=team, sport=SportFactory(code="rugby"))
    page = client.get(reverse("sports:participant-detail", args=[ken.pk])).context["page"]
    assert [t.name for g in page.by_sport for t in g.teams] == ["Kenya Sevens"]


def test_a_country_page_query_count_is_pinned(client, games, django_assert_num_queries):
    _, _, _, ken, _, _ = games
    url = reverse("sports:participant-detail", args=[ken.pk])
    with django_assert_num_queries(6):
        client.get(url)
    ParticipantFactory.create_batch(5, country="KEN")
    with django_assert_num_queries(6):
        client.get(url)


def test_the_games_page_links_countries_events_and_results(client, games):
    root, event, fixture, ken, _, runners = games
    page = client.get(reverse("sports:competition-detail", args=[root.pk])).content.decode()
    assert reverse("sports:participant-detail", args=[ken.pk]) in page
    assert "Kenya" in page
    event_page = client.get(reverse("sports:competition-detail", args=[event.pk]))
    text = event_page.content.decode()
    assert reverse("sports:fixture-detail", args=[fixture.pk]) in text
    assert "1. " in text and reverse("sports:participant-detail", args=[runners[0].pk]) in text


def test_the_medal_table_page_names_countries_with_links(client, games):
    root, _, _, _, eth, _ = games
    page = client.get(reverse("sports:medal-table", args=[root.pk])).content.decode()
    assert page.index("Kenya") < page.index("Ethiopia")
    assert reverse("sports:participant-detail", args=[eth.pk]) in page


def test_the_medals_by_country_chart_counts_each_medal(client, games):
    root, *_ = games
    chart = client.get(reverse("sports:competition-detail", args=[root.pk])).context["medals"]
    assert (chart.labels, chart.gold, chart.silver, chart.bronze) == (
        ["Kenya", "Ethiopia"],
        [1.0, 0.0],
        [0.0, 1.0],
        [1.0, 0.0],
    )


def test_the_games_page_query_count_is_pinned(client, games, django_assert_num_queries):
    root, *_ = games
    url = reverse("sports:competition-detail", args=[root.pk])
    client.get(url)
    with django_assert_num_queries(8):
        client.get(url)


def test_a_fixture_page_links_entrants_countries_and_venue(client, games):
    _, _, fixture, ken, _, runners = games
    page = client.get(reverse("sports:fixture-detail", args=[fixture.pk])).content.decode()
    assert reverse("sports:participant-detail", args=[ken.pk]) in page
    assert reverse("sports:participant-detail", args=[runners[1].pk]) in page
    assert reverse("sports:venue-detail", args=[fixture.venue_id]) in page


def test_an_athlete_page_shows_entries_and_medals(client, games):
    _, event, _, ken, _, runners = games
    response = client.get(reverse("sports:participant-detail", args=[runners[0].pk]))
    page = response.context["page"]
    assert page.medals == {"gold": 1, "silver": 0, "bronze": 0}
    assert [(e.competition, e.country) for e in page.entries] == [(event, ken)]
    assert reverse("sports:participant-detail", args=[ken.pk]) in response.content.decode()


# A venue --------------------------------------------------------------------------------


def test_a_venue_page_shows_its_competitions_and_fixtures(client, games):
    root, _, fixture, *_ = games
    response = client.get(reverse("sports:venue-detail", args=[fixture.venue_id]))
    page = response.context["page"]
    assert page.recent == [fixture] and root in page.competitions
    assert "Saint-Denis" in response.content.decode()


def test_a_venue_page_query_count_is_pinned(client, games, django_assert_num_queries):
    _, event, fixture, *_ = games
    url = reverse("sports:venue-detail", args=[fixture.venue_id])
    publish(fixture_create(competition=event, code="heat", actor="t", venue=fixture.venue))
    with django_assert_num_queries(6):
        client.get(url)
    for i in range(3):
        publish(fixture_create(competition=event, code=f"heat{i}", actor="t", venue=fixture.venue))
    with django_assert_num_queries(6):
        client.get(url)


def test_an_unknown_participant_or_venue_is_a_404(client):
    import uuid

    assert client.get(reverse("sports:participant-detail", args=[uuid.uuid4()])).status_code == 404
    assert client.get(reverse("sports:venue-detail", args=[uuid.uuid4()])).status_code == 404


def test_members_of_a_team_are_listed_on_its_page(client, teams):
    oak = teams["Oak"]
    keeper = ParticipantFactory(name="Ida Keeper")
    Membership.objects.create(team=oak, member=keeper, role="goalkeeper")
    page = client.get(reverse("sports:participant-detail", args=[oak.pk])).content.decode()
    assert "Ida Keeper" in page and "goalkeeper" in page


def test_the_league_page_draws_the_points_progression_with_a_table_fallback(client, two_seasons):
    league, _, _ = two_seasons
    page = client.get(reverse("sports:competition-detail", args=[league.pk])).content.decode()
    # Elm played twice, Yew and Oak once each, in the season shown.
    assert 'data-chart="points-progression" data-points="2,1,1"' in page
    assert "Elm 4 after 2" in page  # the text alternative


def test_the_games_page_draws_medals_by_country(client, games):
    root, *_ = games
    page = client.get(reverse("sports:competition-detail", args=[root.pk])).content.decode()
    assert 'data-chart="medals-by-country" data-points="2,2,2"' in page
    assert "Kenya 1 gold, 0 silver, 1 bronze" in page
