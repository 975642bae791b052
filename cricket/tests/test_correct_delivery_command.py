"""``manage.py correct_delivery``: success, and a non-zero exit with a clear message."""

import json

import pytest
from django.core.management import call_command

from cricket.management.commands.correct_delivery import Command
from cricket.models import Delivery, DeliveryCorrectionHistory, DeliveryWicket
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _keep_the_test_connection(monkeypatch):
    # run_from_argv closes every connection when it ends, which would end the test's
    # transaction; the command's own path (parse, run, exit status) is unchanged.
    monkeypatch.setattr("django.core.management.base.connections.close_all", lambda: None)


@pytest.fixture
def match():
    seed_dismissal_kinds()
    result = Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    return result.fixture_id


def live(fixture_id, over, position):
    return Delivery.objects.current().get(
        innings__fixture_id=fixture_id, innings__ordinal=1, over_number=over, position=position
    )


def run(*args):
    """As ``manage.py`` runs it: a CommandError becomes exit status 1 and a stderr line."""
    Command().run_from_argv(["manage.py", "correct_delivery", *args])


def where(over=0, position=2):
    return ["--match", "900001", "--innings", "1", "--over", str(over), "--position", str(position)]


def test_a_correction_from_the_command_line(match, editor, capsys):
    run(
        *where(),
        "--set",
        "runs_batter=3",
        "--set",
        "non_boundary=true",
        "--reason",
        "all run",
        "--actor",
        "editor",
    )
    new = live(match, 0, 2)
    assert (new.revision, new.runs_batter, new.runs_total, new.non_boundary) == (2, 3, 3, True)
    assert "revision 2" in capsys.readouterr().out
    assert DeliveryCorrectionHistory.objects.get().requested_by == editor


def test_extras_people_and_a_wicket_by_name(match, editor):
    call_command(
        "correct_delivery",
        *where(1, 0),
        "--set", "wides=1",
        "--set", "runs_batter=0",
        "--set", "bowler=X Bowler",
        "--wicket-kind", "stumped",
        "--player-out", "A Batter",
        "--fielder", "Z Keeper",
        "--reason", "stumped off a wide",
        "--actor", "editor",
    )  # fmt: skip
    new = live(match, 1, 0)
    assert (new.extra_wides, new.runs_total, new.bowler.name) == (1, 1, "X Bowler")
    wicket = DeliveryWicket.objects.get(delivery=new)
    assert (wicket.kind.name, wicket.player_out.name) == ("stumped", "A Batter")
    assert [f.participant.name for f in wicket.fielders.all()] == ["Z Keeper"]
    assert live(match, 1, 1).ball_label == "1.1"  # the next ball takes the first legal label


def test_a_wicket_is_removed(match, editor):
    run(*where(0, 4), "--remove-wicket", "--reason", "not out after all", "--actor", "editor")
    assert not DeliveryWicket.objects.filter(delivery=live(match, 0, 4)).exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (where(0, 9), "has no delivery at innings 1, over 0, position 9"),
        (
            ["--match", "424242", "--innings", "1", "--over", "0", "--position", "0"],
            "No imported Cricsheet match has id '424242'",
        ),
        ([*where(), "--set", "runs_batter=-2"], "runs_batter: -2 is negative"),
        ([*where(), "--set", "runs_batter=four"], "'four' is not a whole number"),
        ([*where(), "--set", "runs_total=4"], "'runs_total' cannot be corrected"),
        ([*where(), "--set", "batter=Nobody"], "No player of this match is called 'Nobody'"),
        ([*where(), "--wicket-kind", "levitated", "--player-out", "B Batter"], "not a dismissal"),
        ([*where(), "--player-out", "B Batter"], "needs its kind and the player out"),
        ([*where(), "--set", "runs_batter=4"], "changes nothing"),
    ],
)
def test_a_missing_delivery_or_invalid_change_exits_non_zero_with_a_clear_message(
    match, editor, capsys, args, message
):
    with pytest.raises(SystemExit) as exit_:
        run(*args, "--reason", "r", "--actor", "editor")
    assert exit_.value.code == 1
    assert message in capsys.readouterr().err
    assert not DeliveryCorrectionHistory.objects.exists()


def test_an_account_that_may_not_correct_is_refused(match, viewer, capsys):
    with pytest.raises(SystemExit) as exit_:
        run(*where(), "--set", "runs_batter=3", "--reason", "r", "--actor", "viewer")
    assert exit_.value.code == 1
    assert "may not correct deliveries" in capsys.readouterr().err
