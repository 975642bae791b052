"""The validation fast path never accepts a delivery the full rules would refuse."""

import copy
import json

import pytest

from ingest.cricsheet.checks import Checker
from ingest.cricsheet.validate import _check_delivery, _plain_and_valid
from omnium.testing import REPO_ROOT

PEOPLE = {"A Batter": "aaaa0001", "B Batter": "aaaa0002", "X Bowler": "bbbb0001", " ": "cccc"}
NAMES = {name for name in PEOPLE if name.strip()}
PLAIN = {
    "batter": "A Batter",
    "bowler": "X Bowler",
    "non_striker": "B Batter",
    "runs": {"batter": 1, "extras": 2, "total": 3},
    "extras": {"noballs": 1, "byes": 1},
}


def _full_rules_problems(delivery, people=PEOPLE, teams=("Home", "Away")):
    checker = Checker()
    _check_delivery(checker, delivery, "$.d", people, list(teams))
    return checker.problems


def _broken(**changes):
    delivery = copy.deepcopy(PLAIN)
    for dotted, value in changes.items():
        target = delivery
        *parents, last = dotted.split("__")
        for key in parents:
            target = target[key]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return delivery


BROKEN = [
    _broken(batter="Nobody"),
    _broken(bowler=" "),
    _broken(non_striker=7),
    _broken(batter=KeyError),
    _broken(runs="1"),
    _broken(runs__batter=-1),
    _broken(runs__batter=True),
    _broken(runs__extras=1.0),
    _broken(runs__total=4),
    _broken(runs__non_boundary=1),
    _broken(extras={"noballs": 1, "byes": 2}),
    _broken(extras={"noballs": -1, "byes": 3}),
    _broken(extras={"overthrows": 2}),
    _broken(extras=[1]),
    _broken(extras=KeyError),
    _broken(actual_delivery=""),
    _broken(surprise=1),
    _broken(runs__boundary=True),
    _broken(runs__batter=40, runs__total=42),
    _broken(extras={"penalty": 31}, runs__extras=31, runs__total=32),
    _broken(actual_delivery="0.1" + "x" * 14),
    "not an object",
]


@pytest.mark.parametrize("delivery", BROKEN, ids=range(len(BROKEN)))
def test_a_broken_delivery_leaves_the_fast_path_and_the_full_rules_name_it(delivery):
    assert not _plain_and_valid(delivery, NAMES)
    assert _full_rules_problems(delivery)


def test_a_plain_delivery_passes_both_ways():
    assert _plain_and_valid(PLAIN, NAMES)
    assert _full_rules_problems(PLAIN) == []


def test_every_delivery_of_the_committed_sample_gets_the_same_verdict_both_ways():
    checked = accepted = 0
    for path in sorted((REPO_ROOT / "ingest" / "samples" / "cricket").glob("*.json")):
        document = json.loads(path.read_bytes())
        people = document["info"]["registry"]["people"]
        names = {name for name in people if name.strip()}
        teams = document["info"]["teams"]
        for inning in document["innings"]:
            for over in inning.get("overs", []):
                for delivery in over["deliveries"]:
                    checked += 1
                    if _plain_and_valid(delivery, names):
                        accepted += 1
                        assert _full_rules_problems(delivery, people, teams) == []
    assert checked > 10_000 and accepted > checked * 0.8
