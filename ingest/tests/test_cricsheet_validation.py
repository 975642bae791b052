"""The submission contract: every broken file is refused whole, naming the file, the JSON
path and the rule of each problem, and leaves the database as it was (no partial write)."""

import copy
import json

import pytest

from cricket.models import Delivery, Innings
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer, Outcome
from ingest.cricsheet.validate import CricsheetRejected, load, validate
from sports.models import Competition, ExternalIdMap, Fixture, Participant, Submission


@pytest.fixture(autouse=True)
def _dismissal_kinds(request):
    if "db" in request.fixturenames or request.node.get_closest_marker("django_db"):
        request.getfixturevalue("db")
        seed_dismissal_kinds()


D = "$.innings[0].overs[0].deliveries"


def _delivery(doc, i=0, over=0):
    return doc["innings"][0]["overs"][over]["deliveries"][i]


# (case, mutation of a valid document, JSON path named, rule named)
BROKEN = [
    (
        "negative extra",
        lambda d: _delivery(d, 1)["extras"].update(wides=-1),
        f"{D}[1].extras.wides",
        "nonnegative",
    ),
    (
        "unknown batter",
        lambda d: _delivery(d).update(batter="Nobody"),
        f"{D}[0].batter",
        "registry",
    ),
    ("unknown bowler", lambda d: _delivery(d).update(bowler="Ghost"), f"{D}[0].bowler", "registry"),
    ("missing innings", lambda d: d.pop("innings"), "$.innings", "required"),
    ("no innings at all", lambda d: d.update(innings=[]), "$.innings", "required"),
    (
        "runs as text",
        lambda d: _delivery(d)["runs"].update(batter="1", total=1),
        f"{D}[0].runs.batter",
        "type",
    ),
    (
        "extras total mismatch",
        lambda d: _delivery(d, 1)["runs"].update(extras=3, total=3),
        f"{D}[1].runs.extras",
        "extras-sum",
    ),
    (
        "total mismatch",
        lambda d: _delivery(d, 2)["runs"].update(total=5),
        f"{D}[2].runs.total",
        "total-sum",
    ),
    (
        "unsupported data version",
        lambda d: d["meta"].update(data_version="2.0.0"),
        "$.meta.data_version",
        "data-version",
    ),
    (
        "overs out of order",
        lambda d: d["innings"][0]["overs"][1].update(over=0),
        "$.innings[0].overs[1].over",
        "order",
    ),
    (
        "unknown extras type",
        lambda d: _delivery(d, 1)["extras"].update(overthrows=0),
        f"{D}[1].extras.overthrows",
        "unknown-key",
    ),
    (
        "unknown fielder",
        lambda d: _delivery(d, 4)["wickets"][0]["fielders"][0].update(name="Ghost"),
        f"{D}[4].wickets[0].fielders[0].name",
        "registry",
    ),
    (
        "nameless fielder not a substitute",
        lambda d: _delivery(d, 4)["wickets"][0]["fielders"][0].pop("name"),
        f"{D}[4].wickets[0].fielders[0]",
        "required",
    ),
    (
        "innings team not playing",
        lambda d: d["innings"][0].update(team="Elsewhere"),
        "$.innings[0].team",
        "team",
    ),
    ("one team only", lambda d: d["info"].update(teams=["Home"]), "$.info.teams", "teams"),
    ("bad date", lambda d: d["info"].update(dates=["01/05/2024"]), "$.info.dates[0]", "date"),
    (
        "winner not a team",
        lambda d: d["info"]["outcome"].update(winner="Elsewhere"),
        "$.info.outcome.winner",
        "team",
    ),
    (
        "unknown result",
        lambda d: d["info"].update(outcome={"result": "abandoned"}),
        "$.info.outcome.result",
        "enum",
    ),
    (
        "miscounted balls not a number",
        lambda d: d["innings"][0].update(miscounted_overs={"1": {"balls": "five"}}),
        "$.innings[0].miscounted_overs['1'].balls",
        "type",
    ),
    (
        "empty over",
        lambda d: d["innings"][0]["overs"][1].update(deliveries=[]),
        "$.innings[0].overs[1].deliveries",
        "required",
    ),
    (
        "wickets not a list",
        lambda d: _delivery(d, 4).update(wickets={"kind": "bowled"}),
        f"{D}[4].wickets",
        "type",
    ),
    (
        "unknown delivery key",
        lambda d: _delivery(d).update(speed_kph=140),
        f"{D}[0].speed_kph",
        "unknown-key",
    ),
    (
        "no registry",
        lambda d: d["info"]["registry"].pop("people"),
        "$.info.registry.people",
        "required",
    ),
    (
        "negative penalty runs",
        lambda d: d["innings"][0].update(penalty_runs={"pre": -5}),
        "$.innings[0].penalty_runs.pre",
        "nonnegative",
    ),
    (
        "non_boundary not a flag",
        lambda d: _delivery(d)["runs"].update(non_boundary="yes"),
        f"{D}[0].runs.non_boundary",
        "type",
    ),
    (
        "unknown match type",
        lambda d: d["info"].update(match_type="T10"),
        "$.info.match_type",
        "enum",
    ),
    (
        "squad player not in registry",
        lambda d: d["info"]["players"]["Home"].append("Stranger"),
        "$.info.players['Home'][3]",
        "registry",
    ),
    (
        "innings not an object",
        lambda d: d["innings"].append("second innings"),
        "$.innings[1]",
        "type",
    ),
]


def _bytes(doc) -> bytes:
    return json.dumps(doc).encode()


def test_the_valid_document_breaks_no_rule():
    assert validate(cricsheet_match(), match_id="900001") == []


@pytest.mark.parametrize(("case", "mutate", "path", "rule"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_file_is_refused_naming_the_file_path_and_rule(case, mutate, path, rule):
    doc = copy.deepcopy(cricsheet_match())
    mutate(doc)
    with pytest.raises(CricsheetRejected) as caught:
        load(_bytes(doc), filename="900001.json", match_id="900001")
    assert (path, rule) in {(p.path, p.rule) for p in caught.value.problems}, caught.value
    assert f"900001.json: {path}:" in str(caught.value)


def test_truncated_json_is_refused_as_not_json():
    raw = _bytes(cricsheet_match())[:-40]
    with pytest.raises(CricsheetRejected, match=r"truncated\.json: \$: not valid JSON"):
        load(raw, filename="truncated.json", match_id="900001")


def test_a_match_file_over_the_size_limit_is_refused_unparsed_naming_the_limit(settings):
    raw = json.dumps(cricsheet_match()).encode()
    settings.CRICSHEET_MAX_FILE_BYTES = len(raw) - 1
    with pytest.raises(CricsheetRejected) as caught:
        load(raw, filename="900001.json", match_id="900001")
    assert [p.rule for p in caught.value.problems] == ["size-limit"]
    assert f"the limit is CRICSHEET_MAX_FILE_BYTES = {len(raw) - 1}" in str(caught.value)


def test_a_file_name_that_is_not_a_match_id_is_refused():
    problems = validate(cricsheet_match(), match_id="../etc/passwd")
    assert [p.rule for p in problems] == ["match-id"]


def test_every_problem_of_a_file_is_listed_not_just_the_first():
    doc = cricsheet_match()
    _delivery(doc, 1)["extras"]["wides"] = -1
    _delivery(doc, 0)["batter"] = "Nobody"
    doc["meta"]["data_version"] = "0.9"
    with pytest.raises(CricsheetRejected) as caught:
        load(_bytes(doc), filename="900001.json", match_id="900001")
    rules = {p.rule for p in caught.value.problems}
    assert {"nonnegative", "registry", "data-version"} <= rules


def test_text_match_ids_a_string_ball_count_and_the_1_2_0_field_are_accepted():
    doc = cricsheet_match()
    doc["meta"]["data_version"] = "1.2.0"
    _delivery(doc)["actual_delivery"] = "0.1"
    doc["innings"][0]["miscounted_overs"] = {"1": {"balls": "7", "umpire": "U Umpire"}}
    assert validate(doc, match_id="wi_211973") == []


def _counts():
    return [
        m.objects.count()
        for m in (Fixture, Submission, Participant, Competition, ExternalIdMap, Innings, Delivery)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("case", "mutate", "path", "rule"), BROKEN[:8], ids=[b[0] for b in BROKEN[:8]]
)
def test_a_refused_file_leaves_the_database_unchanged(case, mutate, path, rule):
    doc = copy.deepcopy(cricsheet_match())
    mutate(doc)
    before = _counts()
    result = Importer().import_file(_bytes(doc), filename="900001.json")
    assert result.outcome == Outcome.REJECTED
    assert "900001.json" in result.error and path in result.error
    assert _counts() == before


@pytest.mark.django_db
def test_an_unknown_dismissal_kind_is_refused_and_nothing_is_written():
    doc = cricsheet_match()
    _delivery(doc, 4)["wickets"][0]["kind"] = "bitten by a dog"
    before = _counts()
    result = Importer().import_file(_bytes(doc), filename="900001.json")
    assert result.outcome == Outcome.REJECTED
    assert "wickets[0].kind" in result.error and "[dismissal-kind]" in result.error
    assert _counts() == before


@pytest.mark.django_db
def test_an_unknown_dismissal_kind_is_named_with_the_contract_problems_in_one_pass():
    doc = cricsheet_match()
    _delivery(doc, 4)["wickets"][0]["kind"] = "bitten by a dog"
    _delivery(doc, 1)["extras"].update(wides=-1)
    result = Importer().import_file(_bytes(doc), filename="900001.json")
    assert result.outcome == Outcome.REJECTED
    assert "[dismissal-kind]" in result.error and "[nonnegative]" in result.error
