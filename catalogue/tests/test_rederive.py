from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from catalogue import services
from catalogue.identity.keys import Listed
from catalogue.models import Brand, Override, Product
from catalogue.tests.factories import LocationFactory, ProductFactory

pytestmark = pytest.mark.django_db


def see(name, brand, sku):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=LocationFactory(code="lhr"),
            source_sku=sku,
            listed=Listed(brand=brand, name=name),
            vertical="fragrance",
            seen_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
    ).product


def test_rederive_changes_nothing_when_the_rules_already_agree():
    see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    report = services.products_rederive()
    assert (report.checked, report.changed) == (1, 0)


def test_rederive_brings_a_stale_key_forward_and_is_idempotent():
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    Product.objects.filter(pk=product.pk).update(
        match_key="vireo|brisant|edt|100ml", identity_rules_version=0
    )
    first = services.products_rederive(rules_version=0)
    product.refresh_from_db()
    assert product.match_key == "vireo|brisant men|edt|100ml"
    assert first.fields == {"match_key": 1, "identity_rules_version": 1}
    assert services.products_rederive().changed == 0


def test_rederive_follows_a_brand_alias_decided_since(editor):
    product = see("BRISANT by Maison Vireo EDP For Men 200 ml", "Maison Vireo", "1")
    vireo = Brand.objects.create(slug="vireo", name="Vireo")
    Brand.objects.filter(slug="maison-vireo").update(
        canonical=vireo, decided_by=editor, decided_at=timezone.now()
    )
    services.products_rederive()
    product.refresh_from_db()
    assert product.match_key == "vireo|brisant men|edp|200ml"
    assert product.brand == vireo


def test_rederive_keeps_a_persons_override(editor):
    product = see("Vireo Brisant Men 100 ml", "Vireo", "1")
    Override.objects.create(
        entity_key=str(product.pk),
        field="variation",
        value="edt",
        set_by=editor,
        set_at=timezone.now(),
        reason="box says EDT",
    )
    Override.objects.create(
        entity_key=str(product.pk),
        field="name",
        value="Brisant EDT",
        set_by=editor,
        set_at=timezone.now(),
        reason="house spelling",
    )
    Product.objects.filter(pk=product.pk).update(name="Brisant EDT")
    services.products_rederive()
    product.refresh_from_db()
    assert product.match_key == "vireo|brisant men|edt|100ml"
    assert product.name == "Brisant EDT"
    assert services.products_rederive().changed == 0


def test_rederive_rekeys_merged_rows_too():
    survivor = ProductFactory()
    merged = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    Product.objects.filter(pk=merged.pk).update(merged_into=survivor, match_key="old")
    services.products_rederive()
    merged.refresh_from_db()
    assert merged.match_key == "vireo|brisant men|edt|100ml"


def test_the_rederive_command_reports_what_changed(capsys, editor):
    product = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    Product.objects.filter(pk=product.pk).update(match_key="stale")
    call_command("rederive", actor=editor.username)
    assert "1 products checked, 1 changed (match_key 1)" in capsys.readouterr().out


def test_the_rederive_command_refuses_to_fold_without_a_person():
    with pytest.raises(CommandError):
        call_command("rederive")


def test_rederive_under_new_rules_folds_the_products_that_now_share_a_key(editor):
    old = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    Product.objects.filter(pk=old.pk).update(match_key="vireo|old rules|edt|100ml")
    new = see("Vireo Brisant EDT Men 100 ml", "Vireo", "2")
    assert new.pk != old.pk
    Product.objects.filter(pk__in=[old.pk, new.pk]).update(identity_rules_version=0)
    report = services.products_rederive_and_fold(rules_version=0, actor=editor)
    assert report.folded == 1
    assert services.product_follow_merges(Product.objects.get(pk=new.pk)).pk == old.pk


def test_rederive_and_fold_a_second_time_changes_nothing(editor):
    see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    services.products_rederive_and_fold(actor=editor)
    again = services.products_rederive_and_fold(actor=editor)
    assert (again.rederived.changed, again.folded) == (0, 0)
