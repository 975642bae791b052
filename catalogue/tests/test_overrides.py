"""A person's override, pin and ignore: applied at once, read first by every recompute."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from accounts.models import AuditEntry
from catalogue import services
from catalogue.identity.keys import Listed
from catalogue.models import Listing, Override, Product
from catalogue.selectors import product_comparison, product_provenance
from catalogue.tests.factories import LocationFactory

pytestmark = pytest.mark.django_db


def sight(name, brand, sku, *, shop="lhr", variant=None):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=LocationFactory(code=shop),
            source_sku=sku,
            listed=Listed(brand=brand, name=name, variant=variant),
            vertical="fragrance",
            seen_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
    )


def see(*args, **kwargs):
    return sight(*args, **kwargs).product


def fresh(product):
    return Product.objects.get(pk=product.pk)


def test_a_name_override_is_applied_and_keeps_the_collected_value(editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    override = services.override_set(
        product=product, field="name", value="Brisant EDT", actor=editor, reason="house spelling"
    )
    assert fresh(product).name == "Brisant EDT"
    assert override.collected_value == "Vireo Brisant EDT Men 100 ml"
    assert (override.set_by, override.reason) == (editor, "house spelling")


def test_a_variation_override_rekeys_and_survives_rederive_and_recollection(editor):
    product = see("Vireo Brisant Men 100 ml", "Vireo", "1")
    services.override_set(
        product=product, field="variation", value="EDT", actor=editor, reason="box says EDT"
    )
    assert fresh(product).match_key == "vireo|brisant men|edt|100ml"
    assert services.products_rederive().changed == 0
    assert sight("Vireo Brisant Men 100 ml", "Vireo", "1").product.pk == product.pk
    assert fresh(product).attributes["variation"] == "edt"


def test_a_quantity_override_rekeys_and_survives_rederive(editor):
    product = see("Vireo Brisant EDT Men", "Vireo", "1")
    services.override_set(
        product=product, field="quantity", value="100 ml", actor=editor, reason="box: 100 ml"
    )
    product = fresh(product)
    assert product.match_key == "vireo|brisant men|edt|100ml"
    assert product.quantity_value == 100 and product.quantity_state == "stated"
    assert services.products_rederive().changed == 0


def test_an_override_folds_the_product_into_the_one_it_then_agrees_with(editor):
    named = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    bare = see("Vireo Brisant Men 100 ml", "Vireo", "2")
    services.override_set(product=bare, field="variation", value="edt", actor=editor, reason="box")
    assert fresh(bare).merged_into_id == named.pk


def test_an_unreadable_quantity_is_refused_and_nothing_changes(editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    with pytest.raises(ValidationError, match="No quantity"):
        services.override_set(
            product=product, field="quantity", value="big", actor=editor, reason="x"
        )
    assert not Override.objects.exists()


def test_an_override_needs_a_reason(editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    with pytest.raises(ValidationError):
        services.override_set(product=product, field="name", value="X", actor=editor, reason="")


def test_an_override_writes_an_audit_row_naming_the_person(editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    services.override_set(product=product, field="category", value="Men", actor=editor, reason="r")
    entry = AuditEntry.objects.get(action="override.set")
    assert entry.actor == editor and entry.detail["field"] == "category"


def test_withdrawing_a_name_override_restores_the_collected_name(editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    override = services.override_set(
        product=product, field="name", value="Brisant", actor=editor, reason="r"
    )
    services.override_remove(override=override, actor=editor, reason="it was right")
    assert fresh(product).name == "Vireo Brisant EDT Men 100 ml"
    assert not Override.objects.exists()


def test_a_line_override_keeps_its_line_through_rederive(editor):
    product = see("Maison Vireo Brisant Men's EDP 3.4 oz", "Vireo", "1")
    target = see("Vireo Brisant EDP Men 50 ml", "Vireo", "2").line
    services.override_set(
        product=product, field="line_id", value="brisant men", actor=editor, reason="same"
    )
    services.products_rederive()
    product = fresh(product)
    assert product.line == target and product.match_key == "vireo|brisant men|edp|100ml"


# --- Pins and ignores -----------------------------------------------------------------


def test_a_pin_survives_recollection_and_rederive(editor):
    listing = sight("Vireo Brisant EDT Men 100 ml", "Vireo", "1").listing
    other = see("Vireo Brisant EDP Men 100 ml", "Vireo", "2")
    services.listing_pin(listing=listing, product=other, reason="the box", actor=editor)
    services.products_rederive()
    again = sight("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    assert (again.resolved_by, again.product.pk) == ("pin", other.pk)
    assert AuditEntry.objects.filter(action="listing.pin", actor=editor).exists()


def test_an_ignored_listing_keeps_collecting_but_leaves_the_public_page(editor):
    result = sight("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    services.listing_ignore(listing=result.listing, reason="a fake", actor=editor)
    again = sight("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    assert again.listing.pk == result.listing.pk
    assert product_comparison(result.product) == []
    services.listing_unignore(listing=result.listing, reason="real after all", actor=editor)
    assert product_comparison(result.product) == [Listing.objects.get(pk=result.listing.pk)]


def test_unpinning_releases_the_listing(editor):
    listing = sight("Vireo Brisant EDT Men 100 ml", "Vireo", "1").listing
    other = see("Vireo Brisant EDP Men 100 ml", "Vireo", "2")
    services.listing_pin(listing=listing, product=other, reason="the box", actor=editor)
    services.listing_unpin(listing=listing, reason="wrong pin", actor=editor)
    listing.refresh_from_db()
    assert listing.pinned_product is None and listing.pin_reason == ""


# --- Provenance and history -----------------------------------------------------------


def test_provenance_names_the_rule_the_merge_and_the_override(editor):
    survivor = see("Vireo Brisant EDT Men", "Vireo", "1")
    loser = see("Vireo Brisant EDT Men 100 ml", "Vireo", "2", shop="cdg")
    services.product_merge(loser=loser, survivor=survivor, actor=editor, note="one bottle")
    services.override_set(
        product=survivor, field="category", value="Men", actor=editor, reason="shelf"
    )
    rows = {row["field"]: row for row in product_provenance(fresh(survivor))}
    assert rows["line"]["source"] == "rule" and "rules v" in rows["line"]["detail"]
    assert rows["quantity"]["source"] == "merge" and "one bottle" in rows["quantity"]["detail"]
    assert rows["category"]["source"] == "override" and "shelf" in rows["category"]["detail"]


def test_history_records_the_person_and_the_reason(editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    services.override_set(
        product=product, field="name", value="Brisant EDT", actor=editor, reason="house spelling"
    )
    latest = fresh(product).history.first()
    assert latest.history_user == editor
    assert "house spelling" in latest.history_change_reason
    assert Override.history.get().history_user == editor


def test_merge_and_undo_each_leave_a_history_record_naming_the_person(editor):
    survivor = see("Vireo Brisant EDT Men", "Vireo", "1")
    loser = see("Vireo Brisant EDT Men 100 ml", "Vireo", "2", shop="cdg")
    merge = services.product_merge(loser=loser, survivor=survivor, actor=editor, note="one")
    services.product_unmerge(merge=merge, actor=editor, note="two")
    reasons = list(fresh(loser).history.values_list("history_change_reason", "history_user"))
    assert ("merge undone: two", editor.pk) in reasons
    assert ("merged: one", editor.pk) in reasons


def test_rederive_dates_when_the_rules_disagree_with_a_person(editor):
    product = see("Vireo Brisant EDP Men 100 ml", "Vireo", "1")
    override = services.override_set(
        product=product, field="variation", value="edt", actor=editor, reason="box says EDT"
    )
    services.products_rederive()
    override.refresh_from_db()
    assert override.collector_disagrees_since is not None
    assert fresh(product).attributes["variation"] == "edt"


def test_a_person_who_agrees_with_the_rules_is_not_disputed(editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    override = services.override_set(
        product=product, field="variation", value="edt", actor=editor, reason="checked"
    )
    services.products_rederive()
    override.refresh_from_db()
    assert override.collector_disagrees_since is None
