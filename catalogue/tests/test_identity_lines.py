import pytest

from catalogue.identity.lines import line_key, read_variation


@pytest.mark.parametrize(
    ("brand", "name", "key"),
    [
        ("Paco Rabanne", "1 Million Paco Rabanne Men 3.4 oz EDT Spray", "1 million men"),
        (
            "Paco Rabanne",
            "1 Million by Paco Rabanne 3.4 Fl oz / 100 ml PARFUM Spray Men's New & Sealed",
            "1 million men",
        ),
        (
            "Paco Rabanne",
            "1 Million Lucky by Paco Rabanne 3.4 oz EDT Cologne for Men New In Box",
            "1 million men",
        ),
        (
            "Paco Rabanne",
            "One Million Royal by Paco Rabanne 1 Million Royal Cologne for Men 3.4 oz",
            "1 million men",
        ),
        ("Dior", "Dior Sauvage EDP Men's Fragrance 3.4 Oz New Sealed in Box", "sauvage men"),
        (
            "Christian Dior",
            "SAUVAGE by Christian Dior For Men PARFUM 6.8 oz / 200 ml *NEW IN SEALED BOX*",
            "sauvage men",
        ),
        ("Dior", "Sauvage Elixir By Dior 2.0oz", "sauvage"),
        # Eau Sauvage is another line: a lone "eau" is not a concentration.
        ("Dior", "Eau Sauvage by Dior cologne for men EDT 3.3 / 3.4 oz", "eau sauvage men"),
        (
            "Dolce & Gabbana",
            "Light Blue by Dolce & Gabbana 4.2 oz Cologne for Men Tester with Cap",
            "light blue men",
        ),
        (
            "Dolce&Gabbana",
            "Dolce & Gabbana Light Blue Men 4.2 oz / 125 mL EDT Spray",
            "light blue men",
        ),
    ],
)
def test_fragrance_line_key(brand, name, key):
    assert line_key(name, vertical="fragrance", brand_spellings=[brand]) == key


def test_audience_is_kept_so_for_men_and_for_women_differ():
    men = line_key("Light Blue for Men 100 ml", vertical="fragrance", brand_spellings=["D&G"])
    women = line_key("Light Blue for Women 100 ml", vertical="fragrance", brand_spellings=["D&G"])
    assert men != women


def test_line_key_drops_every_spelling_of_the_house_it_is_given():
    key = line_key(
        "Christian Dior Sauvage Men's EDP 3.4 oz",
        vertical="fragrance",
        brand_spellings=["Dior", "Christian Dior"],
    )
    assert key == "sauvage men"


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Glenfiddich 12 Year Old Single Malt", "glenfiddich 12 single malt"),
        ("Glenfiddich 12 years old Single Malt", "glenfiddich 12 single malt"),
        ("Glenfiddich 12 YO Single Malt 40%", "glenfiddich 12 single malt"),
        ("Glenfiddich Aged 12 Years Single Malt", "glenfiddich 12 single malt"),
        ("Glenfiddich 18 Year Old Single Malt", "glenfiddich 18 single malt"),
        ("Johnnie Walker Red Label", "johnnie walker red label"),
        ("Johnnie Walker Red Label muovipullo", "johnnie walker red label"),
        ("Johnnie Walker Black Label", "johnnie walker black label"),
    ],
)
def test_drinks_line_key(name, key):
    assert line_key(name, vertical="drinks", brand_spellings=["John Walker & Sons"]) == key


def test_a_12_and_an_18_are_different_lines():
    twelve = line_key("Glenfiddich 12 Year Old", vertical="drinks")
    eighteen = line_key("Glenfiddich 18 Year Old", vertical="drinks")
    assert twelve != eighteen


def test_drinks_keep_expression_words():
    assert "spiced" in line_key("Captain Morgan Spiced Gold 0.7 l", vertical="drinks")


@pytest.mark.parametrize(
    ("name", "variant", "canonical"),
    [
        ("Dior Sauvage Eau de Toilette 3.4 Oz", "Eau de Toilette", "edt"),
        ("Dior Sauvage EDT Men 100 ml", None, "edt"),
        ("Christian Dior Sauvage Men's EDP 3.4 oz", "Eau de Parfum", "edp"),
        ("Sauvage Eau De Parfum 3.4 oz / 100 ml EDP Spray", None, "edp"),
        ("SAUVAGE by Christian Dior For Men PARFUM 6.8 oz", "Parfum", "parfum"),
        ("Sauvage Elixir By Dior 2.0oz", "Elixir", "elixir"),
        # Two elixirs parsed as parfum and as edp are one variation.
        ("Sauvage Elixir Parfum 60 ml", None, "elixir"),
        ("Sauvage Elixir EDP 60 ml", None, "elixir"),
        ("1 Million Lucky by Paco Rabanne 3.4 oz EDT", None, "lucky edt"),
        ("Paco Rabanne 1 Million Royal Parfum 3.4 oz", None, "royal parfum"),
        ("Light Blue Eau Intense Men 100 ml", None, "eau intense"),
        ("Invictus Eau de Parfum Intense 100 ml", None, "edp intense"),
        # The seller's type column is read when the title names no concentration.
        ("One Million Royal by Paco Rabanne Cologne 3.4 oz", "Eau de Parfum", "royal edp"),
        ("Dior Sauvage 100 ml", "Fragrances", ""),
    ],
)
def test_variation_by_rule(name, variant, canonical):
    assert read_variation(name, vertical="fragrance", listed_variant=variant).canonical == canonical


def test_an_unknown_variation_keys_apart_from_every_known_one():
    variation = read_variation(
        "SAUVAGE MEN FRAGRANCE OIL 12 ML", vertical="fragrance", listed_variant="Roll On"
    )
    assert variation.unknown
    assert variation.canonical == "?roll on"


def test_a_variation_alias_decides_what_a_wording_means():
    aliases = {"elixir parfum intense": "elixir"}
    variation = read_variation(
        "Invictus Victory Elixir Parfum Intense 100 ml", vertical="fragrance", aliases={}
    )
    assert variation.raw == "victory elixir parfum intense"
    aliased = read_variation(
        "Sauvage Elixir Parfum Intense 100 ml", vertical="fragrance", aliases=aliases
    )
    assert aliased.canonical == "elixir"


def test_an_alias_can_give_meaning_to_an_unknown_type():
    variation = read_variation(
        "Sauvage 12 ml", vertical="fragrance", listed_variant="Roll On", aliases={"roll on": "oil"}
    )
    assert variation.canonical == "oil"


def test_drinks_have_no_variation():
    assert read_variation("Glenfiddich 12 Parfum", vertical="drinks").canonical == ""


@pytest.mark.parametrize(
    ("brand", "name", "key"),
    [
        # The shop's brand field and the name spell the house three ways; all fold away.
        ("Loreal", "Krema L'Oreal dnevna protiv bora 50ml", "krema dnevna protiv bora"),
        ("Loreal Elseve", "Sampon Color Vive LOreal Elseve 400ml", "sampon color vive"),
        ("Loreal", "Sampon Arginin.Resist Loreal Elseve250ml", "sampon arginin resist elseve"),
        ("OGX", "Regenerator ArganOil of MoroccoOGX 385ml", "regenerator arganoil moroccoogx"),
        ("Head&Shoulders", "Sampon Head & Shoulders Classic 400ml", "sampon classic"),
    ],
)
def test_beauty_line_key_drops_the_house_and_glued_sizes(brand, name, key):
    assert line_key(name, vertical="beauty", brand_spellings=[brand]) == key


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Cokolada Extra Creamy lesnik Lindt 80g", "cokolada extra creamy lesnik"),
        ("Cokolada Extra Creamy mlecna Lindt 80g", "cokolada extra creamy mlecna"),
        ("Bombonjera Ferrero Rocher 24/48 300g", "bombonjera ferrero rocher"),
        ("Rum plocica Kandit 45g+20gratis", "rum plocica kandit"),
    ],
)
def test_food_line_key_keeps_flavour_words_and_drops_pack_counts(name, key):
    assert line_key(name, vertical="food", brand_spellings=["Lindt"]) == key


def test_cocoa_percentages_tell_chocolates_apart():
    seventy = line_key("Cok.Excellence Dark 70%cacao Lind 100g", vertical="food")
    eighty_five = line_key("Cok.Excellence Dark 85%cacao Lind 100g", vertical="food")
    assert seventy != eighty_five
