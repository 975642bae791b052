"""Identity rules v2, one behaviour each: houses read from the title, known lines and
flankers, look-alikes, forms, sizes, testers and the concentration a line states.

The names are synthetic wordings in the style of the shops' listings, not copied rows.
"""

from decimal import Decimal

from catalogue.identity.keys import Listed, derive, vetoed
from catalogue.identity.lines import read_variation
from catalogue.identity.quantity import Form, parse_quantity
from catalogue.suggest import Row, product_proposals


def fragrance(brand, name, variant=None):
    return derive(Listed(brand=brand, name=name, variant=variant), vertical="fragrance")


def test_a_placeholder_brand_takes_the_house_the_title_names():
    standard = fragrance("As Show", "YSL Yves Saint Laurent Y Eau de Parfum 100 ml")
    assert standard.house.slug == "yves-saint-laurent"


def test_a_brand_field_naming_a_line_takes_the_house_the_title_names():
    standard = fragrance("Acqua Di Gio", "Acqua Di Gio By Giorgio Armani EDT 100 ml")
    assert standard.match_key == "giorgio-armani|acqua di gio|edt|100ml"


def test_a_brand_field_naming_another_house_gives_way_to_the_house_credited_with_by():
    standard = fragrance("Maison Alhambra", "Woody Oud by Lattafa EDP 2.7 oz")
    assert standard.house.slug == "lattafa"


def test_a_brand_written_with_stray_punctuation_reads_as_the_brand():
    dotted = fragrance("GIORGIO ARM.ANI", "ACQUA DI GIO EDT 3.4 oz GIORGIO ARM.ANI for Men")
    assert dotted.match_key == fragrance("Giorgio Armani", "Acqua Di Gio EDT 100 ml").match_key


def test_a_brand_written_with_symbols_reads_as_the_brand():
    starred = fragrance("AS SHOWN", "Y*S*L Y Eau De Parfum 3.3 oz / 100 ml")
    assert starred.house.slug == "yves-saint-laurent"


def test_a_near_spelling_of_a_famous_line_names_no_house():
    assert fragrance("AS SHOW", "A-v-entus Eau de Parfum 3.3 oz 100ML").house is None


def test_an_inspired_by_listing_is_a_look_alike_keyed_apart():
    copy = fragrance("Blue Perfumes", "Le Male inspiration Blue Jean Paul Gaultier EDT 125 ml")
    real = fragrance("Jean Paul Gaultier", "Le Male by Jean Paul Gaultier EDT 125 ml")
    assert copy.attributes["lookalike"] is True
    assert copy.match_key != real.match_key


def test_a_seller_saying_not_the_original_is_a_look_alike():
    assert fragrance("Cologne", "Savage Casual Cologne 3.4 oz, not Sauvage").attributes["lookalike"]


def test_one_extra_meaningful_word_of_the_house_is_another_line():
    base = fragrance("Paco Rabanne", "Invictus by Paco Rabanne EDT 100 ml")
    flanker = fragrance("Paco Rabanne", "Invictus by Paco Rabanne EDT 100 ml Victory Scent")
    assert (base.line_key, flanker.line_key) == ("invictus", "invictus victory")


def test_seller_words_beside_a_known_line_are_noise():
    plain = fragrance("Paco Rabanne", "Paco Rabanne Invictus EDT 3.4 oz")
    noisy = fragrance("Paco Rabanne", "Paco Rabanne Invictus 3.4 oz EDT Sporty Heroic Scent USA")
    assert plain.match_key == noisy.match_key


def test_a_known_line_names_its_audience_so_for_men_is_dropped():
    assert fragrance("Dior", "Dior Sauvage EDT for Men 100 ml").line_key == "sauvage"


def test_a_womens_edition_of_a_known_line_keys_apart():
    assert fragrance("Armaf", "Club De Nuit by Armaf EDP For Women 105ml").line_key.endswith(
        "women"
    )


def test_a_line_that_states_its_strength_is_one_variation_whatever_the_seller_typed():
    parfum = fragrance("Giorgio Armani", "Armani Code Profumo 110 ml Parfum Spray")
    edp = fragrance("Giorgio Armani", "Armani Code Profumo 110 ml Eau de Parfum EDP")
    assert parfum.match_key == edp.match_key


def test_one_canonical_variation_subsumes_the_parsed_concentration_in_the_veto():
    one = {"variation": "elixir", "concentration": "parfum"}
    two = {"variation": "elixir", "concentration": "edp"}
    assert vetoed("fragrance", one, two) is None


def test_intense_edp_and_edp_intense_are_one_variation():
    one = read_variation("Y Intense Eau De Parfum", vertical="fragrance")
    two = read_variation("Y Eau De Parfum Intense", vertical="fragrance")
    assert one.canonical == two.canonical == "edp intense"


def test_a_tester_without_its_box_is_the_retail_product():
    tester = fragrance("Givenchy", "Pi by Givenchy EDT 3.3 / 3.4 oz New Tester no box")
    assert tester.match_key == fragrance("Givenchy", "Givenchy PI EDT 100 ml").match_key


def test_a_set_with_one_stated_bottle_is_a_set():
    assert parse_quantity("2 Piece Set 3.4 oz EDT + Deodorant").form == Form.SET


def test_a_lot_of_several_bottles_is_a_pack():
    quantity = parse_quantity("Cologne 3.4oz Lot Of 4")
    assert (quantity.form, quantity.pack_count) == (Form.PACK, 4)


def test_samples_key_apart_from_the_bottle_of_their_size():
    sample = fragrance("Creed", "Creed Aventus EDP Sample Vial 10 ml")
    travel = fragrance("Creed", "Creed Aventus EDP Travel Spray 10 ml")
    assert sample.match_key != travel.match_key


def test_an_after_shave_of_a_line_is_a_body_product_keyed_apart():
    balm = fragrance("Calvin Klein", "Euphoria Men 3.3 oz After Shave 100 ml")
    assert balm.match_key != fragrance("Calvin Klein", "Euphoria EDT 100 ml").match_key


def test_ounces_are_normalised_to_the_bottle_sold():
    sizes = {oz: parse_quantity(f"{oz} oz").value for oz in ("3.3", "3.4", "2.7", "2.5", "3.6")}
    assert sizes == {
        "3.3": Decimal(100),
        "3.4": Decimal(100),
        "2.7": Decimal(80),
        "2.5": Decimal(75),
        "3.6": Decimal(105),
    }


def test_a_bare_ounce_size_in_a_fragrance_name_is_read_as_ounces():
    assert fragrance("Khadlaj", "Khadlaj Karus Blu Spice 3.4 EDP").quantity.value == Decimal(100)


def test_a_bare_ounce_size_never_leaks_into_the_line():
    assert "3" not in fragrance("Khadlaj", "Khadlaj Karus Blu Spice 3.4 EDP").line_key.split()


def test_a_version_number_beside_a_stated_size_stays_in_the_line():
    assert "2" in fragrance("Cupid", "Cupid 2.0 Hypnosis Cologne 1.7 oz").line_key.split()


def test_a_point_closing_an_abbreviation_is_not_a_decimal():
    assert parse_quantity("Sampon ricinus Botanic T.400ml").value == Decimal(400)


def test_pieces_written_kom_are_counted():
    assert parse_quantity("Tamponi Procomfort Mini 16kom").key() == "16pcs"


def row(pk, line, *, gtin=None, attributes=None, vertical="beauty", variation=""):
    return Row(pk, "vireo", line, variation, "150ml", "", gtin, attributes or {}, vertical, "", "")


def test_one_meaningful_word_more_is_never_offered_as_one_product():
    proposals = product_proposals([row(1, "dezod sprej"), row(2, "dezod sprej amber")])
    assert proposals == []


def test_two_barcodes_and_a_packaging_difference_are_never_offered():
    glass = row(1, "viina", gtin="6412700013244", vertical="drinks")
    plastic = row(2, "viina", gtin="6412700013268", vertical="drinks",
                  attributes={"packaging": "plastic"})  # fmt: skip
    assert product_proposals([glass, plastic]) == []


def test_two_barcodes_and_the_same_packaging_are_still_offered():
    one = row(1, "viina", gtin="6412700013244", vertical="drinks")
    two = row(2, "viina", gtin="6412700013268", vertical="drinks")
    assert len(product_proposals([one, two])) == 1


def test_plastic_bottles_are_marked_on_drinks():
    drink = derive(
        Listed(brand="Altia", name="Koskenkorva Viina muovipullo", quantity_text="0.5 l"),
        vertical="drinks",
    )
    assert drink.attributes["packaging"] == "plastic"
