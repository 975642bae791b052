"""``import_cricsheet --root CODE``: a Games and its cricket share one competition tree, and
the cricket node's page shows cricket's table, never a medal table."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from cricket.tests.factories import seed_dismissal_kinds
from ingest.samples import SAMPLES
from sports.models import Competition, Fixture, TableKind
from sports.services import competition_create, table_kind_for

CRICKET = SAMPLES / "cricket"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _dismissal_kinds(db):
    seed_dismissal_kinds()


@pytest.fixture
def games_root():
    return competition_create(code="multi-games", name="Multi Games", type="games", actor="t")


def _import(*args: str) -> None:
    call_command("import_cricsheet", *args, verbosity=0)


def test_root_files_the_matches_competitions_under_an_existing_games_root(games_root):
    _import(str(CRICKET / "804705.json"), "--root", "multi-games")
    fixture = Fixture.objects.get()
    top = fixture.competition.get_ancestors(include_self=True).first()
    assert top == games_root
    event = top.get_children().get()
    assert (event.name, event.sport.code) == ("NatWest T20 Blast", "cricket")


def test_an_unknown_root_is_an_error_and_writes_nothing():
    with pytest.raises(CommandError, match="--root nowhere: no competition has this code") as e:
        _import(str(CRICKET / "804705.json"), "--root", "nowhere")
    assert e.value.returncode == 1
    assert not Fixture.objects.exists()


def test_a_root_must_be_a_tree_root(games_root):
    competition_create(code="inner", name="Inner", type="stage", parent=games_root, actor="t")
    with pytest.raises(CommandError, match="not a tree root"):
        _import(str(CRICKET / "804705.json"), "--root", "inner")


def test_a_competition_that_sits_elsewhere_is_refused_under_a_root(games_root, capsys):
    _import(str(CRICKET / "804705.json"))  # the 2015 Blast: a cricket root of its own
    with pytest.raises(CommandError) as refused:
        _import(str(CRICKET / "947101.json"), "--root", "multi-games")  # the 2016 Blast
    assert refused.value.returncode == 4
    assert "'natwest-t20-blast' already exists and is a root of its own" in capsys.readouterr().err
    assert Fixture.objects.count() == 1


def test_a_cricket_node_under_a_games_root_shows_its_points_table(client, games_root):
    _import(str(CRICKET / "804705.json"), "--root", "multi-games")
    event = Competition.objects.get(parent=games_root)
    assert table_kind_for(event) == TableKind.STANDINGS
    page = client.get(reverse("sports:competition-detail", args=[event.pk]))
    assert page.context["kind"] == TableKind.STANDINGS
    assert "Medal table" not in page.content.decode()


def test_the_games_root_itself_still_folds_into_a_medal_table(games_root):
    _import(str(CRICKET / "804705.json"), "--root", "multi-games")
    assert table_kind_for(games_root) == TableKind.MEDALS
