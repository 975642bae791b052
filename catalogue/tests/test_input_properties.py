"""The barcode, quantity and price readers take any text: each gives a valid value or
refuses it with a named rule, and none of them ever raises."""

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalogue.identity.gtin import GtinStatus, check_digit_ok, placeholder, read_gtin
from catalogue.identity.quantity import MAX_PER_UNIT, QuantityRule, State, parse_quantity
from ingest.collectors.feeds import PRICE_RULES, RowProblem, parse_price

PROPERTIES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Digits of every script, signs, exponents, separators and units: the texts that come
# nearest to being read as a number.
NUMERALS = st.sampled_from("0123456789\u0660\u0669\u06f5\u0966\u0e51\uff15\u00b2\u2163")
NUMBERISH = st.lists(
    st.one_of(
        NUMERALS,
        st.sampled_from(["-", "+", ".", ",", "e", "E", " ", "\u00a0", "x", "/", "set of "]),
        st.sampled_from(["ml", "l", "cl", "oz", "fl oz", "g", "kg", "pcs", "gratis"]),
        st.text(min_size=0, max_size=3),
    ),
    max_size=14,
).map("".join)
ANY_TEXT = st.one_of(st.text(max_size=60), NUMBERISH, st.from_regex(r"[0-9]{1,40}"))


def with_check_digit(body: str) -> str:
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return body + str((10 - total % 10) % 10)


@PROPERTIES
@given(ANY_TEXT)
def test_any_text_is_a_usable_gtin_or_refused_with_a_status(text):
    reading = read_gtin(text)
    assert isinstance(reading.status, GtinStatus)
    if reading.gtin is None:
        assert reading.status not in (GtinStatus.VALID, GtinStatus.FLOAT_ARTIFACT)
    else:
        assert reading.gtin.isascii() and reading.gtin.isdigit()
        assert len(reading.gtin) in (13, 14)
        assert check_digit_ok(reading.gtin)
        assert not placeholder(reading.gtin)


@PROPERTIES
@given(ANY_TEXT, st.booleans())
def test_any_text_is_a_bounded_quantity_or_refused_with_a_rule(text, dedicated):
    quantity = parse_quantity(text, dedicated=dedicated)
    assert isinstance(quantity.key(), str) and isinstance(quantity.form_part(), str)
    if quantity.rule:
        assert quantity.rule in set(QuantityRule)
        assert quantity.state == State.UNPARSED and quantity.problem
    if quantity.state == State.STATED:
        assert quantity.value is not None and quantity.unit is not None
        assert 0 < quantity.value <= MAX_PER_UNIT[quantity.unit]


@PROPERTIES
@given(st.one_of(ANY_TEXT, st.none()))
def test_any_text_is_a_price_to_the_cent_or_refused_with_a_rule(text):
    try:
        price = parse_price(text, column="price")
    except RowProblem as problem:
        assert problem.reason in PRICE_RULES
        return
    assert isinstance(price, Decimal)
    assert 0 < price < Decimal("10000000000")
    assert price == price.quantize(Decimal("0.01"))
    assert all(c in "0123456789.,\u00a0 " for c in text.strip())


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("0000000000000", "all one digit"),
        (with_check_digit("777777777777"), "all one digit before the check digit"),
        (with_check_digit("000000012345"), "fewer than 8 significant digits"),
        (with_check_digit("123456789012"), "a counting sequence"),
        (with_check_digit("952000000001"), "GS1's demonstration prefix"),
        (with_check_digit("990000000001"), "a coupon prefix"),
    ],
)
def test_a_placeholder_gtin_passes_its_check_but_is_no_key(code, why):
    assert check_digit_ok(code), why
    reading = read_gtin(code)
    assert (reading.status, reading.gtin) == (GtinStatus.PLACEHOLDER, None), why


def test_a_gtin_in_arabic_indic_digits_is_not_digits():
    assert (
        read_gtin(
            "\u0665\u0660\u0660\u0660\u0662\u0666\u0667\u0660\u0661\u0664\u0662\u0660\u0663"
        ).status
        == GtinStatus.NOT_DIGITS
    )


def test_a_quantity_in_arabic_indic_digits_is_not_read():
    assert parse_quantity("\u0665\u0660 ml", dedicated=True).state == State.UNPARSED
