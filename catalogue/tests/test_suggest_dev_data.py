"""Acceptance on the development perfume listings (local-only data; skipped without it).

A small sample, the README's Sauvage wordings and hard negatives with their neighbours, is
collected through the real collector; then ``suggest`` runs as it does after a collection.
"""

import csv

import pytest
from django.db.models import Q

from catalogue import services
from catalogue.models import Listing, Product
from curation import services as curation_services
from curation.models import MergeCandidate
from ingest.collectors.services import source_collect, source_register_builtin
from omnium.testing import SHARED_DATA

pytestmark = pytest.mark.django_db

EBAY = SHARED_DATA / "catalogue" / "unverified_licence" / "ebay_perfume_listings_mens_dev.csv"
SAMPLE = ("sauvage", "savage", "million", "v-entus", "hogo", "boss")
SAUVAGE_EDP_100 = (
    "Christian Dior Sauvage Men's EDP 3.4 oz Fragrance Spray",
    "Dior Sauvage EDP Men's Fragrance 3.4 Oz New Sealed in Box",
    "Sauvage Eau De Parfum 3.4 oz / 100 ml EDP Spray For Men New In Seald Box",
)
# Listings that must never share a product with the originals they imitate (README).
HARD_NEGATIVES = ("not Sauvage", "A-v-entus", "HOGO BOSS", "Handmade Stronger With Pheromones")


@pytest.fixture
def collected(tmp_path):
    if not EBAY.is_file():
        pytest.skip(f"local-only catalogue data not present at {EBAY}")
    sample = tmp_path / "ebay_sample.csv"
    with EBAY.open(encoding="utf-8") as source, sample.open("w", encoding="utf-8") as out:
        reader = csv.DictReader(source)
        writer = csv.DictWriter(out, fieldnames=reader.fieldnames)
        writer.writeheader()
        for row in reader:
            if any(word in row["title"].lower() for word in SAMPLE):
                writer.writerow(row)
    source_collect(source=source_register_builtin(slug="ebay-perfume"), path=sample)
    curation_services.candidates_suggest()


def product_of(title: str) -> Product:
    return Listing.objects.filter(listed_name=title).select_related("product").first().product


def top_candidate(product: Product) -> MergeCandidate | None:
    return (
        MergeCandidate.objects.filter(status="open")
        .filter(Q(left_id=product.pk) | Q(right_id=product.pk))
        .order_by("-score", "detected_at")
        .first()
    )


def other_side(candidate: MergeCandidate, product: Product) -> Product:
    other = candidate.right_id if candidate.left_id == product.pk else candidate.left_id
    return Product.objects.get(pk=other)


def test_no_hard_negative_shares_a_product_with_another_listing(collected):
    for phrase in HARD_NEGATIVES:
        listings = Listing.objects.filter(listed_name__icontains=phrase)
        assert listings.exists(), phrase
        for listing in listings:
            titles = set(listing.product.listings.values_list("listed_name", flat=True))
            assert all(phrase.lower() in t.lower() for t in titles), (phrase, titles)


def test_each_sauvage_edp_100_wording_is_one_product_or_its_top_candidate_is(collected):
    products = {product_of(title) for title in SAUVAGE_EDP_100}
    if len(products) == 1:
        return
    for product in products:
        top = top_candidate(product)
        assert top is not None, product.name
        partner = other_side(top, product)
        assert partner.match_key.endswith("|sauvage|edp|100ml"), (product.name, top.why)


def test_a_rejection_on_dev_data_never_resurfaces(collected, reviewer):
    # The Sauvage wordings are one product by the rules now, so the sample queues nothing
    # for them: a person's own pair (the EDP against a knock-off) is rejected instead.
    real = product_of(SAUVAGE_EDP_100[0])
    fake = Listing.objects.filter(listed_name__icontains="not Sauvage").first().product
    left, right = sorted((real.pk, fake.pk))
    candidate = curation_services.merge_candidate_propose(
        level="product", left_id=left, right_id=right, score=0.5, why="looks alike"
    )
    curation_services.merge_candidate_decide(
        candidate=candidate, accept=False, actor=reviewer, note="checked the boxes: not one"
    )
    services.products_rederive()
    curation_services.candidates_suggest()
    candidate.refresh_from_db()
    assert candidate.status == "rejected"
    assert not MergeCandidate.objects.filter(
        status="open", level=candidate.level, left_id=candidate.left_id, right_id=candidate.right_id
    ).exists()
