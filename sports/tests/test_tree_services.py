import pytest
from django.core.exceptions import ValidationError

from sports.models import Competition, CompetitionStatus, Fixture, TimelineItem
from sports.services import (
    competition_archive,
    competition_create,
    competition_merge,
    competition_move,
    fixture_create,
)
from sports.tests.factories import SportFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def games():
    swimming = SportFactory(code="swimming")
    root = competition_create(code="paris-2024", name="Paris 2024", type="games", actor="t")
    sport = competition_create(
        code="swm",
        name="Swimming",
        type="sport",
        parent=root,
        sport=swimming,
        actor="t",
        format_code="LCM",
    )
    event = competition_create(
        code="100fr",
        name="100 m freestyle",
        type="event",
        parent=sport,
        actor="t",
        fixture_type="race",
    )
    heat = competition_create(code="heats", name="Heats", type="phase", parent=event, actor="t")
    return {"root": root, "sport": sport, "event": event, "heat": heat, "swimming": swimming}


def test_a_node_below_a_sport_node_takes_its_sport(games):
    assert games["heat"].sport == games["swimming"]
    assert games["root"].sport is None


def test_giving_a_node_another_sport_than_its_parent_is_refused(games):
    with pytest.raises(ValidationError, match="must carry that sport"):
        competition_create(
            code="x",
            name="X",
            type="event",
            parent=games["event"],
            sport=SportFactory(code="diving"),
            actor="t",
        )


def test_effective_values_are_inherited_from_the_nearest_ancestor(games):
    heat = Competition.objects.with_effective().get(pk=games["heat"].pk)
    assert (heat.effective_fixture_type, heat.effective_format_code) == ("race", "LCM")


def test_a_new_fixture_takes_inherited_values_unless_given(games):
    fixture = fixture_create(
        competition=games["heat"], code="h1", actor="t", archetype="RANKED_FIELD"
    )
    other = fixture_create(
        competition=games["heat"], code="h2", actor="t", archetype="RANKED_FIELD", format_code="SCM"
    )
    assert (fixture.fixture_type, fixture.format_code) == ("race", "LCM")
    assert other.format_code == "SCM"


def test_every_fixture_under_a_node_is_found_at_any_depth(games):
    fixture_create(competition=games["heat"], code="h1", actor="t", archetype="RANKED_FIELD")
    fixture_create(competition=games["event"], code="f", actor="t", archetype="RANKED_FIELD")
    root = Competition.objects.get(pk=games["root"].pk)
    assert set(Fixture.objects.under(root).values_list("code", flat=True)) == {"h1", "f"}
    heat = Competition.objects.get(pk=games["heat"].pk)
    assert list(Fixture.objects.under(heat).values_list("code", flat=True)) == ["h1"]


def test_a_node_cannot_move_under_its_own_descendant(games):
    with pytest.raises(ValidationError, match="under itself or its own descendant"):
        competition_move(node=games["event"], new_parent=games["heat"], actor="t")


def test_moving_a_node_carries_its_subtree_and_is_logged(games):
    other = competition_create(
        code="swm2",
        name="Swimming B",
        type="sport",
        parent=games["root"],
        sport=games["swimming"],
        actor="t",
    )
    competition_move(node=games["event"], new_parent=other, actor="editor", reason="regroup")
    heat = Competition.objects.get(pk=games["heat"].pk)
    assert heat.parent.parent_id == other.pk
    assert TimelineItem.objects.filter(event_type="competition.move", actor="editor").exists()


def test_archiving_a_node_archives_its_subtree(games):
    assert competition_archive(node=games["event"], actor="t") == 2
    assert Competition.objects.get(pk=games["heat"].pk).status == CompetitionStatus.ARCHIVED


def test_merging_competitions_moves_children_and_fixtures_and_keeps_the_loser(games):
    twin = competition_create(
        code="100fr-b", name="100 free (dup)", type="event", parent=games["sport"], actor="t"
    )
    fixture_create(competition=twin, code="dup-final", actor="t", archetype="RANKED_FIELD")
    competition_merge(loser=twin, survivor=games["event"], actor="editor", reason="duplicate")
    twin.refresh_from_db()
    assert twin.merged_into_id == games["event"].pk
    assert twin.status == CompetitionStatus.MERGED
    moved = Fixture.objects.get(code="dup-final")
    assert moved.competition_id == games["event"].pk
    assert TimelineItem.objects.filter(fixture=moved, event_type="fixture.move").count() == 1
