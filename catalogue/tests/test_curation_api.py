"""The reviewers' API: list and decide candidates, merge and undo, set an override."""

import pytest
from rest_framework.test import APIClient

from accounts.services import account_groups_sync
from catalogue.models import Override, Product, ProductMerge
from catalogue.services import product_merge
from catalogue.tests.factories import ProductFactory
from curation.models import MergeCandidate
from curation.services import merge_candidate_propose

pytestmark = pytest.mark.django_db

CANDIDATES = "/api/v1/curation/candidates/"
MERGES = "/api/v1/curation/merges/"
OVERRIDES = "/api/v1/curation/overrides/"


def client_for(user) -> APIClient:
    account_groups_sync(user=user)
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def pair():
    return ProductFactory(), ProductFactory()


@pytest.fixture
def candidate(pair):
    return merge_candidate_propose(
        level="product", left_id=pair[0].pk, right_id=pair[1].pk, score=0.6, why="no variation"
    )


def test_anonymous_callers_are_refused(anon_client, candidate):
    assert anon_client.get(CANDIDATES).status_code in (401, 403)


def test_a_viewer_cannot_list_candidates(viewer, candidate):
    assert client_for(viewer).get(CANDIDATES).status_code == 403


def test_a_reviewer_lists_open_candidates_by_score(reviewer, candidate, pair):
    merge_candidate_propose(
        level="product", left_id=pair[0].pk, right_id=ProductFactory().pk, score=0.9, why="x"
    )
    body = client_for(reviewer).get(CANDIDATES, {"level": "product"}).json()
    assert [row["score"] for row in body["results"]] == [0.9, 0.6]


def test_a_reviewer_rejects_a_candidate_with_a_note(reviewer, candidate):
    response = client_for(reviewer).post(
        f"{CANDIDATES}{candidate.pk}/decide/", {"accept": False, "note": "two sizes"}
    )
    assert response.status_code == 200
    assert response.json()["status"] == "rejected"
    assert response.json()["decided_by"] == reviewer.username


def test_a_reviewer_accepts_and_the_products_merge(reviewer, candidate, pair):
    client_for(reviewer).post(
        f"{CANDIDATES}{candidate.pk}/decide/",
        {"accept": True, "note": "same bottle", "survivor": str(pair[0].pk)},
        format="json",
    )
    assert Product.objects.get(pk=pair[1].pk).merged_into_id == pair[0].pk


def test_a_decision_without_a_note_is_a_400_and_changes_nothing(reviewer, candidate):
    response = client_for(reviewer).post(
        f"{CANDIDATES}{candidate.pk}/decide/", {"accept": False, "note": ""}
    )
    assert response.status_code == 400
    assert MergeCandidate.objects.get(pk=candidate.pk).status == "open"


def test_deciding_twice_is_refused(reviewer, candidate):
    client = client_for(reviewer)
    client.post(f"{CANDIDATES}{candidate.pk}/decide/", {"accept": False, "note": "a"})
    second = client.post(f"{CANDIDATES}{candidate.pk}/decide/", {"accept": True, "note": "b"})
    assert second.status_code == 400 and "already decided" in str(second.json())


def test_an_editor_merges_and_undoes(editor, pair):
    client = client_for(editor)
    made = client.post(MERGES, {"loser": pair[0].pk, "survivor": pair[1].pk, "note": "one"})
    assert made.status_code == 201 and made.json()["merged_by"] == editor.username
    undone = client.post(f"{MERGES}{made.json()['id']}/undo/", {"note": "two after all"})
    assert undone.status_code == 200 and undone.json()["undo_reason"] == "two after all"
    assert Product.objects.get(pk=pair[0].pk).merged_into_id is None


def test_a_reviewer_cannot_merge_by_hand(reviewer, pair):
    response = client_for(reviewer).post(
        MERGES, {"loser": pair[0].pk, "survivor": pair[1].pk, "note": "one"}
    )
    assert response.status_code == 403
    assert not ProductMerge.objects.exists()


def test_two_barcodes_need_the_confirmation(editor):
    a, b = ProductFactory(gtin="3348901419610"), ProductFactory(gtin="3348901419627")
    response = client_for(editor).post(MERGES, {"loser": a.pk, "survivor": b.pk, "note": "x"})
    assert response.status_code == 400
    assert "confirm_two_barcodes" in {e.get("field") for e in response.json()["errors"]}


def test_a_viewer_cannot_undo(viewer, editor, pair):
    merge = product_merge(loser=pair[0], survivor=pair[1], actor=editor, note="one")
    assert client_for(viewer).post(f"{MERGES}{merge.pk}/undo/", {"note": "x"}).status_code == 403


def test_an_editor_sets_an_override(editor, pair):
    response = client_for(editor).post(
        OVERRIDES,
        {"product": pair[0].pk, "field": "name", "value": "Sauvage EDT", "reason": "box"},
    )
    assert response.status_code == 201
    assert response.json()["set_by"] == editor.username
    assert Product.objects.get(pk=pair[0].pk).name == "Sauvage EDT"


def test_a_reviewer_cannot_set_an_override(reviewer, pair):
    response = client_for(reviewer).post(
        OVERRIDES, {"product": pair[0].pk, "field": "name", "value": "X", "reason": "box"}
    )
    assert response.status_code == 403
    assert not Override.objects.exists()
