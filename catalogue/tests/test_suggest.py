"""``suggest``: rules queue pairs for a person; a decided pair never comes back."""

from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.utils import timezone

from catalogue import services
from catalogue.identity.keys import Listed
from catalogue.models import Brand, Product, ProductLine
from catalogue.tests.factories import LocationFactory, ProductFactory
from curation import services as curation_services
from curation.models import MergeCandidate

pytestmark = pytest.mark.django_db


def see(name, brand, sku, *, gtin=None, variant=None, vertical="fragrance", shop="lhr"):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=LocationFactory(code=shop),
            source_sku=sku,
            listed=Listed(brand=brand, name=name, gtin=gtin, variant=variant),
            vertical=vertical,
            seen_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
    ).product


def candidate_for(a, b, level="product"):
    left, right = sorted([a.pk, b.pk])
    return MergeCandidate.objects.filter(level=level, left_id=left, right_id=right).first()


def test_one_key_with_two_barcodes_is_queued_with_both_barcodes_in_the_reason():
    a = see("Koskenkorva Viina 0.5 l", "Altia", "1", gtin="6412709021615", vertical="drinks")
    b = see("Koskenkorva Viina 0.5 l", "Altia", "2", gtin="6412700021119", vertical="drinks")
    assert a.pk != b.pk
    curation_services.candidates_suggest()
    candidate = candidate_for(a, b)
    assert candidate.status == "open"
    assert "two barcodes" in candidate.why and a.gtin in candidate.why


def test_the_same_line_and_size_without_a_variation_is_queued():
    named = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    bare = see("Vireo Brisant Men 100 ml", "Vireo", "2")
    curation_services.candidates_suggest()
    assert "names no variation" in candidate_for(named, bare).why


def test_a_row_with_a_placeholder_brand_is_paired_with_the_housed_row():
    housed = see("Vireo Brisant EDP Men's Fragrance 3.4 Oz", "Vireo", "1")
    orphan = see("Brisant Eau De Parfum 3.4 oz / 100 ml EDP Spray For Men", "As Picture Show", "2")
    curation_services.candidates_suggest()
    candidate = candidate_for(housed, orphan)
    assert candidate.score == 0.7
    assert "names no house" in candidate.why and "As Picture Show" in candidate.why


def test_one_lines_words_within_another_under_one_house_queue_the_lines_and_products():
    short = see("Vireo Brisant EDP Men's Fragrance 3.4 Oz", "Vireo", "1")
    long = see("Vireo Brisant EDP Spray 3.4 oz (m) Men's", "Vireo", "2")
    curation_services.candidates_suggest()
    assert "'brisant men' is within 'brisant m men'" in candidate_for(short, long).why
    line = candidate_for(short.line, long.line, level="line")
    assert line.why == "'brisant men' is within 'brisant m men' under Vireo"


def test_one_meaningful_word_more_under_one_house_is_not_offered():
    see("Vireo Brisant EDP Men's Fragrance 3.4 Oz", "Vireo", "1")
    see("Maison Vireo Brisant Men's EDP 3.4 oz Fragrance Spray", "Vireo", "2")
    curation_services.candidates_suggest()
    assert not MergeCandidate.objects.filter(level__in=["line", "product"]).exists()


def test_a_line_of_filler_words_only_is_never_paired():
    see("Vireo Men 100 ml EDT", "Vireo", "1")
    see("Vireo Brisant Men 100 ml EDT", "Vireo", "2")
    curation_services.candidates_suggest()
    assert not MergeCandidate.objects.filter(level="line").exists()


def test_a_known_rebrand_is_queued_at_brand_level():
    see("Paco Rabanne 1 Million EDT 100 ml", "Paco Rabanne", "1")
    see("Rabanne 1 Million Parfum 100 ml", "Rabanne", "2")
    curation_services.candidates_suggest()
    paco, rabanne = Brand.objects.get(slug="paco-rabanne"), Brand.objects.get(slug="rabanne")
    candidate = candidate_for(paco, rabanne, level="brand")
    assert candidate.score == 0.95 and "known rebrand" in candidate.why


def test_one_house_within_another_needs_a_line_in_common():
    see("Vireo Brisant EDT 100 ml", "Vireo", "1")
    see("Maison Vireo Brisant EDT 100 ml", "Maison Vireo", "2")
    see("Maison Vireo Lointain EDT 100 ml", "Maison Vireo", "3")
    curation_services.candidates_suggest()
    vireo, christian = Brand.objects.get(slug="vireo"), Brand.objects.get(slug="maison-vireo")
    assert "1 line(s) in common (brisant)" in candidate_for(vireo, christian, level="brand").why


def test_houses_without_a_line_in_common_are_not_paired():
    see("Vireo Brisant EDT 100 ml", "Vireo", "1")
    see("Maison Vireo Lointain EDT 100 ml", "Maison Vireo", "2")
    curation_services.candidates_suggest()
    assert not MergeCandidate.objects.filter(level="brand").exists()


def test_a_rejected_pair_stays_rejected_after_rederive_and_suggest(reviewer):
    named = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    bare = see("Vireo Brisant Men 100 ml", "Vireo", "2")
    curation_services.candidates_suggest()
    curation_services.merge_candidate_decide(
        candidate=candidate_for(named, bare), accept=False, actor=reviewer, note="a gift set"
    )
    services.products_rederive()
    report = curation_services.candidates_suggest()
    candidate = candidate_for(named, bare)
    assert (candidate.status, candidate.decision_note) == ("rejected", "a gift set")
    assert report.already_decided == 1 and report.proposed == 0
    assert not MergeCandidate.objects.filter(status="open").exists()


def test_suggest_twice_queues_nothing_new():
    see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    see("Vireo Brisant Men 100 ml", "Vireo", "2")
    assert curation_services.candidates_suggest().proposed == 1
    again = curation_services.candidates_suggest()
    assert (again.proposed, again.refreshed) == (0, 0)


def test_a_pair_whose_side_was_merged_away_is_closed_as_superseded(editor):
    a = see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    b = see("Vireo Brisant Men 100 ml", "Vireo", "2")
    curation_services.candidates_suggest()
    c = ProductFactory()
    open_with_b = candidate_for(a, b)
    # Merged without the service: the sweep, not product_merge, must find it.
    Product.objects.filter(pk=b.pk).update(merged_into=c)
    report = curation_services.candidates_suggest()
    open_with_b.refresh_from_db()
    assert open_with_b.status == "superseded" and open_with_b.decided_by is None
    assert report.superseded >= 1


def test_a_line_pair_whose_side_was_aliased_away_is_closed(editor):
    short = see("Vireo Brisant EDP Men's Fragrance 3.4 Oz", "Vireo", "1")
    long = see("Vireo Brisant EDP Spray 3.4 oz (m) Men's", "Vireo", "2")
    curation_services.candidates_suggest()
    ProductLine.objects.filter(pk=long.line_id).update(
        canonical=short.line, decided_by=editor, decided_at=timezone.now()
    )
    curation_services.candidates_suggest()
    assert candidate_for(short.line, long.line, level="line").status == "superseded"


def test_the_command_reports_what_it_queued(capsys):
    see("Vireo Brisant EDT Men 100 ml", "Vireo", "1")
    see("Vireo Brisant Men 100 ml", "Vireo", "2")
    call_command("suggest", verbosity=0)
    assert "suggest: 1 new candidate(s)" in capsys.readouterr().out
