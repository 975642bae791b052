"""The merge-candidate console in names: the list and the confirmation page name both sides,
the side-by-side queue lines their facts up, and each row is decided where it stands."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import account_groups_sync
from catalogue import services
from catalogue.identity.keys import Listed
from catalogue.models import Product
from catalogue.tests.factories import LocationFactory, PriceObservationFactory
from curation.models import MergeCandidate
from curation.services import merge_candidate_propose

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:curation_candidate_queue")
CANDIDATES = reverse("admin:curation_mergecandidate_changelist")


def _sight(name: str, sku: str, *, shop: str = "lhr") -> Product:
    product = services.listing_record_sighting(
        sighting=services.Sighting(
            location=LocationFactory(code=shop),
            source_sku=sku,
            listed=Listed(brand="Vireo", name=name),
            vertical="fragrance",
            seen_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
    )
    PriceObservationFactory(listing=product.listing)
    return product.product


def _pair(left: Product, right: Product, score: float = 0.9) -> MergeCandidate:
    return merge_candidate_propose(
        level="product", left_id=left.pk, right_id=right.pk, score=score, why="same bottle"
    )


@pytest.fixture
def console(reviewer) -> Client:
    account_groups_sync(user=reviewer)
    client = Client()
    client.force_login(type(reviewer).objects.get(pk=reviewer.pk))
    return client


@pytest.fixture
def pair():
    left = _sight("Vireo Brisant EDP 100 ml", "1")
    right = _sight("Maison Vireo Brisant Eau de Parfum 100 ml", "2")
    return _pair(left, right), left, right


def test_the_list_names_both_sides_instead_of_cut_off_ids(console, pair):
    candidate, left, right = pair
    page = console.get(CANDIDATES).content.decode()
    assert left.name in page and right.name in page
    assert f">{str(candidate.left_id)[:8]}<" not in page


def test_the_confirmation_names_the_pair_and_asks_no_barcode_question_without_two(console, pair):
    candidate, left, right = pair
    Product.objects.filter(pk=left.pk).update(gtin="3348901250153")
    page = console.post(
        CANDIDATES, {"action": "accept_candidates", "_selected_action": [candidate.pk]}
    ).content.decode()
    assert f"{left.name} ~ {right.name} (product, 0.90)" in page
    assert "barcode" not in page.lower()


def test_the_confirmation_asks_about_barcodes_when_both_sides_carry_different_ones(console, pair):
    candidate, left, right = pair
    Product.objects.filter(pk=left.pk).update(gtin="3348901250153")
    Product.objects.filter(pk=right.pk).update(gtin="3348901250146")
    page = console.post(
        CANDIDATES, {"action": "accept_candidates", "_selected_action": [candidate.pk]}
    ).content.decode()
    assert "different barcodes (3348901250153 and 3348901250146)" in page


def test_the_queue_lines_the_facts_up_and_marks_the_ones_that_differ(console, pair):
    page = console.get(QUEUE, {"level": "product"}).content.decode()
    assert '<tr class="differs"><th>name</th>' in page
    assert "<tr><th>airports</th><td>LHR</td><td>LHR</td></tr>" in page
    assert "<tr><th>size</th><td>100 ml</td><td>100 ml</td></tr>" in page
    assert "LHR 50.00 GBP" in page


def test_accepting_one_row_merges_it_and_it_leaves_the_queue(console, pair, reviewer):
    candidate, left, right = pair
    response = console.post(
        f"{QUEUE}?level=product",
        {
            "decide": f"accept:{candidate.pk}",
            f"note-{candidate.pk}": "same juice",
            "level": "product",
        },
    )
    assert response.status_code == 302
    candidate.refresh_from_db()
    assert (candidate.status, candidate.decided_by, candidate.decision_note) == (
        "accepted", reviewer, "same juice"
    )  # fmt: skip
    assert Product.objects.filter(pk__in=[left.pk, right.pk], merged_into__isnull=False).exists()
    assert str(candidate.pk) not in console.get(QUEUE, {"level": "product"}).content.decode()


def test_a_row_without_a_note_is_not_decided(console, pair):
    candidate, _, _ = pair
    console.post(QUEUE, {"decide": f"reject:{candidate.pk}", "level": "product"})
    candidate.refresh_from_db()
    assert candidate.status == "open"


def test_checked_rows_are_rejected_together_with_one_note(console, pair):
    first, left, _ = pair
    second = _pair(left, _sight("Vireo Homme 100 ml", "3"), score=0.5)
    console.post(
        QUEUE,
        {"decide": "reject", "note": "different scents", "level": "product",
         "_selected_action": [first.pk, second.pk]},
    )  # fmt: skip
    decided = MergeCandidate.objects.filter(pk__in=[first.pk, second.pk])
    assert set(decided.values_list("status", "decision_note")) == {("rejected", "different scents")}


def test_skipping_hides_a_pair_for_the_session_and_leaves_it_open(console, pair):
    candidate, _, _ = pair
    console.post(QUEUE, {"decide": f"skip:{candidate.pk}", "level": "product"})
    candidate.refresh_from_db()
    assert candidate.status == "open"
    page = console.get(QUEUE, {"level": "product"}).content.decode()
    assert f'data-pair="{candidate.pk}"' not in page and "1 pair skipped" in page


def test_the_list_costs_the_same_for_more_pairs(console, pair, django_assert_max_num_queries):
    _, left, _ = pair
    for n in range(5):
        _pair(left, _sight(f"Vireo Lointain {n} 100 ml", f"f{n}"), score=0.2)
    with django_assert_max_num_queries(13):
        assert console.get(CANDIDATES).status_code == 200


@pytest.mark.parametrize("level", ["brand", "line", "product", "participant"])
def test_each_level_of_the_queue_costs_a_fixed_number_of_queries(
    console, pair, level, django_assert_max_num_queries
):
    with django_assert_max_num_queries(12):
        assert console.get(QUEUE, {"level": level}).status_code == 200
