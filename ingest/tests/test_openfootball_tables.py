"""The nine dev league-seasons: computed tables equal the published ones (points, goal
difference, order — La Liga's head-to-head tie-break included)."""

import csv
import re
import unicodedata

import pytest
from django.core.management import call_command

from omnium.testing import SHARED_DATA
from sports.models import Competition, TableKind
from sports.services import stat_table

FOOTBALL = SHARED_DATA / "sports" / "football"
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not FOOTBALL.is_dir(), reason="shared football data not present"),
]
LA_LIGA_TIEBREAKS = (
    "points,head_to_head_points,head_to_head_goal_difference,goal_difference,goals_for"
)
# Published names whose words barely overlap openfootball's.
ALIASES = {"Bayern Munich": "Bayern München", "Borussia Mönchengladbach": "Bor. Mönchengladbach"}
_NOISE = {
    "fc",
    "cf",
    "afc",
    "sc",
    "sd",
    "rc",
    "cd",
    "ud",
    "sv",
    "vfl",
    "vfb",
    "tsg",
    "fsv",
    "1",
    "de",
    "and",
    "club",
    "rcd",
    "real",
    "ca",
    "sad",
    "bsc",
    "hsc",
}


def _words(name):
    plain = "".join(
        c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)
    ).casefold()
    return set(re.findall(r"[a-z0-9]+", plain)) - _NOISE


def _published(season, league):
    with (FOOTBALL / "published_tables" / "standings_published.csv").open() as handle:
        return [
            r
            for r in csv.DictReader(handle)
            if r["season"] == season
            and r["league"] == league
            and r["source"].startswith("ryanvmenezes")
        ]


def _name_map(published, computed):
    """Published name -> computed team name: an alias, else the best word overlap. Must
    be one-to-one, or the comparison would prove nothing."""
    mapping = {}
    for row in published:
        name = row["team_name_as_published"]
        if name in ALIASES:
            mapping[name] = ALIASES[name]
            continue
        mapping[name] = max(
            computed,
            key=lambda team: len(_words(name) & _words(team)) / len(_words(name) | _words(team)),
        )
    assert len(set(mapping.values())) == len(mapping) == len(computed)
    return mapping


# Each league once in the suite (La Liga for its head-to-head tie-break); the other six
# with `make verify-data`.
IN_SUITE = {("en.1", "2018-19"), ("de.1", "2017-18"), ("es.1", "2016-17")}
LEAGUE_SEASONS = [
    pytest.param(
        league,
        season,
        id=f"{league}-{season}",
        marks=() if (league, season) in IN_SUITE else pytest.mark.whole_data,
    )
    for league in ("en.1", "de.1", "es.1")
    for season in ("2016-17", "2017-18", "2018-19")
]


@pytest.mark.parametrize(("league", "season"), LEAGUE_SEASONS)
def test_computed_table_equals_the_published_table(league, season):
    code = league.replace(".", "")
    options = {"tiebreaks": LA_LIGA_TIEBREAKS} if league == "es.1" else {}
    call_command(
        "import_openfootball",
        str(FOOTBALL / "football.json" / season / f"{league}.json"),
        code=code,
        name=league,
        verbosity=0,
        **options,
    )
    table = stat_table(
        node=Competition.objects.get(code=f"{code}-{season}"), kind=TableKind.STANDINGS
    )
    published = _published(season, league)
    by_name = {row["team"]: row for row in table}
    mapping = _name_map(published, by_name)
    for row in published:
        mine = by_name[mapping[row["team_name_as_published"]]]
        assert (mine["points"], mine["goal_difference"], mine["position"]) == (
            int(row["points"]),
            int(row["goal_difference"]),
            int(row["position"]),
        ), row["team_name_as_published"]
