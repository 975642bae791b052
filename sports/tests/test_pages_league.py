"""A league page with two imported seasons shows one season's table, equal to the published
one (real openfootball data and fbref's final tables, from the shared dev data).

The earlier season is the real first matchday of 2017/18 only (a whole season more would
double the import time): Manchester City won it, so a page that summed seasons would show
them on P39 and 101 points instead of the published P38 and 98.
"""

import csv
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from omnium.testing import SHARED_DATA
from sports.models import Competition, TableKind
from sports.services import stat_table

FOOTBALL = SHARED_DATA / "sports" / "football"
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not FOOTBALL.is_dir(), reason="shared football data not present"),
]
FIELDS = ("played", "won", "drawn", "lost", "goals_for", "goals_against", "points")


def _published(season):
    """(played, won, drawn, lost, goals for, against, points) of every team, from the
    fbref-derived rows that carry every column."""
    with (FOOTBALL / "published_tables" / "standings_published.csv").open() as handle:
        rows = [
            r
            for r in csv.DictReader(handle)
            if r["season"] == season and r["league"] == "en.1" and r["won"]
        ]
    return sorted(tuple(int(r[f]) for f in FIELDS) for r in rows)


def _import(path):
    call_command("import_openfootball", str(path), code="epl", name="Premier League", verbosity=0)


@pytest.fixture
def premier_league(tmp_path):
    earlier = json.loads((FOOTBALL / "football.json" / "2017-18" / "en.1.json").read_text())
    earlier["matches"] = [m for m in earlier["matches"] if m["round"] == "Matchday 1"]
    (tmp_path / "2017-18").mkdir()
    (tmp_path / "2017-18" / "en.1.json").write_text(json.dumps(earlier))
    _import(tmp_path / "2017-18" / "en.1.json")
    _import(FOOTBALL / "football.json" / "2018-19" / "en.1.json")
    return Competition.objects.get(code="epl", parent__isnull=True)


def test_a_league_page_of_two_seasons_shows_one_season_equal_to_the_published_table(
    client, premier_league
):
    response = client.get(reverse("sports:competition-detail", args=[premier_league.pk]))
    assert response.context["choice"].selected.code == "epl-2018-19"
    rows = response.context["rows"]
    assert sorted(tuple(r[f] for f in FIELDS) for r in rows) == _published("2018-19")
    city = next(r for r in rows if r["team"] == "Manchester City")
    assert (city["position"], city["played"], city["points"]) == (1, 38, 98)
    summed = stat_table(node=premier_league, kind=TableKind.STANDINGS, all_time=True)
    city_summed = next(r for r in summed if r["team"] == "Manchester City")
    assert (city_summed["played"], city_summed["points"]) == (39, 101)  # what was shown
