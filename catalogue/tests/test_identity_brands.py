import pytest

from catalogue.identity.brands import brand_key, display_name


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("L'Oreal", "loreal"),
        ("LOreal", "loreal"),
        ("Loreal", "loreal"),
        ("L\u2019Or\u00e9al", "loreal"),
        ("Dolce&Gabbana", "dolce-and-gabbana"),
        ("Dolce & Gabbana", "dolce-and-gabbana"),
        ("DOLCE & GABBANA", "dolce-and-gabbana"),
        ("D&G", "d-and-g"),
        ("Head&Shoulders", "head-and-shoulders"),
        ("Altia Oyj", "altia"),
        ("Altia Oy", "altia"),
        ("Diageo Plc", "diageo"),
        ("Bumbu Rum Co.", "bumbu-rum"),
        ("Bumbu Rum Company", "bumbu-rum"),
        ("The Macallan", "macallan"),
        ("Christian Dior", "christian-dior"),
        ("Dior", "dior"),
    ],
)
def test_brand_key(spelling, key):
    assert brand_key(spelling) == key


@pytest.mark.parametrize(
    "placeholder",
    [
        "Unbranded",
        "As Show",
        "AS SHOWN",
        "As Picture Show",
        "Cologne",
        "Multiple Brands",
        "RM NIJE DEFINISANA",
        "",
        None,
    ],
)
def test_placeholder_brands_name_no_house(placeholder):
    assert brand_key(placeholder) is None


def test_d_and_g_is_not_dolce_and_gabbana_by_rule():
    assert brand_key("D&G") != brand_key("Dolce & Gabbana")


def test_christian_dior_is_not_dior_by_rule():
    assert brand_key("Christian Dior") != brand_key("Dior")


def test_display_name_prefers_mixed_case_over_capitals():
    assert display_name(["DIOR", "Dior", "DIOR"]) == "Dior"
