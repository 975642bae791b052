"""The new page types in a real browser, at desktop and phone widths: nothing wider than the
screen, no serious accessibility violation, and the sports charts drawn with every point."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from omnium.browser import (
    assert_no_horizontal_overflow,
    assert_no_serious_axe_violations,
    chart_points,
)

# django_db as well: pytest-django sets up the test database only for the databases that
# the session's marked tests ask for, and the module's rows are written before any test.
pytestmark = [pytest.mark.browser, pytest.mark.django_db]

TEAMS = ("Oakham Athletic", "Elmstead United", "Yewbarrow Rovers", "Ashcombe Town")


@pytest.fixture(scope="module")
def site(site_rows, site_server):
    """A league of two seasons, a Games with three countries and a venue, committed once."""
    from sports.models import Competition, FixtureCompetitor, ParticipantSport
    from sports.services import (
        CompetitorSpec,
        EntrantResult,
        competition_create,
        fixture_create,
        fixture_results_record,
    )
    from sports.tests.factories import (
        AthleticsFactory,
        CountryFactory,
        FootballFactory,
        ParticipantFactory,
        TeamFactory,
        VenueFactory,
        publish,
    )

    football = FootballFactory()
    ground = VenueFactory(name="Oakham Park", city="Oakham", country="GBR")
    league = competition_create(
        code="bt-league", name="Browser League", type="league", sport=football, actor="t"
    )
    teams = [TeamFactory(name=n) for n in TEAMS]
    start = datetime(2021, 8, 14, 15, tzinfo=UTC)
    for year in (2020, 2021):
        season = competition_create(
            code=f"bt-{year}", name=f"Browser League {year}", type="season", parent=league,
            actor="t",
        )  # fmt: skip
        # A double round robin: every team meets every other home and away.
        pairs = [(h, a) for h in teams for a in teams if h != a]
        for n, (home, away) in enumerate(pairs):
            node = competition_create(
                code=f"bt-{year}-{n}", name=f"Matchday {n + 1}", type="round", parent=season,
                ordinal=n + 1, actor="t",
            )  # fmt: skip
            fixture = publish(
                fixture_create(
                    competition=node,
                    code=f"bt-{year}-m{n}",
                    actor="t",
                    name=f"{home.name} v {away.name}",
                    venue=ground,
                    scheduled_start=start - timedelta(days=365 * (2021 - year) - 7 * n),
                    competitors=[
                        CompetitorSpec(participant=home, alignment="home"),
                        CompetitorSpec(participant=away, alignment="away"),
                    ],
                )
            )
            sides = {c.alignment: c for c in fixture.competitors.all()}
            h, a = (n * 7 + year) % 4, (n * 3) % 3
            fixture_results_record(
                fixture=fixture,
                actor="t",
                status="COMPLETED",
                results={
                    sides["home"].pk: EntrantResult(rank=1 if h >= a else 2, result={"score": h}),
                    sides["away"].pk: EntrantResult(rank=1 if a >= h else 2, result={"score": a}),
                },
            )

    athletics = AthleticsFactory()
    games = competition_create(code="bt-games", name="Browser Games", type="games", actor="t")
    sport = competition_create(
        code="bt-ath", name="Athletics", type="sport", parent=games, sport=athletics, actor="t"
    )
    names = (("KEN", "Kenya"), ("ETH", "Ethiopia"), ("UGA", "Uganda"))
    countries = [CountryFactory(code=c, name=n) for c, n in names]
    for e, event_name in enumerate(("5000 m", "10,000 m", "Marathon")):
        event = competition_create(
            code=f"bt-ev{e}", name=event_name, type="event", parent=sport, actor="t"
        )
        runners = [
            ParticipantFactory(name=f"{c.name} runner {e}", country=c.code) for c in countries
        ]
        for runner in runners:
            ParticipantSport.objects.create(participant=runner, sport=athletics)
        fixture = publish(
            fixture_create(
                competition=event,
                code=f"bt-final{e}",
                name=f"{event_name} final",
                actor="t",
                venue=ground,
                competitors=[
                    CompetitorSpec(participant=p, entry={"country": p.country}) for p in runners
                ],
            )
        )
        rows = list(FixtureCompetitor.objects.filter(fixture=fixture).order_by("ordinal"))
        order = [(e + i) % 3 for i in range(3)]
        fixture_results_record(
            fixture=fixture,
            actor="t",
            status="COMPLETED",
            results={
                rows[i].pk: EntrantResult(
                    rank=place + 1, result={"medal": ("gold", "silver", "bronze")[place]}
                )
                for i, place in enumerate(order)
            },
        )
    return {
        "league": Competition.objects.get(pk=league.pk),
        "games": Competition.objects.get(pk=games.pk),
        "team": teams[0],
        "country": countries[0],
        "venue": ground,
    }


def _check(page, url):
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    assert_no_horizontal_overflow(page)
    assert_no_serious_axe_violations(page)


def test_a_team_page_fits_both_widths_and_is_accessible(site, site_page, site_page_phone):
    url = reverse("sports:participant-detail", args=[site["team"].pk])
    for page in (site_page, site_page_phone):
        _check(page, url)
        assert page.get_by_role("heading", name="Head to head").is_visible()


def test_a_country_page_fits_both_widths_and_is_accessible(site, site_page, site_page_phone):
    url = reverse("sports:participant-detail", args=[site["country"].pk])
    for page in (site_page, site_page_phone):
        _check(page, url)
        assert page.get_by_role("link", name="Browser Games").is_visible()


def test_a_venue_page_fits_both_widths_and_is_accessible(site, site_page, site_page_phone):
    url = reverse("sports:venue-detail", args=[site["venue"].pk])
    for page in (site_page, site_page_phone):
        _check(page, url)


def test_a_league_page_draws_its_points_progression_at_both_widths(
    site, site_page, site_page_phone
):
    url = reverse("sports:competition-detail", args=[site["league"].pk])
    for page in (site_page, site_page_phone):
        _check(page, url)
        # Four teams, six matches each in a double round robin.
        assert chart_points(page, "points-progression") == [6, 6, 6, 6]
        page.get_by_label("Season").select_option(label="Browser League 2020")
        page.get_by_role("button", name="Show").click()
        page.wait_for_url("**?season=*")
        assert page.get_by_role("heading", name="Table: Browser League 2020").is_visible()


def test_a_games_page_draws_its_medals_by_country_at_both_widths(site, site_page, site_page_phone):
    url = reverse("sports:competition-detail", args=[site["games"].pk])
    for page in (site_page, site_page_phone):
        _check(page, url)
        # Gold, silver and bronze for each of three countries.
        assert chart_points(page, "medals-by-country") == [3, 3, 3]
