"""Properties of the Cricsheet contract: whatever a file holds, ``load`` either returns a
document or refuses it with ``CricsheetRejected`` naming at least one rule — never another
exception; and a document it accepts is imported or refused by a named rule, never with a
traceback turned into a message."""

import copy
import itertools
import json
import re
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer, Outcome
from ingest.cricsheet.validate import CricsheetRejected, load
from omnium.testing import REPO_ROOT

BOUNDED = settings(max_examples=200, deadline=None)
SAMPLE = json.loads((REPO_ROOT / "ingest" / "samples" / "cricket" / "1339596.json").read_bytes())
RULE = re.compile(r"^[a-z][a-z-]*$")
_MATCH_IDS = itertools.count(10_000)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["", " ", "\x00", "\ud800", "Home", "A Batter", "2024-05-01", "19.9"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _outcome(raw: bytes, match_id: str = "990001") -> Any:
    """The document ``load`` returns, or the rejection (checked to name a rule each)."""
    try:
        return load(raw, filename=f"{match_id}.json", match_id=match_id)
    except CricsheetRejected as exc:
        assert exc.problems, exc
        for problem in exc.problems:
            assert RULE.match(problem.rule), problem
            assert problem.path.startswith(("$", "(")), problem
        assert str(exc).startswith(f"{match_id}.json: rejected")
        return exc


def _positions(value: Any, at: tuple = ()) -> list[tuple]:
    """The path (keys and indexes) of every value inside ``value``."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_positions(item, (*at, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_positions(item, (*at, i)))
    return found


BASES = {"factory": cricsheet_match(), "sample 1339596": SAMPLE}
POSITIONS = {name: _positions(doc)[1:] for name, doc in BASES.items()}


def _replaced(base: str, position: tuple, value: Any) -> Any:
    doc = copy.deepcopy(BASES[base])
    target = doc
    for step in position[:-1]:
        target = target[step]
    target[position[-1]] = value
    return doc


mutations = st.sampled_from(sorted(BASES)).flatmap(
    lambda base: st.tuples(st.just(base), st.sampled_from(POSITIONS[base]), json_values)
)


def _at(doc: Any, position: tuple) -> Any:
    for step in position:
        doc = doc[step]
    return doc


def _same_kind_swaps(doc: Any) -> list[tuple[tuple, list]]:
    """(position, the other values of the file of the same type) for every text, number and
    flag of ``doc``: a value swapped for another of its file and kind (a name, a count)
    makes a match that often still passes the contract, and so reaches the database."""
    leaves = [p for p in _positions(doc) if not isinstance(_at(doc, p), dict | list)]
    by_type: dict[type, set] = {}
    for position in leaves:
        value = _at(doc, position)
        by_type.setdefault(type(value), set()).add(value)
    return [
        (position, sorted(by_type[type(_at(doc, position))] - {_at(doc, position)}, key=repr))
        for position in leaves
        if len(by_type[type(_at(doc, position))]) > 1
    ]


SWAPS = {name: _same_kind_swaps(doc) for name, doc in BASES.items()}
plausible_mutations = st.sampled_from(sorted(BASES)).flatmap(
    lambda base: st.sampled_from(SWAPS[base]).flatmap(
        lambda swap: st.tuples(st.just(base), st.just(swap[0]), st.sampled_from(swap[1]))
    )
)


@BOUNDED
@given(st.binary(max_size=600))
def test_any_bytes_load_or_are_refused_naming_a_rule(raw):
    _outcome(raw)


@BOUNDED
@given(json_values)
def test_any_json_value_loads_or_is_refused_naming_a_rule(value):
    _outcome(json.dumps(value).encode())


@BOUNDED
@given(mutations)
def test_a_valid_match_with_any_one_value_replaced_loads_or_is_refused_naming_a_rule(mutation):
    base, position, value = mutation
    _outcome(json.dumps(_replaced(base, position, value)).encode())


@BOUNDED
@given(
    st.sampled_from(sorted(BASES)).flatmap(
        lambda base: st.tuples(st.just(base), st.sampled_from(POSITIONS[base]))
    )
)
def test_a_valid_match_with_any_one_key_or_item_dropped_loads_or_is_refused_naming_a_rule(
    mutation,
):
    base, position = mutation
    doc = copy.deepcopy(BASES[base])
    target = doc
    for step in position[:-1]:
        target = target[step]
    del target[position[-1]]
    _outcome(json.dumps(doc).encode())


@BOUNDED
@given(st.data())
def test_a_valid_file_with_any_bytes_spliced_in_loads_or_is_refused_naming_a_rule(data):
    raw = json.dumps(cricsheet_match()).encode()
    start = data.draw(st.integers(min_value=0, max_value=len(raw)))
    end = data.draw(st.integers(min_value=start, max_value=min(len(raw), start + 8)))
    _outcome(raw[:start] + data.draw(st.binary(min_size=1, max_size=8)) + raw[end:])


@pytest.fixture
def dismissal_kinds(db):
    seed_dismissal_kinds()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(mutation=plausible_mutations)
def test_a_match_the_contract_accepts_is_imported_or_refused_by_a_named_rule(
    dismissal_kinds, mutation
):
    base, position, value = mutation
    raw = json.dumps(_replaced(base, position, value)).encode()
    match_id = f"99{next(_MATCH_IDS)}"
    if isinstance(_outcome(raw, match_id), CricsheetRejected):
        return
    with transaction.atomic():  # each example on its own: what one wrote, the next never sees
        result = Importer(refresh=False).import_file(raw, filename=f"{match_id}.json")
        transaction.set_rollback(True)
    if result.outcome == Outcome.REJECTED:  # only a rule that needs the database
        assert re.search(r"\[(dismissal-kind|source-revision)\]", result.error), result.error
    else:
        assert result.outcome in (Outcome.NEW, Outcome.UNCHANGED, Outcome.UPDATED), result
