"""Product merges (seed 003, M7): what the survivor inherits, what moves, and the undo."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import ProgrammingError, transaction
from django.utils import timezone

from accounts.models import AuditEntry
from catalogue import services
from catalogue.models import Award, Listing, Override, Product, ProductMerge
from catalogue.selectors import product_resolve
from catalogue.services import _row, product_merge, product_unmerge
from catalogue.tests.factories import ListingFactory, ProductFactory
from curation.models import MergeCandidate
from curation.services import merge_candidate_propose

pytestmark = pytest.mark.django_db


def merge(loser, survivor, editor, **kwargs):
    kwargs.setdefault("note", "same bottle, two wordings")
    return product_merge(loser=loser, survivor=survivor, actor=editor, **kwargs)


def fresh(product):
    return Product.objects.get(pk=product.pk)


def award_for(product):
    return Award.objects.create(product=product, competition="IWSC", year=2024, medal="gold")


def test_merge_keeps_the_loser_row_forwarding_to_the_survivor(editor):
    loser, survivor = ProductFactory(), ProductFactory()
    merge(loser, survivor, editor)
    assert fresh(loser).merged_into_id == survivor.pk
    assert product_resolve(loser.pk) == survivor


def test_merge_moves_listings_and_awards_to_the_survivor(editor):
    loser, survivor = ProductFactory(), ProductFactory()
    listing = ListingFactory(product=loser)
    award = award_for(loser)
    merge(loser, survivor, editor)
    assert Listing.objects.get(pk=listing.pk).product_id == survivor.pk
    assert Award.objects.get(pk=award.pk).product_id == survivor.pk


def test_merge_keeps_the_survivors_barcode(editor):
    loser, survivor = ProductFactory(gtin=None), ProductFactory(gtin="3348901419610")
    merge(loser, survivor, editor)
    assert fresh(survivor).gtin == "3348901419610"
    assert fresh(survivor).gtin_source == ""


def test_survivor_without_a_barcode_gains_the_losers_marked_as_from_a_merge(editor):
    loser = ProductFactory(gtin="3348901419610", gtin_source="collected")
    survivor = ProductFactory(gtin=None)
    record = merge(loser, survivor, editor)
    survivor = fresh(survivor)
    assert (survivor.gtin, survivor.gtin_source) == ("3348901419610", "merge")
    assert record.detail["barcode"]["inherited"] == "3348901419610"


def test_two_different_barcodes_are_refused_without_a_persons_confirmation(editor):
    loser = ProductFactory(gtin="3348901419610", gtin_source="collected")
    survivor = ProductFactory(gtin="3348901419627", gtin_source="collected")
    with pytest.raises(ValidationError, match="different barcodes"):
        merge(loser, survivor, editor)
    assert fresh(loser).merged_into_id is None
    assert not ProductMerge.objects.exists()


def test_confirmed_two_barcode_merge_records_which_won_which_was_dropped_and_why(editor):
    loser = ProductFactory(gtin="3348901419610", gtin_source="collected")
    survivor = ProductFactory(gtin="3348901419627", gtin_source="collected")
    record = merge(loser, survivor, editor, note="travel-retail barcode", confirm_two_barcodes=True)
    assert record.detail["barcode"] == {
        "won": "3348901419627",
        "dropped": "3348901419610",
        "why": "travel-retail barcode",
    }
    assert fresh(survivor).gtin == "3348901419627"


def test_survivor_without_an_image_inherits_the_losers_with_its_provenance(editor):
    loser = ProductFactory(image_url="https://img.example/a.jpg", image_source="found by barcode")
    survivor = ProductFactory(image_url="")
    record = merge(loser, survivor, editor)
    survivor = fresh(survivor)
    assert survivor.image_url == "https://img.example/a.jpg"
    assert survivor.image_source == "found by barcode"
    assert record.detail["image"] == {"from": str(loser.pk), "source": "found by barcode"}


def test_survivor_with_its_own_image_keeps_it(editor):
    loser = ProductFactory(image_url="https://img.example/a.jpg")
    survivor = ProductFactory(image_url="https://img.example/b.jpg")
    merge(loser, survivor, editor)
    assert fresh(survivor).image_url == "https://img.example/b.jpg"


def test_survivor_takes_the_fields_it_lacks_from_the_loser(editor):
    loser = ProductFactory(category="Eau de parfum", country_of_origin="France")
    survivor = ProductFactory(
        category="",
        country_of_origin="",
        quantity_value=None,
        quantity_unit="",
        size_ml=None,
        quantity_state="none",
    )
    merge(loser, survivor, editor)
    survivor = fresh(survivor)
    assert survivor.category == "Eau de parfum"
    assert survivor.country_of_origin == "France"
    assert (survivor.quantity_value, survivor.quantity_state) == (Decimal(100), "stated")


def test_survivor_keeps_its_own_values(editor):
    loser = ProductFactory(category="Eau de toilette", country_of_origin="Italy")
    survivor = ProductFactory(category="Eau de parfum", country_of_origin="France")
    merge(loser, survivor, editor)
    assert fresh(survivor).category == "Eau de parfum"
    assert fresh(survivor).country_of_origin == "France"


def test_a_persons_override_on_the_survivor_is_never_overwritten(editor):
    loser = ProductFactory(category="Eau de parfum")
    survivor = ProductFactory(category="")
    Override.objects.create(
        entity_key=str(survivor.pk),
        field="category",
        value="",
        set_by=editor,
        set_at=timezone.now(),
        reason="no category fits",
    )
    merge(loser, survivor, editor)
    assert fresh(survivor).category == ""


def test_merge_requires_a_note(editor):
    with pytest.raises(ValidationError, match="Say why"):
        merge(ProductFactory(), ProductFactory(), editor, note=" ")


def test_an_already_merged_product_cannot_be_merged_again(editor):
    loser, survivor = ProductFactory(), ProductFactory()
    merge(loser, survivor, editor)
    with pytest.raises(ValidationError, match="already merged"):
        merge(fresh(loser), ProductFactory(), editor)


def test_merge_writes_an_audit_row_naming_the_person(editor):
    loser, survivor = ProductFactory(), ProductFactory()
    merge(loser, survivor, editor)
    entry = AuditEntry.objects.get(action="product.merge")
    assert entry.actor == editor
    assert entry.entity_key == str(loser.pk)
    assert entry.detail["into"] == str(survivor.pk)


def test_merge_record_keeps_both_sides_as_they_were(editor):
    loser, survivor = ProductFactory(), ProductFactory(gtin=None)
    before = (_row(fresh(loser)), _row(fresh(survivor)))
    record = merge(loser, survivor, editor)
    assert (record.from_snapshot, record.to_snapshot) == before


def test_merge_records_are_never_deleted(editor):
    record = merge(ProductFactory(), ProductFactory(), editor)
    with pytest.raises(ProgrammingError, match="Cannot delete"), transaction.atomic():
        ProductMerge.objects.filter(pk=record.pk).delete()


def _dump(rows):
    """Every column of every given row, read fresh from the database."""
    return [_row(type(r).objects.get(pk=r.pk)) for r in rows]


def test_unmerge_restores_both_products_their_listings_and_awards_exactly(editor):
    loser = ProductFactory(
        gtin="3348901419610",
        gtin_source="collected",
        image_url="https://img.example/a.jpg",
        category="Eau de parfum",
        attributes={"concentration": "edp"},
    )
    survivor = ProductFactory(gtin=None, image_url="", category="", attributes={})
    listings = [ListingFactory(product=loser), ListingFactory(product=loser)]
    untouched = ListingFactory(product=survivor)
    awards = [award_for(loser), award_for(survivor)]
    rows = [loser, survivor, *listings, untouched, *awards]
    before = _dump(rows)

    record = merge(loser, survivor, editor)
    assert _dump(rows) != before
    product_unmerge(merge=record, actor=editor, note="different bottles after all")

    assert _dump(rows) == before


def test_unmerge_keeps_a_change_a_person_made_since(editor):
    loser, survivor = ProductFactory(category="Eau de parfum"), ProductFactory(category="")
    record = merge(loser, survivor, editor)
    Product.objects.filter(pk=survivor.pk).update(category="Parfum")
    product_unmerge(merge=record, actor=editor, note="undo")
    assert fresh(survivor).category == "Parfum"
    assert fresh(loser).merged_into_id is None
    assert AuditEntry.objects.get(action="product.unmerge").detail["kept"] == {"to": ["category"]}


def test_unmerge_marks_the_record_and_cannot_run_twice(editor):
    record = merge(ProductFactory(), ProductFactory(), editor)
    product_unmerge(merge=record, actor=editor, note="undo")
    record.refresh_from_db()
    assert record.undone_by == editor and record.undo_reason == "undo"
    with pytest.raises(ValidationError, match="already been undone"):
        product_unmerge(merge=record, actor=editor, note="again")


def test_unmerge_waits_for_a_later_merge_of_the_survivor_to_be_undone(editor):
    a, b, c = ProductFactory(), ProductFactory(), ProductFactory()
    first = merge(a, b, editor)
    merge(fresh(b), c, editor)
    with pytest.raises(ValidationError, match="undo that merge first"):
        product_unmerge(merge=first, actor=editor, note="undo")


def test_a_chain_of_merges_resolves_to_the_last_survivor(editor):
    a, b, c = ProductFactory(), ProductFactory(), ProductFactory()
    merge(a, b, editor)
    merge(fresh(b), c, editor)
    assert product_resolve(a.pk) == c


def _candidate(a, b):
    return merge_candidate_propose(
        level="product", left_id=a.pk, right_id=b.pk, score=0.5, why="same line and size"
    )


def test_merge_closes_open_candidates_about_the_loser_as_superseded(editor):
    loser, survivor, other = ProductFactory(), ProductFactory(), ProductFactory()
    about_loser, elsewhere = _candidate(loser, other), _candidate(survivor, other)
    merge(loser, survivor, editor)
    assert MergeCandidate.objects.get(pk=about_loser.pk).status == "superseded"
    assert MergeCandidate.objects.get(pk=elsewhere.pk).status == "open"


def test_unmerge_reopens_the_candidates_the_merge_closed(editor):
    loser, survivor, other = ProductFactory(), ProductFactory(), ProductFactory()
    candidate = _candidate(loser, other)
    record = merge(loser, survivor, editor)
    product_unmerge(merge=record, actor=editor, note="undo")
    candidate = MergeCandidate.objects.get(pk=candidate.pk)
    assert (candidate.status, candidate.decided_at) == ("open", None)


def test_moved_listings_keep_only_the_barcode_their_shop_published(editor):
    loser = ProductFactory(gtin="3348901419610", gtin_source="collected")
    survivor = ProductFactory(gtin=None)
    published = ListingFactory(product=loser, listed_gtin="3348901419610")
    silent = ListingFactory(product=survivor, listed_gtin=None)
    merge(loser, survivor, editor)
    assert Listing.objects.get(pk=published.pk).listed_gtin == "3348901419610"
    assert Listing.objects.get(pk=silent.pk).listed_gtin is None


def test_survivor_takes_attributes_it_lacks_but_not_a_variation_a_person_decided(editor):
    loser = ProductFactory(attributes={"variation": "edp", "concentration": "edp"})
    survivor = ProductFactory(attributes={})
    Override.objects.create(
        entity_key=str(survivor.pk),
        field="variation",
        value=None,
        set_by=editor,
        set_at=timezone.now(),
        reason="names no variation on purpose",
    )
    merge(loser, survivor, editor)
    assert fresh(survivor).attributes == {"concentration": "edp"}


def _sight(name, sku, shop):
    from datetime import UTC, datetime

    from catalogue.identity.keys import Listed
    from catalogue.tests.factories import LocationFactory

    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=LocationFactory(code=shop),
            source_sku=sku,
            listed=Listed(brand="Vireo", name=name),
            vertical="fragrance",
            seen_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
    )


def test_a_merge_survives_rederive_and_recollection(editor):
    survivor = _sight("Vireo Brisant EDT Men 100 ml", "1", "lhr").product
    loser = _sight("Maison Vireo Brisant Men EDT 3.4 oz", "2", "lhr").product
    services.product_merge(loser=loser, survivor=survivor, actor=editor, note="one bottle")
    services.products_rederive()
    again = _sight("Maison Vireo Brisant Men EDT 3.4 oz", "2", "lhr")
    assert again.product.pk == survivor.pk
    elsewhere = _sight("Maison Vireo Brisant Men EDT 3.4 oz", "9", "cdg")
    assert (elsewhere.resolved_by, elsewhere.product.pk) == ("merge", survivor.pk)
