"""Aliases at three levels: a person's decision that moves, re-keys and folds."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from accounts.models import AuditEntry
from catalogue import services
from catalogue.identity.keys import Listed
from catalogue.models import Brand, Product, ProductLine, ProductMerge
from catalogue.tests.factories import LocationFactory
from curation import services as curation_services
from curation.models import MergeCandidate

pytestmark = pytest.mark.django_db


def see(name, brand, sku, *, gtin=None, variant=None, shop="lhr"):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=LocationFactory(code=shop),
            source_sku=sku,
            listed=Listed(brand=brand, name=name, gtin=gtin, variant=variant),
            vertical="fragrance",
            seen_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
    ).product


def live(product):
    return services.product_follow_merges(Product.objects.get(pk=product.pk))


# --- Brands ---------------------------------------------------------------------------


@pytest.fixture
def two_spellings():
    vireo = see("Vireo Brisant EDP For Men 200 ml", "Vireo", "1")
    christian = see("BRISANT by Maison Vireo EDP For Men 200 ml", "Maison Vireo", "2")
    other = see("Maison Vireo Lointain EDT 100 ml", "Maison Vireo", "3")
    return vireo, christian, other


def test_a_brand_alias_moves_its_lines_to_the_house(two_spellings, editor):
    vireo, _, other = two_spellings
    alias = Brand.objects.get(slug="maison-vireo")
    report = services.brand_alias_apply(
        alias=alias, canonical=vireo.brand, actor=editor, note="one house"
    )
    alias.refresh_from_db()
    assert (alias.canonical, alias.decided_by) == (vireo.brand, editor)
    assert ProductLine.objects.get(pk=live(other).line_id).brand == vireo.brand
    assert report.moved_lines >= 1


def test_a_brand_alias_rekeys_products_and_folds_what_then_agrees(two_spellings, editor):
    vireo, christian, other = two_spellings
    assert vireo.pk != christian.pk
    report = services.brand_alias_apply(
        alias=christian.brand, canonical=vireo.brand, actor=editor, note="one house"
    )
    assert live(christian).pk == vireo.pk
    assert live(other).match_key.startswith("vireo|")
    merge = ProductMerge.objects.get(from_product=christian)
    assert merge.merged_by == editor and "one house" in merge.reason
    assert report.folded == 1


def test_a_brand_alias_writes_one_audit_row_naming_the_person(two_spellings, editor):
    vireo, christian, _ = two_spellings
    services.brand_alias_apply(
        alias=christian.brand, canonical=vireo.brand, actor=editor, note="one house"
    )
    entry = AuditEntry.objects.get(action="brand.alias")
    assert entry.actor == editor and entry.detail["note"] == "one house"


def test_a_brand_alias_can_rename_the_house(two_spellings, editor):
    vireo, christian, _ = two_spellings
    services.brand_alias_apply(
        alias=christian.brand,
        canonical=vireo.brand,
        actor=editor,
        note="one house",
        preferred_name="VIREO",
    )
    assert Brand.objects.get(pk=vireo.brand_id).name == "VIREO"


def test_a_renamed_house_still_reads_its_old_spelling_so_folding_goes_on(two_spellings, editor):
    vireo, christian, _ = two_spellings
    services.brand_alias_apply(
        alias=christian.brand,
        canonical=vireo.brand,
        actor=editor,
        note="one house",
        preferred_name="Vireo Paris",
    )
    again = see("Vireo Brisant EDP For Men 200 ml", "Maison Vireo", "9", shop="dxb")
    assert again.pk == live(vireo).pk


def test_a_brand_cannot_be_its_own_alias(two_spellings, editor):
    vireo, *_ = two_spellings
    with pytest.raises(ValidationError):
        services.brand_alias_apply(alias=vireo.brand, canonical=vireo.brand, actor=editor, note="x")


def test_a_brand_alias_needs_a_note(two_spellings, editor):
    vireo, christian, _ = two_spellings
    with pytest.raises(ValidationError):
        services.brand_alias_apply(
            alias=christian.brand, canonical=vireo.brand, actor=editor, note=" "
        )
    assert Brand.objects.get(slug="maison-vireo").canonical is None


def test_a_brand_alias_survives_rederive_and_recollection(two_spellings, editor):
    vireo, christian, _ = two_spellings
    services.brand_alias_apply(
        alias=christian.brand, canonical=vireo.brand, actor=editor, note="one house"
    )
    assert services.products_rederive().changed == 0
    again = see("Maison Vireo Brisant EDP Men 200 ml", "Maison Vireo", "9", shop="cdg")
    assert again.pk == vireo.pk
    assert Brand.objects.get(slug="maison-vireo").canonical_id == vireo.brand_id


def test_a_brand_alias_closes_the_brand_pair_as_superseded(two_spellings, editor):
    vireo, christian, _ = two_spellings
    curation_services.candidates_suggest()
    pair = MergeCandidate.objects.get(level="brand")
    services.brand_alias_apply(
        alias=christian.brand, canonical=vireo.brand, actor=editor, note="one house"
    )
    pair.refresh_from_db()
    assert pair.status == "superseded"


def test_the_brand_page_reader_answers_an_alias_with_its_house(two_spellings, editor):
    from catalogue.selectors import brand_resolve

    vireo, christian, _ = two_spellings
    services.brand_alias_apply(
        alias=christian.brand, canonical=vireo.brand, actor=editor, note="one house"
    )
    assert brand_resolve("maison-vireo")[0] == vireo.brand


# --- Lines ----------------------------------------------------------------------------


@pytest.fixture
def two_wordings():
    short = see("Vireo Brisant EDP Men's Fragrance 3.4 Oz", "Vireo", "1")
    long = see("Maison Vireo Brisant Men's EDP 3.4 oz Fragrance Spray", "Vireo", "2")
    return short, long


def test_a_line_alias_rekeys_and_folds_its_products(two_wordings, editor):
    short, long = two_wordings
    report = services.line_alias_apply(
        alias=long.line, canonical=short.line, actor=editor, note="same juice"
    )
    assert live(long).pk == short.pk
    assert report.folded == 1
    line = ProductLine.objects.get(pk=long.line_id)
    assert (line.canonical_id, line.decided_by) == (short.line_id, editor)


def test_a_line_alias_survives_rederive_and_recollection(two_wordings, editor):
    short, long = two_wordings
    services.line_alias_apply(alias=long.line, canonical=short.line, actor=editor, note="same")
    assert services.products_rederive().changed == 0
    again = see("Maison Vireo Brisant Men's EDP 3.4 oz", "Vireo", "7", shop="cdg")
    assert again.pk == short.pk and again.line_id == short.line_id


def test_lines_of_two_houses_cannot_be_aliased(editor):
    a = see("Vireo Brisant EDT 100 ml", "Vireo", "1")
    b = see("Chanel Bleu EDT 100 ml", "Chanel", "2")
    with pytest.raises(ValidationError, match="different houses"):
        services.line_alias_apply(alias=a.line, canonical=b.line, actor=editor, note="no")


def test_a_fold_never_joins_two_barcodes(editor):
    short = see("Vireo Brisant EDP Men's Fragrance 3.4 Oz", "Vireo", "1", gtin="3348901250146")
    long = see("Maison Vireo Brisant Men's EDP 3.4 oz Spray", "Vireo", "2", gtin="3348901368247")
    report = services.line_alias_apply(
        alias=long.line, canonical=short.line, actor=editor, note="same line"
    )
    assert live(long).pk == long.pk
    assert (report.folded, report.left_for_a_person) == (0, 1)
    assert live(long).match_key == live(short).match_key


# --- Variations -----------------------------------------------------------------------


def test_a_variation_alias_rekeys_and_folds(editor):
    named = see("Vireo Brisant EDT 100 ml", "Vireo", "1")
    odd = see("Vireo Brisant 100 ml", "Vireo", "2", variant="Eau Fraiche")
    assert odd.attributes["variation"] == "?eau fraiche"
    alias, report = services.variation_alias_set(
        vertical="fragrance", raw="Eau Fraiche", canonical="edt", actor=editor, note="box says"
    )
    assert (alias.raw, alias.canonical, alias.decided_by) == ("eau fraiche", "edt", editor)
    assert live(odd).pk == named.pk and report.folded == 1


def test_a_variation_alias_survives_rederive_and_recollection(editor):
    named = see("Vireo Brisant EDT 100 ml", "Vireo", "1")
    see("Vireo Brisant 100 ml", "Vireo", "2", variant="Eau Fraiche")
    services.variation_alias_set(
        vertical="fragrance", raw="eau fraiche", canonical="edt", actor=editor, note="box says"
    )
    assert services.products_rederive().changed == 0
    again = see("Vireo Brisant 100 ml", "Vireo", "5", variant="Eau Fraiche", shop="cdg")
    assert again.pk == named.pk
