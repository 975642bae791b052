"""The data README's acceptance cases, at the level of the pure rules."""

import pytest

from catalogue.identity.keys import House, Listed, derive, vetoed


def fragrance(brand, name, variant=None, houses=None):
    return derive(
        Listed(brand=brand, name=name, variant=variant), vertical="fragrance", houses=houses
    )


DIOR = {
    "dior": House(slug="dior", spellings=("Dior", "Christian Dior")),
    "christian-dior": House(slug="dior", spellings=("Dior", "Christian Dior")),
}


def test_match_key_has_house_line_variation_and_quantity():
    standard = fragrance("Dior", "Dior Sauvage EDT Men 100 ml")
    assert standard.match_key == "dior|sauvage|edt|100ml"


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Dior Sauvage Eau de Toilette Men 3.4 Oz", "Dior Sauvage Eau de Parfum Men 3.4 Oz"),
        ("Dior Sauvage EDP Men 100 ml", "Dior Sauvage Parfum Men 100 ml"),
        ("Dior Sauvage Parfum Men 100 ml", "Dior Sauvage Elixir Men 100 ml"),
        ("Dior Sauvage EDT Men 100 ml", "Dior Sauvage Elixir Men 100 ml"),
    ],
)
def test_sauvage_concentrations_are_different_products(left, right):
    assert fragrance("Dior", left).match_key != fragrance("Dior", right).match_key


def test_the_same_sauvage_edt_worded_two_ways_has_one_key():
    one = fragrance(
        "Dior", "Dior SAUVAGE by Christian Dior EDT Men 100 ml 3.4 oz BRAND NEW", houses=DIOR
    )
    two = fragrance("Dior", "Dior Sauvage Eau de Toilette for Men 3.4 Oz Sealed", houses=DIOR)
    assert one.match_key == two.match_key


def test_the_same_sauvage_edp_from_dior_and_christian_dior_shares_a_key_through_the_alias():
    one = fragrance(
        "Christian Dior", "SAUVAGE by Christian Dior EDP For Men 6.8 oz / 200 ml", houses=DIOR
    )
    two = fragrance("Dior", "Dior Sauvage Men's EDP 200 ml", houses=DIOR)
    assert one.match_key == two.match_key == "dior|sauvage|edp|200ml"


def test_without_the_alias_two_houses_the_rules_do_not_know_stay_apart():
    one = fragrance("Maison Vireo", "Brisant by Maison Vireo EDP For Men 200 ml")
    two = fragrance("Vireo", "Vireo Brisant Men's EDP 200 ml")
    assert one.match_key != two.match_key


def test_christian_dior_and_dior_are_one_house_by_the_house_table():
    one = fragrance("Christian Dior", "SAUVAGE by Christian Dior EDP For Men 200 ml")
    two = fragrance("Dior", "Dior Sauvage Men's EDP 200 ml")
    assert one.match_key == two.match_key


SAUVAGE_EDT = ("Dior", "Dior Sauvage Eau de Toilette Men 3.4 oz")
SAVAGE = "Savage for Men- 3.4 Oz Men's Eau De Toilette . Men's Casual Cologne, not Sauvage"
AVENTUS = "A-v-entus Eau de Parfum 3.3 oz 100ML Millesime EDP Col-ogne for Men New In Box"
PHEROMONES = "1 Million Men Cologne Handmade Stronger With Pheromones For Sexual Attraction!"


@pytest.mark.parametrize(
    ("brand", "name"),
    [
        ("Cologne", SAVAGE),
        ("Dior", SAVAGE),
        ("AS SHOW", AVENTUS),
        ("Unbranded", "HOGO BOSS cologne For Men 3.4 oz"),
        ("Hugo Boss", "HOGO BOSS cologne For Men 3.4 oz"),
    ],
)
def test_knock_offs_never_share_a_key_with_the_real_product(brand, name):
    knock_off = fragrance(brand, name)
    assert knock_off.match_key != fragrance(*SAUVAGE_EDT).match_key
    assert knock_off.match_key != fragrance("Creed", "Creed Aventus EDP Men 100 ml").match_key
    assert knock_off.match_key != fragrance("Hugo Boss", "Boss Bottled Men EDT 100 ml").match_key


@pytest.mark.parametrize("brand", ["Cologne", "AS SHOW", "Unbranded", "As Picture Show"])
def test_a_placeholder_brand_naming_no_house_is_never_keyable(brand):
    assert not fragrance(brand, "Brisant Eau De Parfum 3.4 oz / 100 ml EDP Spray").keyable


@pytest.mark.parametrize("brand", ["Cologne", "AS SHOW", "Unbranded", "As Picture Show"])
def test_a_placeholder_brand_takes_the_house_of_a_famous_line_in_the_title(brand):
    placeholder = fragrance(brand, "Sauvage Eau De Parfum 3.4 oz / 100 ml EDP Spray")
    assert placeholder.match_key == fragrance("Dior", "Dior Sauvage EDP 100 ml").match_key


def test_pheromone_knock_off_under_the_real_brand_is_keyed_apart_as_a_look_alike():
    real = fragrance("Paco Rabanne", "1 Million Paco Rabanne Men 3.4 oz EDT Spray")
    fake = fragrance("Paco Rabanne", PHEROMONES, "Eau de Toilette")
    assert fake.attributes["lookalike"] is True
    assert fake.match_key != real.match_key


ONE_MILLION = [
    ("1 Million Paco Rabanne Men 3.4 oz EDT Spray", "Eau de Toilette"),
    ("1 Million by Paco Rabanne 3.4 Fl oz / 100 ml PARFUM Spray Men's New & Sealed", "PARFUM"),
    ("1 Million Lucky by Paco Rabanne 3.4 oz EDT Cologne for Men New In Box", "Eau de Toilette"),
    ("One Million Royal by Paco Rabanne 1 Million Royal Cologne for Men 3.4 oz", "Eau de Parfum"),
]


def test_one_million_lucky_and_royal_are_lines_of_their_own_beside_1_million():
    lines = {fragrance("Paco Rabanne", name, variant).line_key for name, variant in ONE_MILLION}
    assert lines == {"1 million", "1 million lucky", "1 million royal"}


def test_one_million_edt_parfum_lucky_and_royal_are_different_products():
    keys = {fragrance("Paco Rabanne", name, variant).match_key for name, variant in ONE_MILLION}
    assert len(keys) == len(ONE_MILLION)


def drink(name, size, gtin=None):
    return derive(
        Listed(brand="John Walker & Sons", name=name, quantity_text=size, gtin=gtin, abv="40.0"),
        vertical="drinks",
    )


def test_johnnie_walker_red_label_in_three_sizes_is_three_products_of_one_line():
    sizes = [
        drink("Johnnie Walker Red Label", "0.35 l", "5000267014807"),
        drink("Johnnie Walker Red Label", "0.7 l", "5000267014203"),
        drink("Johnnie Walker Red Label", "0.05 l", "5000267096278"),
    ]
    assert {s.line_key for s in sizes} == {"johnnie walker red label"}
    assert len({s.match_key for s in sizes}) == 3
    assert len({s.gtin.gtin for s in sizes}) == 3


def test_glenfiddich_year_old_and_years_old_share_a_line_key():
    one = derive(
        Listed(brand="William Grant", name="Glenfiddich 12 Year Old Single Malt"), vertical="drinks"
    )
    two = derive(
        Listed(brand="William Grant", name="Glenfiddich 12 years old Single Malt"),
        vertical="drinks",
    )
    assert one.line_key == two.line_key == "glenfiddich 12 single malt"


def test_the_float_artifact_is_recognised_and_recorded():
    standard = derive(
        Listed(brand="OGX", name="Sampon Coconut miracle oil OGX 385ml", gtin="30469210223080"),
        vertical="beauty",
    )
    assert standard.gtin.gtin == "3046921022308"
    assert standard.attributes["gtin_float_artifact"] == "30469210223080"


def test_a_variation_alias_is_followed_before_the_key_is_composed():
    aliases = {"elixir parfum intense": "elixir"}
    standard = derive(
        Listed(brand="Dior", name="Dior Sauvage Elixir Parfum Intense Men 60 ml"),
        vertical="fragrance",
        variation_aliases=aliases,
    )
    assert standard.match_key == "dior|sauvage elixir|elixir|60ml"


def test_declared_concentrations_that_differ_veto_a_match():
    assert vetoed("fragrance", {"concentration": "edt"}, {"concentration": "edp"})


def test_a_missing_concentration_never_splits_a_product():
    assert vetoed("fragrance", {"concentration": "edt"}, {}) is None


def test_strengths_that_differ_veto_a_drink_match():
    assert vetoed("drinks", {"abv": "40.0"}, {"abv": "46.0"})
    assert vetoed("drinks", {"abv": "40.0"}, {"abv": "40.0"}) is None


def test_unknown_quantity_is_never_keyable():
    assert not fragrance("Dior", "Dior Sauvage EDT Men").keyable


def test_a_tester_keys_with_the_retail_bottle():
    retail = fragrance("Paco Rabanne", "1 Million Parfum by Paco Rabanne 3.4 oz Mens")
    tester = fragrance("Paco Rabanne", "1 Million Parfum by Paco Rabanne (Tester) 3.4 oz Mens")
    assert tester.match_key == retail.match_key
    assert tester.attributes["tester"] is True
