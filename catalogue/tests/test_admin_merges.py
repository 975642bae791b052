"""Console smoke tests for merges, their undo and the candidate queue, with role checks."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import account_groups_sync
from catalogue.models import Product, ProductMerge
from catalogue.services import product_merge
from catalogue.tests.factories import ListingFactory, ProductFactory
from curation.models import MergeCandidate
from curation.services import merge_candidate_propose

pytestmark = pytest.mark.django_db

PRODUCTS = reverse("admin:catalogue_product_changelist")
MERGES = reverse("admin:catalogue_productmerge_changelist")
CANDIDATES = reverse("admin:curation_mergecandidate_changelist")


def signed_in(user) -> Client:
    # Role permissions live on the role's group; personas are made without it.
    account_groups_sync(user=user)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def editor_console(editor):
    return signed_in(editor)


@pytest.fixture
def reviewer_console(reviewer):
    return signed_in(reviewer)


@pytest.fixture
def pair():
    return ProductFactory(), ProductFactory()


def merge_post(client, pair, **extra):
    data = {"action": "merge_products", "_selected_action": [p.pk for p in pair], **extra}
    return client.post(PRODUCTS, data)


@pytest.mark.parametrize("url", [MERGES, CANDIDATES])
def test_merge_and_candidate_changelists_render(editor_console, url, pair, editor):
    product_merge(loser=pair[0], survivor=pair[1], actor=editor, note="one")
    merge_candidate_propose(
        level="brand", left_id=pair[0].pk, right_id=pair[1].pk, score=0.5, why="known rebrand"
    )
    assert editor_console.get(url).status_code == 200


def test_merge_action_asks_for_the_survivor_and_a_note_first(editor_console, pair):
    page = merge_post(editor_console, pair)
    assert b"Merge these into one product?" in page.content
    assert b'name="note"' in page.content
    assert not ProductMerge.objects.exists()


def test_merge_action_merges_into_the_chosen_survivor(editor_console, pair, editor):
    loser, survivor = pair
    ListingFactory(product=loser)
    merge_post(editor_console, pair, confirm="yes", survivor=str(survivor.pk), note="same")
    record = ProductMerge.objects.get()
    assert (record.from_product, record.to_product, record.merged_by) == (loser, survivor, editor)
    assert survivor.listings.count() == 1


def test_merge_action_without_a_note_merges_nothing(editor_console, pair):
    page = merge_post(editor_console, pair, confirm="yes", survivor=str(pair[1].pk), note="")
    assert b"This field is required" in page.content
    assert not ProductMerge.objects.exists()


def test_merge_action_shows_the_barcode_veto_until_a_person_confirms(editor_console):
    pair = (ProductFactory(gtin="3348901419610"), ProductFactory(gtin="3348901419627"))
    page = merge_post(editor_console, pair, confirm="yes", survivor=str(pair[1].pk), note="x")
    assert b"different barcodes" in page.content
    assert not ProductMerge.objects.exists()
    merge_post(
        editor_console,
        pair,
        confirm="yes",
        survivor=str(pair[1].pk),
        note="travel-retail code",
        confirm_two_barcodes="on",
    )
    assert ProductMerge.objects.get().detail["barcode"]["dropped"] == "3348901419610"


def test_a_reviewer_is_not_offered_the_merge_action(reviewer_console, pair):
    page = reviewer_console.get(PRODUCTS)
    assert page.status_code == 200
    assert b"merge_products" not in page.content
    merge_post(reviewer_console, pair, confirm="yes", survivor=str(pair[1].pk), note="x")
    assert not ProductMerge.objects.exists()


def test_undo_action_asks_for_a_note_first(editor_console, pair, editor):
    record = product_merge(loser=pair[0], survivor=pair[1], actor=editor, note="one")
    page = editor_console.post(MERGES, {"action": "undo_merges", "_selected_action": [record.pk]})
    assert b"Undo these merges?" in page.content
    record.refresh_from_db()
    assert record.undone_at is None


def test_undo_action_reverses_the_merge(editor_console, pair, editor):
    record = product_merge(loser=pair[0], survivor=pair[1], actor=editor, note="one")
    editor_console.post(
        MERGES,
        {
            "action": "undo_merges",
            "_selected_action": [record.pk],
            "confirm": "yes",
            "note": "two bottles",
        },
    )
    record.refresh_from_db()
    assert record.undo_reason == "two bottles"
    assert Product.objects.get(pk=pair[0].pk).merged_into_id is None


def test_reviewer_rejects_a_candidate_with_a_note(reviewer_console, pair, reviewer):
    candidate = merge_candidate_propose(
        level="product", left_id=pair[0].pk, right_id=pair[1].pk, score=0.7, why="two sizes"
    )
    reviewer_console.post(
        CANDIDATES,
        {
            "action": "reject_candidates",
            "_selected_action": [candidate.pk],
            "confirm": "yes",
            "note": "50 ml and 100 ml",
        },
    )
    candidate = MergeCandidate.objects.get(pk=candidate.pk)
    assert (candidate.status, candidate.decided_by) == ("rejected", reviewer)


def test_accept_action_asks_first(reviewer_console, pair):
    candidate = merge_candidate_propose(
        level="product", left_id=pair[0].pk, right_id=pair[1].pk, score=0.7, why="two sizes"
    )
    page = reviewer_console.post(
        CANDIDATES, {"action": "accept_candidates", "_selected_action": [candidate.pk]}
    )
    assert b"Accept these pairs?" in page.content
    assert MergeCandidate.objects.get(pk=candidate.pk).status == "open"


def test_merge_record_page_renders(editor_console, pair, editor):
    record = product_merge(loser=pair[0], survivor=pair[1], actor=editor, note="one")
    url = reverse("admin:catalogue_productmerge_change", args=[record.pk])
    page = editor_console.get(url)
    assert page.status_code == 200
    assert b'name="reason"' not in page.content


def test_candidate_page_renders(reviewer_console, pair):
    candidate = merge_candidate_propose(
        level="product", left_id=pair[0].pk, right_id=pair[1].pk, score=0.7, why="two sizes"
    )
    url = reverse("admin:curation_mergecandidate_change", args=[candidate.pk])
    assert reviewer_console.get(url).status_code == 200
