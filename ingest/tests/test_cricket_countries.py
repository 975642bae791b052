"""One identity across sports: an international cricket side belongs to the Commons country
the Games enter (cricket/data/boards.csv), and squads are members for their season."""

from __future__ import annotations

import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from cricket.boards import BOARDS_CSV, boards_read
from cricket.loading import SQUAD_ROLE
from cricket.services import cricket_sport
from cricket.tests.factories import seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from ingest.games import games_import
from ingest.games.reading import games_read
from ingest.samples import SAMPLE_LOADERS, SAMPLES
from sports.models import (
    NATIONAL_SIDE,
    CompetitionEntry,
    EntityType,
    ExternalIdMap,
    Membership,
    Participant,
    ParticipantSport,
    ParticipantType,
)

CRICKET = SAMPLES / "cricket"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _dismissal_kinds(db):
    seed_dismissal_kinds()


def _import(*match_ids: str) -> None:
    summary = Importer().run([CRICKET / f"{m}.json" for m in match_ids])
    assert summary.rejected == 0, summary.rejections


def _team(name: str, gender: str = "male") -> Participant:
    internal = ExternalIdMap.objects.get(
        source_code="cricsheet",
        entity_type=EntityType.PARTICIPANT,
        external_id=f"team:{gender}:{name}",
    ).internal_id
    return Participant.objects.get(pk=internal)


def _countries_of(team: Participant) -> list[str]:
    return sorted(
        Membership.objects.filter(member=team, role=NATIONAL_SIDE).values_list(
            "team__code", flat=True
        )
    )


def _registry_id(match_id: str, name: str) -> str:
    info = json.loads((CRICKET / f"{match_id}.json").read_text())["info"]
    return info["registry"]["people"][name]


def _person(registry_id: str) -> Participant:
    internal = ExternalIdMap.objects.get(
        source_code="cricsheet", entity_type=EntityType.PARTICIPANT, external_id=registry_id
    ).internal_id
    return Participant.objects.get(pk=internal)


def test_an_international_side_is_a_national_side_of_its_commons_country():
    _import("1398272")  # Pakistan Women tour of England, 2024
    assert _countries_of(_team("Pakistan", "female")) == ["PAK"]
    pakistan = Participant.objects.get(code="PAK", sport__isnull=True)
    assert pakistan.type == ParticipantType.COUNTRY


def test_england_plays_for_great_britain_the_country_the_games_enter():
    _import("1398272")
    assert _countries_of(_team("England", "female")) == ["GBR"]
    assert Participant.objects.get(code="GBR", sport__isnull=True).name == "Great Britain"


def test_mens_and_womens_sides_are_two_teams_of_one_country():
    _import("213288", "1398272")  # England men (2005) and England women (2024)
    men, women = _team("England", "male"), _team("England", "female")
    assert men.pk != women.pk
    gbr = Participant.objects.get(code="GBR", sport__isnull=True)
    sides = Membership.objects.filter(team=gbr, role=NATIONAL_SIDE)
    assert sorted(sides.values_list("member_id", flat=True)) == sorted([men.pk, women.pk])


def test_west_indies_plays_for_no_one_country():
    _import("237242")  # New Zealand v West Indies
    assert _countries_of(_team("West Indies")) == []
    assert _countries_of(_team("New Zealand")) == ["NZL"]


def test_a_club_side_named_after_a_country_is_no_national_side():
    _import("wi_211973")  # "Jamaica" in a West Indies domestic competition
    assert _countries_of(_team("Jamaica", "female")) == []
    assert not Participant.objects.filter(type=ParticipantType.COUNTRY).exists()


def test_cricket_joins_the_country_the_games_import_created():
    games_import(directory=SAMPLES / "games", code="sample-games", name="Sample Games")
    games_gbr = Participant.objects.get(code="GBR", sport__isnull=True)
    _import("213288")
    assert _countries_of(_team("England")) == ["GBR"]
    assert Participant.objects.filter(code="GBR", type=ParticipantType.COUNTRY).count() == 1
    assert Membership.objects.get(member=_team("England"), role=NATIONAL_SIDE).team == games_gbr


def test_the_games_import_joins_the_country_cricket_created():
    _import("213288")
    cricket_aus = Participant.objects.get(code="AUS", sport__isnull=True)
    games_import(directory=SAMPLES / "games", code="sample-games", name="Sample Games")
    assert Participant.objects.filter(code="AUS", type=ParticipantType.COUNTRY).count() == 1
    # The Games entered their Australians for the row cricket made.
    assert CompetitionEntry.objects.filter(country=cricket_aus).exists()


def test_a_second_run_links_no_side_twice():
    _import("213288")
    before = Membership.objects.count()
    Importer().run([CRICKET / "64013.json"])  # England and Australia again, another match
    assert Membership.objects.filter(role=NATIONAL_SIDE).count() == 2
    assert Membership.objects.count() > before  # the new match's season squads only


def test_every_international_side_of_the_samples_is_in_the_board_table():
    boards = boards_read()
    for path in CRICKET.glob("*.json"):
        info = json.loads(path.read_text())["info"]
        if info.get("team_type") == "international":
            assert set(info["teams"]) <= set(boards), path.name


def test_a_board_with_no_country_must_say_why(tmp_path):
    broken = tmp_path / "boards.csv"
    lines = BOARDS_CSV.read_text().splitlines()
    broken.write_text("\n".join([*lines, "Atlantis,associate,,,"]) + "\n")
    with pytest.raises(ValueError, match=r"boards.csv line \d+: 'Atlantis' plays for no country"):
        boards_read(broken)


def test_a_squad_is_recorded_as_members_of_its_team_for_the_season():
    _import("64013")  # England tour of Australia, 2002/03: a five-day Test
    info = json.loads((CRICKET / "64013.json").read_text())["info"]
    england = _team("England")
    rows = Membership.objects.filter(team=england, role=SQUAD_ROLE)
    assert rows.count() == len(info["players"]["England"])
    row = rows.get(member=_person(_registry_id("64013", info["players"]["England"][0])))
    assert (row.season, row.valid_from, row.valid_to) == (
        "2002/03",
        date.fromisoformat(info["dates"][0]),
        date.fromisoformat(info["dates"][-1]),
    )


def test_two_matches_of_one_season_widen_one_membership():
    _import("947101", "947121")  # Sussex in the 2016 T20 Blast, twice
    first = json.loads((CRICKET / "947101.json").read_text())["info"]
    second = json.loads((CRICKET / "947121.json").read_text())["info"]
    both = sorted(set(first["players"]["Sussex"]) & set(second["players"]["Sussex"]))
    assert both
    player = _person(first["registry"]["people"][both[0]])
    row = Membership.objects.get(team=_team("Sussex"), member=player, role=SQUAD_ROLE)
    days = sorted([*first["dates"], *second["dates"]])
    assert (row.season, row.valid_from, row.valid_to) == (
        "2016",
        date.fromisoformat(days[0]),
        date.fromisoformat(days[-1]),
    )


def test_another_season_is_another_membership():
    _import("335982", "392190")  # Kolkata Knight Riders in 2007/08 and 2009
    first = json.loads((CRICKET / "335982.json").read_text())["info"]
    second = json.loads((CRICKET / "392190.json").read_text())["info"]
    team = "Kolkata Knight Riders"
    both = sorted(set(first["players"][team]) & set(second["players"][team]))
    assert both
    player = _person(first["registry"]["people"][both[0]])
    seasons = Membership.objects.filter(team=_team(team), member=player, role=SQUAD_ROLE)
    assert sorted(seasons.values_list("season", flat=True)) == ["2007/08", "2009"]


def test_a_country_page_lists_its_cricket_sides_with_its_olympians(client):
    games_import(directory=SAMPLES / "games", code="sample-games", name="Sample Games")
    _import("213288", "1398272")  # England men and England women
    gbr = Participant.objects.get(code="GBR", sport__isnull=True)
    page = client.get(reverse("sports:participant-detail", args=[gbr.pk])).context["page"]
    teams = {g.sport: [t.name for t in g.teams] for g in page.by_sport}
    assert teams["Cricket"] == ["England", "England (women)"]
    assert any(g.athletes for g in page.by_sport if g.sport != "Cricket")


def test_after_the_samples_load_one_country_carries_its_olympic_entries_and_cricket_teams(
    client,
):
    # The loaders ``make run`` calls (load_samples), in its order: the Games, then cricket.
    loaders = dict(SAMPLE_LOADERS)
    loaders["Sample Games (hand-made)"]()
    loaders["Cricket: 30 Cricsheet matches (cricsheet.org, ODC-By 1.0)"]()
    for code, sides in (
        ("GBR", {"England", "England (women)"}),
        ("AUS", {"Australia"}),
        ("CAN", {"Canada"}),
        ("KEN", {"Kenya"}),
    ):
        country = Participant.objects.get(code=code, type=ParticipantType.COUNTRY)
        assert CompetitionEntry.objects.filter(country=country).exists(), code
        national = Membership.objects.filter(team=country, role=NATIONAL_SIDE)
        assert set(national.values_list("member__name", flat=True)) == sides, code
        page = client.get(reverse("sports:participant-detail", args=[country.pk]))
        shown = {t.name for g in page.context["page"].by_sport for t in g.teams}
        assert sides <= shown, code
    # One country row per code, whichever import met it first.
    codes = Participant.objects.filter(type=ParticipantType.COUNTRY).values_list("code", flat=True)
    assert len(codes) == len(set(codes))


def test_a_team_page_lists_its_newest_seasons_squad_first(client):
    _import("335982", "392190")  # Kolkata Knight Riders in 2007/08 and 2009
    team = _team("Kolkata Knight Riders")
    page = client.get(reverse("sports:participant-detail", args=[team.pk]))
    members = page.context["page"].members
    assert members[0].season == "2009"
    assert {m.season for m in members} == {"2007/08", "2009"}
    assert "<small>2009</small>" in page.content.decode()


def test_the_games_never_join_their_athlete_to_a_cricketer_of_the_same_name():
    # A cricketer known by a Games athlete's exact name, seen by cricket only: the Games
    # have never linked the athlete's id, so only the name could join them.
    name = games_read(SAMPLES / "games").athletes["9000002"].name
    cricketer = Participant.objects.create(
        code="cricketer-namesake", type=ParticipantType.PERSON, name=name
    )
    ParticipantSport.objects.create(participant=cricketer, sport=cricket_sport())
    games_import(directory=SAMPLES / "games", code="sample-games", name="Sample Games")
    assert not CompetitionEntry.objects.filter(participant=cricketer).exists()
    assert CompetitionEntry.objects.filter(participant__name=name).exists()


def test_a_national_sides_page_links_to_its_country(client):
    _import("1398272")
    gbr = Participant.objects.get(code="GBR", sport__isnull=True)
    page = client.get(reverse("sports:participant-detail", args=[_team("England", "female").pk]))
    assert page.context["nation"] == gbr
    assert reverse("sports:participant-detail", args=[gbr.pk]) in page.content.decode()


def test_the_backfill_gives_matches_imported_before_their_countries_and_seasons():
    _import("213288", "947101", "947121")
    links = set(Membership.objects.filter(role=NATIONAL_SIDE).values_list("team", "member"))
    seasons = set(
        Membership.objects.filter(role=SQUAD_ROLE).values_list(
            "team", "member", "season", "valid_from", "valid_to"
        )
    )
    Membership.objects.all().delete()  # as a database from before the import kept them
    call_command("cricket_identity_backfill", stdout=StringIO())
    assert set(Membership.objects.filter(role=NATIONAL_SIDE).values_list("team", "member")) == (
        links
    )
    assert (
        set(
            Membership.objects.filter(role=SQUAD_ROLE).values_list(
                "team", "member", "season", "valid_from", "valid_to"
            )
        )
        == seasons
    )


def test_the_backfill_run_again_changes_nothing():
    _import("213288")
    call_command("cricket_identity_backfill", stdout=StringIO())
    before = sorted(Membership.objects.values_list("pk", "valid_from", "valid_to"))
    call_command("cricket_identity_backfill", stdout=StringIO())
    assert sorted(Membership.objects.values_list("pk", "valid_from", "valid_to")) == before
