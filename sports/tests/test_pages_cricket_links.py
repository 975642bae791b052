"""The cricket scorecard names its teams, players and venue with links to their pages."""

import json

import pytest
from django.urls import reverse

from cricket.selectors import fixture_scorecard
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from sports.models import Fixture, FixtureCompetitor

pytestmark = pytest.mark.django_db


@pytest.fixture
def scorecard(db):
    seed_dismissal_kinds()
    result = Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    assert result.outcome == "new", result.error
    fixture = Fixture.objects.select_related("venue").get(pk=result.fixture_id)
    page = reverse("cricket:scorecard", kwargs={"pk": fixture.pk})
    return fixture, page


def test_the_scorecard_links_each_batter_and_bowler_to_their_cricket_page(client, scorecard):
    fixture, url = scorecard
    page = client.get(url).content.decode()
    players = FixtureCompetitor.objects.filter(fixture=fixture, parent__isnull=False)
    linked = [
        p for p in players if reverse("cricket_stats:player", args=[p.participant_id]) in page
    ]
    assert len(linked) >= 2  # at least a batter and a bowler of the sample match


def test_the_scorecard_links_each_batting_team_and_the_venue(client, scorecard):
    fixture, url = scorecard
    page = client.get(url).content.decode()
    cards = fixture_scorecard(fixture)
    assert cards
    for card in cards:
        assert reverse("sports:participant-detail", args=[card.team_id]) in page
    assert reverse("sports:venue-detail", args=[fixture.venue_id]) in page
