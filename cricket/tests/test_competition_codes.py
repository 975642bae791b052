"""Competition node codes that cannot collide: a path that fits keeps the code the import
always gave it, a longer one carries a hash of the whole path; and the re-filing of
fixtures an older import put under a node another path shared."""

import hashlib
import json

import pytest

from cricket.cricsheet_match import competition_path
from cricket.loading import MatchSubmission, match_load
from cricket.refile import Refile, cricket_fixtures_refile
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from sports.models import Competition, Fixture, SubmissionKind, TimelineItem
from sports.services import competition_create

ACTOR = "integration:cricsheet"
AFRICA = "ICC Women's T20 World Cup Africa Region Qualifier"
EAST_ASIA = "ICC Men's T20 World Cup East Asia-Pacific Region Qualifier"


def _info(name: str, season: str = "2021", gender: str = "male", **event) -> dict:
    return {
        "gender": gender,
        "match_type": "T20",
        "season": season,
        "dates": [f"{season[:4]}-05-01"],
        "event": {"name": name, **event},
    }


def _codes(info: dict) -> list[str]:
    return [step.code for step in competition_path(info)]


def test_a_group_of_one_event_in_two_seasons_has_two_codes():
    first = _codes(_info(AFRICA, "2019", "female", group="A"))
    second = _codes(_info(AFRICA, "2021", "female", group="A"))
    assert first[-1] != second[-1]
    assert all(len(code) <= 64 for code in first + second)


def test_seasons_of_two_events_alike_but_for_their_last_letter_have_two_codes():
    a = _codes(_info(f"{EAST_ASIA} A"))
    b = _codes(_info(f"{EAST_ASIA} B"))
    assert a[0] != b[0] and a[-1] != b[-1]


def test_an_event_and_its_longer_namesake_have_two_season_codes():
    plain = _codes(_info("ICC Men's T20 World Cup Sub Regional Africa Qualifier"))
    groups = _codes(_info("ICC Men's T20 World Cup Sub Regional Africa Qualifier Group A & B"))
    assert plain[-1] != groups[-1]


def test_an_event_and_its_group_named_namesake_in_europe_have_two_season_codes():
    plain = _codes(_info("ICC Men's T20 World Cup Sub Regional Europe Qualifier"))
    group_c = _codes(_info("ICC Men's T20 World Cup Sub Regional Europe Qualifier Group C"))
    assert plain[-1] != group_c[-1]


def test_curly_and_straight_apostrophes_name_one_node():
    assert _codes(_info(f"{EAST_ASIA} A")) == _codes(_info(f"{EAST_ASIA} A".replace("'", "\u2019")))


def test_a_path_that_fits_keeps_the_code_the_import_always_gave_it():
    info = _info("Indian Premier League", "2007/08", stage="Final", group="1")
    assert _codes(info) == [
        "indian-premier-league",
        "indian-premier-league-200708",
        "indian-premier-league-200708-s-final",
        "indian-premier-league-200708-s-final-g-1",
    ]


def test_a_long_event_whose_own_code_fits_keeps_it():
    assert _codes(_info(f"{EAST_ASIA} A"))[0] == (
        "icc-mens-t20-world-cup-east-asia-pacific-region-qualifier-a"
    )


def _load(match_id: str, **info) -> Fixture:
    document = cricsheet_match(**info)
    raw = json.dumps(document).encode()
    return match_load(
        document=document,
        match_id=match_id,
        sha256=hashlib.sha256(raw).hexdigest(),
        submission=MatchSubmission(
            kind=SubmissionKind.CORPUS_IMPORT, content=raw, original_filename=f"{match_id}.json"
        ),
        actor=ACTOR,
    ).fixture


@pytest.mark.django_db
def test_two_long_named_events_are_imported_into_two_nodes():
    seed_dismissal_kinds()
    a = _load("900001", event={"name": f"{EAST_ASIA} A"})
    b = _load("900002", event={"name": f"{EAST_ASIA} B"}, dates=["2024-05-09"])
    assert a.competition_id != b.competition_id
    assert a.competition.name == b.competition.name == "2024"


@pytest.mark.django_db
def test_one_long_group_in_two_seasons_is_imported_into_two_nodes():
    seed_dismissal_kinds()
    event = {"name": AFRICA, "group": "A"}
    first = _load("900003", event=event, season="2019", dates=["2019-05-01"], gender="female")
    second = _load("900004", event=event, season="2021", dates=["2021-05-01"], gender="female")
    assert first.competition_id != second.competition_id
    assert first.competition.get_ancestors().filter(name="2019").exists()
    assert second.competition.get_ancestors().filter(name="2021").exists()


@pytest.fixture
def misfiled(db) -> Fixture:
    """A fixture filed, as an older import did, under another season's node."""
    seed_dismissal_kinds()
    event = {"name": AFRICA, "group": "A"}
    earlier = _load("900005", event=event, season="2019", dates=["2019-05-01"], gender="female")
    later = _load("900006", event=event, season="2021", dates=["2021-05-01"], gender="female")
    Fixture.objects.filter(pk=later.pk).update(competition=earlier.competition)
    return Fixture.objects.get(pk=later.pk)


def test_the_backfill_moves_a_misfiled_fixture_to_the_node_its_file_names(misfiled):
    meant = Competition.objects.get(code=_codes(_info(AFRICA, "2021", "female", group="A"))[-1])
    refiled = cricket_fixtures_refile(actor=ACTOR)
    misfiled.refresh_from_db()
    assert (refiled.moved, misfiled.competition_id) == (1, meant.pk)


def test_the_backfill_records_the_move_on_the_fixture(misfiled):
    cricket_fixtures_refile(actor=ACTOR)
    assert TimelineItem.objects.filter(fixture=misfiled, event_type="fixture.move").count() == 1


def test_a_second_backfill_changes_nothing(misfiled):
    cricket_fixtures_refile(actor=ACTOR)
    version = Fixture.objects.get(pk=misfiled.pk).version
    items = TimelineItem.objects.count()
    assert cricket_fixtures_refile(actor=ACTOR) == Refile(moved=0, nodes=0)
    assert (Fixture.objects.get(pk=misfiled.pk).version, TimelineItem.objects.count()) == (
        version,
        items,
    )


def test_the_backfill_creates_the_missing_node_under_the_existing_event(misfiled):
    old = misfiled.competition
    root = old.get_root()
    # An older import's node for a path that now has another code: the backfill files
    # under a fresh node of the new code, leaving the old one in place.
    stray = competition_create(
        code="stray-node", name="2021", type="season", parent=root, actor=ACTOR
    )
    Fixture.objects.filter(pk=misfiled.pk).update(competition=stray)
    cricket_fixtures_refile(actor=ACTOR)
    misfiled.refresh_from_db()
    assert misfiled.competition.get_root().pk == root.pk
    assert Competition.objects.filter(pk=stray.pk).exists()
