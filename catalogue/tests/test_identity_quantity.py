from decimal import Decimal

import pytest

from catalogue.identity.quantity import Form, State, ounces_to_ml, parse_quantity


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("100 ml", "100ml"),
        ("100ML", "100ml"),
        ("100 mL", "100ml"),
        ("3.4 oz", "100ml"),
        ("3.4 fl oz", "100ml"),
        ("3.4 Fl oz / 100 ml", "100ml"),
        ("3.38 oz./100 ml.", "100ml"),
        ("3.3 / 3.4 oz", "100ml"),
        ("6.7 / 6.8 oz", "200ml"),
        ("4.2oz", "125ml"),
        ("1.7 oz", "50ml"),
        ("0.17oz", "5ml"),
        ("10ml / 0.34 oz", "10ml"),
        ("2.6 oz 2.5", "75ml"),
        ("2.0oz", "60ml"),
        ("0.7 l", "700ml"),
        ("0,5 l", "500ml"),
        ("0.05 l", "50ml"),
        ("70cl", "700ml"),
        ("1 l", "1000ml"),
        ("4.5 l", "4500ml"),
        ("75 g", "75g"),
        ("1 kg", "1000g"),
        ("Regenerator ArganOil of MoroccoOGX 385ml", "385ml"),
        ("Sampon Arginin.Resist Loreal Elseve250ml", "250ml"),
        ("Krema L'Oreal dnevna protiv bora 50ml", "50ml"),
        ("Kinder Bueno mini 108g,Ferrero", "108g"),
        ("Bombonjera Ferrero Rocher 24/48 300g", "300g"),
        ("Cok.Excellence Dark 70%cacao Lind 100g", "100g"),
        ("Sample Kit 4/pc", "4pcs"),
        ("Men's Perfume Sampler 10pcs Sample Vials", "10pcs"),
    ],
)
def test_quantity_key(text, key):
    assert parse_quantity(text).key() == key


def test_ounces_use_the_us_fluid_ounce_then_the_bottle_size():
    assert ounces_to_ml(Decimal("3.4")) == Decimal("100")
    # 8 oz is 236.6 ml, more than 3.5% from any bottle size: kept as the conversion.
    assert ounces_to_ml(Decimal("8")) == Decimal("237")


def test_100_ml_never_equals_100_g():
    assert not parse_quantity("100 ml").agrees_with(parse_quantity("100 g"))


def test_unknown_never_agrees_even_with_unknown():
    assert not parse_quantity("no size here").agrees_with(parse_quantity("no size here"))


def test_a_name_without_an_amount_has_no_quantity():
    quantity = parse_quantity("Bombone trufle rum display")
    assert quantity.state == State.NONE
    assert quantity.key() == "unknown"


def test_a_size_column_that_cannot_be_read_is_unparsed():
    quantity = parse_quantity("big bottle", dedicated=True)
    assert quantity.state == State.UNPARSED
    assert quantity.key() == "unknown"


def test_two_different_sizes_are_unparsed_not_guessed():
    quantity = parse_quantity("Sauvage 100 ml 60 ml")
    assert quantity.state == State.UNPARSED
    assert "100ml" in quantity.problem


def test_a_volume_and_a_weight_together_are_unparsed():
    assert parse_quantity("Lotion 200 ml 210 g").state == State.UNPARSED


def test_a_pack_keys_on_its_total_and_names_the_pack():
    quantity = parse_quantity("2 x 50 ml")
    assert (quantity.form, quantity.pack_count, quantity.pack_unit_value) == (Form.PACK, 2, 50)
    assert quantity.key() == "100ml"
    assert quantity.form_part() == "pack2x50ml"


def test_samples_multiplied_after_the_size_are_a_pack():
    quantity = parse_quantity("LIGHT BLUE EAU INTENSE MEN 1.5ml .05oz x 5 COLOGNE SAMPLES")
    assert quantity.form == Form.PACK
    assert quantity.form_part() == "pack5x1.5ml"
    assert quantity.sample


def test_promo_quantity_is_what_the_buyer_gets():
    quantity = parse_quantity("Rum plocica Kandit 45g+20gratis")
    assert quantity.key() == "65g"
    assert quantity.promo_extra == 20


def test_a_set_of_three_is_a_set():
    quantity = parse_quantity("Gift set of 3")
    assert quantity.form == Form.SET
    assert quantity.key() == "3pcs"


def test_a_set_of_different_sizes_keys_on_its_sorted_contents():
    quantity = parse_quantity("Coffret 10ml + 100ml")
    assert quantity.form_part() == "set:100ml+10ml"
    assert quantity.key() == "110ml"


def test_a_refill_is_its_own_form():
    quantity = parse_quantity("Eau de Parfum Refill 150 ml")
    assert quantity.form == Form.REFILL
    assert quantity.form_part() == "refill"


def test_refillable_is_not_a_refill():
    assert parse_quantity("Refillable spray 100 ml").form == Form.SINGLE


def test_a_tester_is_marked_but_not_in_the_fifth_part():
    quantity = parse_quantity("Light Blue 4.2 oz Cologne for Men Tester with Cap")
    assert quantity.tester
    assert quantity.form_part() == ""


def test_the_stated_metric_volume_is_kept_as_the_legacy_size():
    quantity = parse_quantity("70cl")
    assert (quantity.size_value, quantity.size_unit, quantity.size_ml) == (70, "cl", 700)


def test_a_weight_has_no_size_in_ml():
    assert parse_quantity("75 g").size_ml is None
