"""Malformed Cricsheet files, made here from the valid ``cricsheet_match()`` or from raw
bytes: each one with the JSON path and the rule its rejection must name.

They cover what the cases of ``test_cricsheet_validation`` do not: the bytes (encodings,
NUL, a byte-order mark, broken or non-object JSON, keys given twice, NaN and infinite
numbers, nesting and size past any limit), a type check on every field the contract reads,
texts longer than their columns, numbers out of range and keys the contract does not know.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass

from cricket.tests.factories import cricsheet_match
from ingest.cricsheet.problems import shown

D = "$.innings[0].overs[0].deliveries"
I = "$.innings[0]"  # noqa: E741 (the innings, as in the paths)


@dataclass(frozen=True)
class Malformed:
    case: str
    raw: bytes
    path: str
    rule: str
    match_id: str = ""

    @property
    def filename(self) -> str:
        return f"{self.match_id}.json"


def _text(doc: dict) -> bytes:
    return json.dumps(doc).encode()


def valid_bytes() -> bytes:
    return _text(cricsheet_match())


def _mutated(mutate: Callable[[dict], object]) -> bytes:
    doc = copy.deepcopy(cricsheet_match())
    mutate(doc)
    return _text(doc)


def _replaced(old: bytes, new: bytes, *, doc: Callable[[dict], object] | None = None) -> bytes:
    raw = _mutated(doc) if doc else valid_bytes()
    assert raw.count(old) == 1, old
    return raw.replace(old, new)


def _delivery(doc: dict, i: int = 0, over: int = 0) -> dict:
    return doc["innings"][0]["overs"][over]["deliveries"][i]


def _info(**changes) -> Callable[[dict], None]:
    return lambda doc: doc["info"].update(changes)


def _innings(**changes) -> Callable[[dict], None]:
    return lambda doc: doc["innings"][0].update(changes)


def _ball(i: int, **changes) -> Callable[[dict], None]:
    return lambda doc: _delivery(doc, i).update(changes)


def _runs(i: int, **changes) -> Callable[[dict], None]:
    return lambda doc: _delivery(doc, i)["runs"].update(changes)


def _wicket(**changes) -> Callable[[dict], None]:
    return lambda doc: _delivery(doc, 4)["wickets"][0].update(changes)


def _fielder(**changes) -> Callable[[dict], None]:
    return lambda doc: _delivery(doc, 4)["wickets"][0]["fielders"][0].update(changes)


def _review(**changes) -> Callable[[dict], None]:
    review = {"by": "Away", "decision": "struck down", "umpire": "U Umpire", **changes}
    return lambda doc: _delivery(doc, 5).update(review=review)


def _replacement(kind: str, **changes) -> Callable[[dict], None]:
    entry = {"in": "C Batter", "out": "B Batter", "reason": "concussion_substitute", **changes}
    if kind == "match":
        entry.setdefault("team", "Home")
    return lambda doc: _delivery(doc, 5).update(replacements={kind: [entry]})


def _powerplay(**changes) -> Callable[[dict], None]:
    powerplay = {"from": 0.1, "to": 5.6, "type": "mandatory", **changes}
    return lambda doc: doc["innings"][0].update(powerplays=[powerplay])


def _miscounted(key: str = "1", **value) -> Callable[[dict], None]:
    return lambda doc: doc["innings"][0].update(miscounted_overs={key: value or {"balls": 7}})


def _renamed_teams(home: str, away: str) -> bytes:
    raw = valid_bytes()
    return raw.replace(b'"Home"', json.dumps(home).encode()).replace(
        b'"Away"', json.dumps(away).encode()
    )


def _female_event(doc: dict) -> None:
    doc["info"].update(gender="female", event={"name": "E" * 250})


def _over_5000_of_a_test(doc: dict) -> None:
    doc["info"].update(match_type="Test")
    doc["info"].pop("overs")
    doc["innings"][0]["overs"][1]["over"] = 5000


def _innings_21(doc: dict) -> None:
    doc["innings"] = [copy.deepcopy(doc["innings"][0]) for _ in range(21)]


def _long_over(doc: dict) -> None:
    over = doc["innings"][0]["overs"][1]
    over["deliveries"] = [copy.deepcopy(over["deliveries"][0]) for _ in range(41)]


def _absent_twice(doc: dict) -> None:
    doc["innings"][0]["absent_hurt"] = ["C Batter", "C Batter"]


def _deep_nesting() -> bytes:
    deep = b"[" * 10_000 + b"]" * 10_000
    return _replaced(b'"season": "2024"', b'"missing": ' + deep + b', "season": "2024"')


_LONG = "L" * 300
CASES: list[tuple[str, Callable[[], bytes], str, str]] = [
    # --- bytes --------------------------------------------------------------------------
    (
        "latin-1 byte in the venue",
        lambda: _replaced(b'"Test Ground"', '"Test Gr\xf6und"'.encode("latin-1")),
        "$",
        "encoding",
    ),
    ("a NUL byte", lambda: _replaced(b'"Test Ground"', b'"Test\x00Ground"'), "$", "nul"),
    ("a UTF-8 byte-order mark", lambda: b"\xef\xbb\xbf" + valid_bytes(), "$", "encoding"),
    (
        "UTF-16 with its byte-order mark",
        lambda: json.dumps(cricsheet_match()).encode("utf-16"),
        "$",
        "encoding",
    ),
    ("an empty file", lambda: b"", "$", "empty"),
    ("only whitespace", lambda: b" \n\t\n", "$", "empty"),
    ("JSON cut in the middle", lambda: valid_bytes()[:700], "$", "json"),
    ("a trailing comma", lambda: valid_bytes()[:-1] + b", }", "$", "json"),
    ("a JSON array at the root", lambda: b"[" + valid_bytes() + b"]", "$", "type"),
    ("a JSON string at the root", lambda: b'"a match"', "$", "type"),
    ("JSON null at the root", lambda: b"null", "$", "required"),
    (
        "a key given twice with two values",
        lambda: _replaced(b'"venue": "Test Ground"', b'"venue": "A", "venue": "Test Ground"'),
        "$.info.venue",
        "duplicate-key",
    ),
    ("1e400", lambda: _replaced(b'"overs": 20,', b'"overs": 1e400,'), "$.info.overs", "number"),
    (
        "a NaN literal",
        lambda: _replaced(b'"balls_per_over": 6', b'"balls_per_over": NaN'),
        "$.info.balls_per_over",
        "number",
    ),
    (
        "an Infinity literal",
        lambda: _replaced(b'"from": 0.1', b'"from": -Infinity', doc=_powerplay()),
        f"{I}.powerplays[0].from",
        "number",
    ),
    (
        "a number of 5,000 digits",
        lambda: _replaced(b'"match_number": 1', b'"match_number": ' + b"9" * 5000),
        "$",
        "number",
    ),
    ("nesting 10,000 deep", _deep_nesting, "$", "depth"),
    # Over CRICSHEET_MAX_FILE_BYTES: refused before it is parsed.
    ("a 50 MB venue", lambda: _mutated(_info(venue="v" * 50_000_000)), "(file)", "size-limit"),
    (
        "an escaped NUL in the venue",
        lambda: _mutated(_info(venue="Test\x00Ground")),
        "$.info.venue",
        "nul",
    ),
    (
        "an escaped NUL in a registry name",
        lambda: _mutated(
            lambda d: d["info"]["registry"]["people"].update({"Gh\x00st": "dddd0001"})
        ),
        "$.info.registry.people['Gh\\x00st']",
        "nul",
    ),
    (
        "an unpaired surrogate in the city",
        lambda: _mutated(_info(city="Test\ud800ville")),
        "$.info.city",
        "encoding",
    ),
    # --- info: a type check on every field ----------------------------------------------
    ("season an object", lambda: _mutated(_info(season={"a": 1})), "$.info.season", "type"),
    ("venue a number", lambda: _mutated(_info(venue=123)), "$.info.venue", "type"),
    ("city a list", lambda: _mutated(_info(city=["Testville"])), "$.info.city", "type"),
    ("event not an object", lambda: _mutated(_info(event="Test Trophy")), "$.info.event", "type"),
    (
        "event name a number",
        lambda: _mutated(_info(event={"name": 5})),
        "$.info.event.name",
        "type",
    ),
    (
        "event match number as text",
        lambda: _mutated(_info(event={"name": "Test Trophy", "match_number": "one"})),
        "$.info.event.match_number",
        "type",
    ),
    (
        "event group an object",
        lambda: _mutated(_info(event={"name": "Test Trophy", "group": {"x": 1}})),
        "$.info.event.group",
        "type",
    ),
    (
        "event stage a list",
        lambda: _mutated(_info(event={"name": "Test Trophy", "stage": ["Final"]})),
        "$.info.event.stage",
        "type",
    ),
    (
        "unknown event key",
        lambda: _mutated(_info(event={"name": "Test Trophy", "sponsor": "X"})),
        "$.info.event.sponsor",
        "unknown-key",
    ),
    (
        "toss decision not bat or field",
        lambda: _mutated(_info(toss={"winner": "Home", "decision": "bowl"})),
        "$.info.toss.decision",
        "enum",
    ),
    (
        "toss uncontested not a flag",
        lambda: _mutated(_info(toss={"winner": "Home", "decision": "bat", "uncontested": "yes"})),
        "$.info.toss.uncontested",
        "type",
    ),
    ("unknown team type", lambda: _mutated(_info(team_type="county")), "$.info.team_type", "enum"),
    ("gender a number", lambda: _mutated(_info(gender=1)), "$.info.gender", "enum"),
    (
        "negative match type number",
        lambda: _mutated(_info(match_type_number=-3)),
        "$.info.match_type_number",
        "nonnegative",
    ),
    (
        "balls per over a float",
        lambda: _mutated(_info(balls_per_over=6.0)),
        "$.info.balls_per_over",
        "type",
    ),
    ("overs as text", lambda: _mutated(_info(overs="20")), "$.info.overs", "type"),
    (
        "umpires a string, not a list",
        lambda: _mutated(_info(officials={"umpires": "U Umpire"})),
        "$.info.officials.umpires",
        "type",
    ),
    (
        "player of the match a string, not a list",
        lambda: _mutated(_info(player_of_match="A Batter")),
        "$.info.player_of_match",
        "type",
    ),
    (
        "supersubs a list",
        lambda: _mutated(_info(supersubs=["A Batter"])),
        "$.info.supersubs",
        "type",
    ),
    (
        "registry id a number",
        lambda: _mutated(lambda d: d["info"]["registry"]["people"].update({"A Batter": 12345})),
        "$.info.registry.people['A Batter']",
        "type",
    ),
    (
        "unknown registry key",
        lambda: _mutated(lambda d: d["info"]["registry"].update(teams={})),
        "$.info.registry.teams",
        "unknown-key",
    ),
    (
        "win margin as text",
        lambda: _mutated(_info(outcome={"winner": "Home", "by": {"runs": "10"}})),
        "$.info.outcome.by.runs",
        "type",
    ),
    (
        "win method a number",
        lambda: _mutated(_info(outcome={"winner": "Home", "method": 7})),
        "$.info.outcome.method",
        "type",
    ),
    (
        "unknown outcome key",
        lambda: _mutated(_info(outcome={"winner": "Home", "margin": "big"})),
        "$.info.outcome.margin",
        "unknown-key",
    ),
    (
        "bowl-out ball a string",
        lambda: _mutated(_info(bowl_out=["hit"])),
        "$.info.bowl_out[0]",
        "type",
    ),
    (
        "missing-data note nested too deep",
        lambda: _mutated(_info(missing=[{"a": {"b": {"c": {"d": {"e": 1}}}}}])),
        "$.info.missing[0].a.b.c.d.e",
        "depth",
    ),
    (
        "meta created not a date",
        lambda: _mutated(lambda d: d["meta"].update(created="yesterday")),
        "$.meta.created",
        "date",
    ),
    (
        "meta revision as text",
        lambda: _mutated(lambda d: d["meta"].update(revision="1")),
        "$.meta.revision",
        "type",
    ),
    (
        "unknown meta key",
        lambda: _mutated(lambda d: d["meta"].update(author="me")),
        "$.meta.author",
        "unknown-key",
    ),
    ("unknown info key", lambda: _mutated(_info(weather="fine")), "$.info.weather", "unknown-key"),
    # --- innings ------------------------------------------------------------------------
    ("innings team a number", lambda: _mutated(_innings(team=7)), f"{I}.team", "type"),
    (
        "super over not a flag",
        lambda: _mutated(_innings(super_over="no")),
        f"{I}.super_over",
        "type",
    ),
    (
        "target runs as text",
        lambda: _mutated(_innings(target={"runs": "150", "overs": 20})),
        f"{I}.target.runs",
        "type",
    ),
    (
        "target overs 19.9",
        lambda: _mutated(_innings(target={"runs": 150, "overs": 19.9})),
        f"{I}.target.overs",
        "overs",
    ),
    (
        "target overs to two places",
        lambda: _mutated(_innings(target={"runs": 150, "overs": 19.25})),
        f"{I}.target.overs",
        "overs",
    ),
    (
        "unknown target key",
        lambda: _mutated(_innings(target={"runs": 150, "balls": 120})),
        f"{I}.target.balls",
        "unknown-key",
    ),
    (
        "penalty runs a number",
        lambda: _mutated(_innings(penalty_runs=5)),
        f"{I}.penalty_runs",
        "type",
    ),
    (
        "powerplays an object",
        lambda: _mutated(_innings(powerplays={"from": 0.1, "to": 5.6, "type": "mandatory"})),
        f"{I}.powerplays",
        "type",
    ),
    (
        "powerplay start as text",
        lambda: _mutated(_powerplay(**{"from": "0.1"})),
        f"{I}.powerplays[0].from",
        "type",
    ),
    (
        "powerplay ending before it starts",
        lambda: _mutated(_powerplay(**{"from": 6.1, "to": 5.6})),
        f"{I}.powerplays[0].to",
        "order",
    ),
    (
        "unknown powerplay type",
        lambda: _mutated(_powerplay(type="power")),
        f"{I}.powerplays[0].type",
        "enum",
    ),
    (
        "powerplay past any overs column",
        lambda: _mutated(_powerplay(to=123456.1)),
        f"{I}.powerplays[0].to",
        "range",
    ),
    (
        "miscounted over keyed 01",
        lambda: _mutated(_miscounted("01")),
        f"{I}.miscounted_overs['01']",
        "type",
    ),
    (
        "miscounted over of 99999 balls",
        lambda: _mutated(_miscounted(balls="99999")),
        f"{I}.miscounted_overs['1'].balls",
        "range",
    ),
    (
        "miscounted over's umpire a list",
        lambda: _mutated(_miscounted(balls=7, umpire=["U Umpire"])),
        f"{I}.miscounted_overs['1'].umpire",
        "type",
    ),
    (
        "a player absent hurt twice",
        lambda: _mutated(_absent_twice),
        f"{I}.absent_hurt[1]",
        "duplicate",
    ),
    (
        "unknown over key",
        lambda: _mutated(lambda d: d["innings"][0]["overs"][0].update(bowler="X Bowler")),
        f"{I}.overs[0].bowler",
        "unknown-key",
    ),
    (
        "over 5000 of a Test",
        lambda: _mutated(_over_5000_of_a_test),
        f"{I}.overs[1].over",
        "range",
    ),
    (
        "over 25 of a 20-over match",
        lambda: _mutated(lambda d: d["innings"][0]["overs"][1].update(over=25)),
        f"{I}.overs[1].over",
        "range",
    ),
    ("an over of 41 deliveries", lambda: _mutated(_long_over), f"{I}.overs[1].deliveries", "range"),
    ("21 innings", lambda: _mutated(_innings_21), "$.innings", "range"),
    # --- deliveries ---------------------------------------------------------------------
    (
        "700 runs off one ball",
        lambda: _mutated(_runs(0, batter=700, total=700)),
        f"{D}[0].runs.batter",
        "range",
    ),
    (
        "negative batter runs",
        lambda: _mutated(_runs(2, batter=-4, total=-4)),
        f"{D}[2].runs.batter",
        "nonnegative",
    ),
    (
        "50 penalty runs off one ball",
        lambda: _mutated(
            lambda d: _delivery(d, 2).update(
                extras={"penalty": 50}, runs={"batter": 4, "extras": 50, "total": 54}
            )
        ),
        f"{D}[2].extras.penalty",
        "range",
    ),
    (
        "unknown runs key",
        lambda: _mutated(_runs(0, boundary=True)),
        f"{D}[0].runs.boundary",
        "unknown-key",
    ),
    (
        "a printed ball label of 17 characters",
        lambda: _mutated(_ball(0, actual_delivery="0.1" + "x" * 14)),
        f"{D}[0].actual_delivery",
        "length",
    ),
    ("delivery over not its over", lambda: _mutated(_ball(0, over=3)), f"{D}[0].over", "over"),
    ("wicket kind a number", lambda: _mutated(_wicket(kind=5)), f"{D}[4].wickets[0].kind", "type"),
    (
        "unknown wicket key",
        lambda: _mutated(_wicket(how="edged")),
        f"{D}[4].wickets[0].how",
        "unknown-key",
    ),
    (
        "fielder substitute not a flag",
        lambda: _mutated(_fielder(substitute="yes")),
        f"{D}[4].wickets[0].fielders[0].substitute",
        "type",
    ),
    (
        "unknown fielder key",
        lambda: _mutated(_fielder(position="slip")),
        f"{D}[4].wickets[0].fielders[0].position",
        "unknown-key",
    ),
    (
        "review by a team not playing",
        lambda: _mutated(_review(by="Elsewhere")),
        f"{D}[5].review.by",
        "team",
    ),
    (
        "review decision of 40 characters",
        lambda: _mutated(_review(decision="d" * 40)),
        f"{D}[5].review.decision",
        "length",
    ),
    (
        "review umpire's call not a flag",
        lambda: _mutated(_review(umpires_call="no")),
        f"{D}[5].review.umpires_call",
        "type",
    ),
    (
        "review umpire a number",
        lambda: _mutated(_review(umpire=3)),
        f"{D}[5].review.umpire",
        "type",
    ),
    (
        "unknown review key",
        lambda: _mutated(_review(angle="hawk-eye")),
        f"{D}[5].review.angle",
        "unknown-key",
    ),
    (
        "replacement of an unknown player",
        lambda: _mutated(_replacement("role", role="bowler", **{"in": "Ghost"})),
        f"{D}[5].replacements.role[0].in",
        "registry",
    ),
    (
        "match replacement for a team not playing",
        lambda: _mutated(_replacement("match", team="Elsewhere")),
        f"{D}[5].replacements.match[0].team",
        "team",
    ),
    (
        "replacement reason of 200 characters",
        lambda: _mutated(_replacement("role", role="bowler", reason="r" * 200)),
        f"{D}[5].replacements.role[0].reason",
        "length",
    ),
    (
        "unknown replacement key",
        lambda: _mutated(_replacement("role", role="bowler", when="over 3")),
        f"{D}[5].replacements.role[0].when",
        "unknown-key",
    ),
    # --- texts longer than their columns ------------------------------------------------
    (
        "a venue of 100,000 characters",
        lambda: _mutated(_info(venue="v" * 100_000)),
        "$.info.venue",
        "length",
    ),
    ("a city of 129 characters", lambda: _mutated(_info(city="c" * 129)), "$.info.city", "length"),
    (
        "a team of 300 characters",
        lambda: _renamed_teams(_LONG, "Away"),
        "$.info.teams[0]",
        "length",
    ),
    (
        "two teams too long for the fixture's name",
        lambda: _renamed_teams("H" * 200, "A" * 200),
        "$.info.teams",
        "length",
    ),
    (
        "a registry name of 300 characters",
        lambda: _mutated(lambda d: d["info"]["registry"]["people"].update({_LONG: "dddd0001"})),
        f"$.info.registry.people[{shown(_LONG)}]",
        "length",
    ),
    (
        "a registry id of 100 characters",
        lambda: _mutated(lambda d: d["info"]["registry"]["people"].update({"A Batter": "a" * 100})),
        "$.info.registry.people['A Batter']",
        "length",
    ),
    (
        "a women's event name with no room for its suffix",
        lambda: _mutated(_female_event),
        "$.info.event.name",
        "length",
    ),
    (
        "an event group of 251 characters",
        lambda: _mutated(_info(event={"name": "Test Trophy", "group": "g" * 251})),
        "$.info.event.group",
        "length",
    ),
    (
        "an umpire of 300 characters",
        lambda: _mutated(_info(officials={"umpires": [_LONG]})),
        "$.info.officials.umpires[0]",
        "length",
    ),
    (
        "a season of 300 characters",
        lambda: _mutated(_info(season=_LONG)),
        "$.info.season",
        "length",
    ),
    # --- numbers and dates out of range -------------------------------------------------
    ("30 February", lambda: _mutated(_info(dates=["2024-02-30"])), "$.info.dates[0]", "date"),
    (
        "a date in 1700",
        lambda: _mutated(_info(dates=["1700-06-01"])),
        "$.info.dates[0]",
        "date-range",
    ),
    (
        "a date in 2400",
        lambda: _mutated(_info(dates=["2400-06-01"])),
        "$.info.dates[0]",
        "date-range",
    ),
    ("a compact date", lambda: _mutated(_info(dates=["20240501"])), "$.info.dates[0]", "date"),
    (
        "dates out of order",
        lambda: _mutated(_info(dates=["2024-05-02", "2024-05-01"])),
        "$.info.dates[1]",
        "order",
    ),
    (
        "11 balls an over",
        lambda: _mutated(_info(balls_per_over=11)),
        "$.info.balls_per_over",
        "range",
    ),
    (
        "won by 11 wickets",
        lambda: _mutated(_info(outcome={"winner": "Home", "by": {"wickets": 11}})),
        "$.info.outcome.by.wickets",
        "range",
    ),
    (
        "a target past a 32-bit integer",
        lambda: _mutated(_innings(target={"runs": 2**31, "overs": 20})),
        f"{I}.target.runs",
        "range",
    ),
    (
        "penalty runs of 31 digits",
        lambda: _mutated(_innings(penalty_runs={"pre": 10**30})),
        f"{I}.penalty_runs.pre",
        "range",
    ),
]


def malformed_files() -> list[Malformed]:
    """Every case, built now (the 50 MB one too: it is a few milliseconds), each with its
    own match id so that no two collide in one database."""
    return [
        Malformed(case, build(), path, rule, match_id=f"99{n:04d}")
        for n, (case, build, path, rule) in enumerate(CASES)
    ]


def case_ids() -> list[str]:
    return [case for case, *_ in CASES]
