import pytest

from catalogue.identity.gtin import GtinStatus, check_digit_ok, gtin_in_text, read_gtin


@pytest.mark.parametrize(
    ("raw", "status", "gtin"),
    [
        # Alko EANs, one with leading zeros kept as printed.
        ("5000267014203", GtinStatus.VALID, "5000267014203"),
        ("0080432402931", GtinStatus.VALID, "0080432402931"),
        # The same item as a 12-digit UPC-A compares equal to its EAN-13 form.
        ("080432402931", GtinStatus.VALID, "0080432402931"),
        ("5000267014203 ", GtinStatus.VALID, "5000267014203"),
        ("5000-2670-14203", GtinStatus.VALID, "5000267014203"),
        # EAN-8 with a normal prefix is padded to 13 digits.
        ("96385074", GtinStatus.VALID, "0000096385074"),
        # A genuine GTIN-14 (indicator digit 1) stays at 14.
        ("15000267014200", GtinStatus.VALID, "15000267014200"),
        # The float artifact: 14 digits ending in 0 whose first 13 are a valid EAN-13.
        ("30469210223080", GtinStatus.FLOAT_ARTIFACT, "3046921022308"),
        ("50002670142030", GtinStatus.FLOAT_ARTIFACT, "5000267014203"),
        ("", GtinStatus.EMPTY, None),
        (None, GtinStatus.EMPTY, None),
        ("ABC123", GtinStatus.NOT_DIGITS, None),
        ("12345", GtinStatus.BAD_LENGTH, None),
        ("5000267014204", GtinStatus.BAD_CHECK_DIGIT, None),
        # In-store codes (restricted circulation) identify nothing outside the shop.
        ("23017863", GtinStatus.RESTRICTED, None),
        ("23017860", GtinStatus.BAD_CHECK_DIGIT, None),
        ("2000000000008", GtinStatus.RESTRICTED, None),
    ],
)
def test_read_gtin(raw, status, gtin):
    reading = read_gtin(raw)
    assert reading.status == status
    assert reading.gtin == gtin


def test_a_14_digit_code_that_passes_its_own_check_is_still_read_as_the_artifact():
    # 30469210223080 as GTIN-14 fails; construct one that passes both readings.
    code = "5000267014203" + "0"
    assert check_digit_ok(code[:13])
    assert read_gtin(code).status == GtinStatus.FLOAT_ARTIFACT


def test_a_14_digit_code_ending_in_0_with_an_invalid_prefix_is_not_the_artifact():
    reading = read_gtin("50002670142040")
    assert reading.status != GtinStatus.FLOAT_ARTIFACT
    assert reading.gtin is None


def test_a_barcode_written_inside_a_title_is_read():
    reading = gtin_in_text("Lattafa Men's Hayaati Al Maleky EDP Spray 3.4 oz 6291108734056")
    assert reading is not None and reading.gtin == "6291108734056"


def test_a_number_in_a_title_that_fails_the_check_is_not_taken_for_a_barcode():
    assert gtin_in_text("Lot 629110873415 sealed") is None


@pytest.mark.parametrize("code", ["4006381333931", "96385074", "036000291452"])
def test_check_digit_accepts_real_codes(code):
    assert check_digit_ok(code)
