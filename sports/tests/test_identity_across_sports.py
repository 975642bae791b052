"""One identity across sports on the spine: the resolver sees what a sport sees, Commons
countries are shared, national sides and season memberships survive merges."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.exceptions import ValidationError

from sports.models import NATIONAL_SIDE, Membership, ParticipantSport, ParticipantType
from sports.services import OutsideRow, participant_merge, participants_resolve
from sports.services.participants import (
    country_ensure,
    national_side_link,
    season_memberships_record,
)
from sports.tests.factories import (
    AthleticsFactory,
    CountryFactory,
    ParticipantFactory,
    SportFactory,
    TeamFactory,
)

pytestmark = pytest.mark.django_db


def test_a_name_seen_in_one_sport_is_not_joined_to_another_sports_participant():
    cricket, swimming = SportFactory(code="cricket"), SportFactory(code="swimming")
    cricketer = ParticipantFactory(name="Sam Lane")
    ParticipantSport.objects.create(participant=cricketer, sport=cricket)
    row = OutsideRow(external_id="SWM1", name="Sam Lane", sport_id=swimming.pk)
    result = participants_resolve(source_code="games", rows=[row], batch="b")
    assert result.matched == {}
    assert (
        "no participant its sport sees is known by the name 'Sam Lane'"
        in dict(result.unmatched)[row]
    )


def test_a_name_seen_in_a_sport_is_joined_to_that_sports_participant():
    swimming = SportFactory(code="swimming")
    swimmer = ParticipantFactory(name="Sam Lane")
    ParticipantSport.objects.create(participant=swimmer, sport=swimming)
    other = ParticipantFactory(name="Sam Lane")
    ParticipantSport.objects.create(participant=other, sport=AthleticsFactory())
    row = OutsideRow(external_id="SWM1", name="Sam Lane", sport_id=swimming.pk)
    result = participants_resolve(source_code="games", rows=[row], batch="b")
    assert result.matched == {row: swimmer}


def test_a_commons_participant_is_joined_by_name_from_any_sport():
    commons = ParticipantFactory(name="Pat Everywhere")  # no sport rows: seen by all
    row = OutsideRow(external_id="X1", name="Pat Everywhere", sport_id=SportFactory().pk)
    result = participants_resolve(source_code="games", rows=[row], batch="b")
    assert result.matched == {row: commons}


def test_country_ensure_returns_the_commons_country_of_the_code():
    india = CountryFactory(code="IND", name="India")
    assert country_ensure(code="ind", name="Bharat", actor="t") == (india, False)


def test_country_ensure_creates_a_commons_country_once():
    country, created = country_ensure(code="NAM", name="Namibia", actor="t")
    assert created
    assert (country.type, country.sport_id, country.code) == (ParticipantType.COUNTRY, None, "NAM")
    assert country_ensure(code="NAM", name="Namibia", actor="t") == (country, False)


def test_country_ensure_refuses_a_code_that_is_not_three_letters():
    with pytest.raises(ValidationError, match="not a three-letter country code"):
        country_ensure(code="ENGL", name="England", actor="t")


def test_only_a_team_can_be_a_national_side():
    with pytest.raises(ValidationError, match="not a team"):
        national_side_link(side=ParticipantFactory(), country=CountryFactory(), actor="t")


def test_season_memberships_widen_one_row_per_season():
    team, player = TeamFactory(), ParticipantFactory()
    for day in (date(2016, 7, 1), date(2016, 5, 20)):
        season_memberships_record(
            pairs=[(team.pk, player.pk)], role="player", season="2016", valid_from=day,
            valid_to=day,
        )  # fmt: skip
    row = Membership.objects.get(team=team, member=player)
    assert (row.valid_from, row.valid_to) == (date(2016, 5, 20), date(2016, 7, 1))


def test_merging_two_players_of_one_season_keeps_the_survivors_row_widened():
    team, loser, survivor = TeamFactory(), ParticipantFactory(), ParticipantFactory()
    for person, day in ((loser, date(2016, 5, 1)), (survivor, date(2016, 6, 1))):
        season_memberships_record(
            pairs=[(team.pk, person.pk)], role="player", season="2016", valid_from=day,
            valid_to=day,
        )  # fmt: skip
    participant_merge(loser=loser, survivor=survivor, actor="t", note="one person")
    row = Membership.objects.get(team=team, member=survivor)
    assert (row.valid_from, row.valid_to) == (date(2016, 5, 1), date(2016, 6, 1))
    assert Membership.objects.filter(member=loser).count() == 1  # kept, as the merge found it


def test_merging_two_sides_of_one_country_keeps_one_national_side_link():
    country = CountryFactory(code="IND", name="India")
    loser, survivor = TeamFactory(name="India"), TeamFactory(name="India")
    for side in (loser, survivor):
        national_side_link(side=side, country=country, actor="t")
    participant_merge(loser=loser, survivor=survivor, actor="t", note="one side")
    links = Membership.objects.filter(team=country, role=NATIONAL_SIDE)
    assert links.filter(member=survivor).count() == 1
