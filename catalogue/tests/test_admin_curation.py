"""Console smoke tests for aliases, overrides, pins, history and the side-by-side queue,
each with its role check (editors curate, reviewers decide, viewers stay out)."""

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import account_groups_sync
from catalogue import services
from catalogue.identity.keys import Listed
from catalogue.models import Brand, Listing, Override, Product, VariationAlias
from catalogue.tests.factories import LocationFactory, PriceObservationFactory
from curation import services as curation_services
from curation.models import MergeCandidate

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:curation_candidate_queue")
CANDIDATES = reverse("admin:curation_mergecandidate_changelist")
PRODUCTS = reverse("admin:catalogue_product_changelist")
BRANDS = reverse("admin:catalogue_brand_changelist")
LINES = reverse("admin:catalogue_productline_changelist")
LISTINGS = reverse("admin:catalogue_listing_changelist")
OVERRIDES = reverse("admin:catalogue_override_changelist")
VARIATION_ADD = reverse("admin:catalogue_variationalias_add")


def signed_in(user) -> Client:
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


def sight(name, brand, sku, *, shop="lhr"):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=LocationFactory(code=shop),
            source_sku=sku,
            listed=Listed(brand=brand, name=name),
            vertical="fragrance",
            seen_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
    )


@pytest.fixture
def queued():
    """Two Brisant wordings with prices, and the pairs suggest queues for them."""
    short = sight("Vireo Brisant EDP Men's Fragrance 3.4 Oz", "Vireo", "1")
    long = sight("Vireo Brisant EDP Spray 3.4 oz (m) Men's", "Vireo", "2")
    for result in (short, long):
        PriceObservationFactory(listing=result.listing)
    curation_services.candidates_suggest()
    return short.product, long.product


def action(client, url, name, selected, **extra):
    return client.post(url, {"action": name, "_selected_action": selected, **extra})


# --- The side-by-side queue -----------------------------------------------------------


@pytest.mark.parametrize("level", ["product", "line", "brand"])
def test_the_queue_renders_each_level(editor_console, queued, level):
    page = editor_console.get(QUEUE, {"level": level})
    assert page.status_code == 200


def test_the_queue_shows_both_sides_with_listings_and_prices(editor_console, queued):
    page = editor_console.get(QUEUE, {"level": "product"}).content.decode()
    assert "Vireo Brisant EDP Men&#x27;s Fragrance 3.4 Oz" in page
    assert "Vireo Brisant EDP Spray 3.4 oz (m) Men&#x27;s" in page
    assert "50.00 GBP" in page and 'value="accept:' in page


def test_the_queue_costs_the_same_for_more_pairs(
    editor_console, queued, django_assert_max_num_queries
):
    for n in range(6):
        curation_services.merge_candidate_propose(
            level="product", left_id=queued[0].pk, right_id=sight(f"Vireo X{n} 50 ml", "Vireo",
            f"x{n}").product.pk, score=0.1, why="test pair"
        )  # fmt: skip
    with django_assert_max_num_queries(12):
        assert editor_console.get(QUEUE, {"level": "product"}).status_code == 200


def test_a_viewer_is_kept_out_of_the_queue(viewer):
    client = signed_in(viewer)
    assert client.get(QUEUE).status_code == 302


def test_a_reviewer_accepts_from_the_queue_and_the_products_merge(
    reviewer_console, queued, reviewer
):
    short, long = queued
    candidate = MergeCandidate.objects.get(level="product")
    page = action(reviewer_console, CANDIDATES, "accept_candidates", [candidate.pk])
    assert b"Accepting merges" in page.content and b'name="survivor"' in page.content
    action(
        reviewer_console, CANDIDATES, "accept_candidates", [candidate.pk], confirm="yes",
        note="same bottle", survivor=str(short.pk),
    )  # fmt: skip
    candidate.refresh_from_db()
    assert (candidate.status, candidate.decided_by) == ("accepted", reviewer)
    assert Product.objects.get(pk=long.pk).merged_into_id == short.pk


def test_bulk_reject_asks_for_a_note_then_decides_each(reviewer_console, queued):
    pending = list(MergeCandidate.objects.filter(status="open").values_list("pk", flat=True))
    page = action(reviewer_console, CANDIDATES, "reject_candidates", pending, confirm="yes")
    assert b"This field is required" in page.content
    action(reviewer_console, CANDIDATES, "reject_candidates", pending, confirm="yes", note="two")
    assert not MergeCandidate.objects.filter(status="open").exists()


# --- Aliases --------------------------------------------------------------------------


def test_an_editor_aliases_two_brands_from_the_console(editor_console, editor):
    vireo = sight("Vireo Brisant EDT 100 ml", "Vireo", "1").product.brand
    christian = sight("Maison Vireo Brisant EDT 100 ml", "Maison Vireo", "2").product.brand
    page = action(editor_console, BRANDS, "alias_brands", [vireo.pk, christian.pk])
    assert b"Make one of these an alias" in page.content
    action(
        editor_console, BRANDS, "alias_brands", [vireo.pk, christian.pk], confirm="yes",
        canonical=str(vireo.pk), note="one house",
    )  # fmt: skip
    assert Brand.objects.get(pk=christian.pk).canonical_id == vireo.pk


def test_an_editor_aliases_two_lines_from_the_console(editor_console, queued):
    short, long = queued
    action(
        editor_console, LINES, "alias_lines", [short.line_id, long.line_id], confirm="yes",
        canonical=str(short.line_id), note="same juice",
    )  # fmt: skip
    assert Product.objects.get(pk=long.pk).merged_into_id == short.pk


def test_a_reviewer_is_not_offered_alias_actions(reviewer_console, queued):
    short, long = queued
    assert b"alias_lines" not in reviewer_console.get(LINES).content
    action(
        reviewer_console, LINES, "alias_lines", [short.line_id, long.line_id], confirm="yes",
        canonical=str(short.line_id), note="x",
    )  # fmt: skip
    assert Product.objects.get(pk=long.pk).merged_into_id is None


def test_the_variation_alias_page_decides_a_wording(editor_console, editor):
    assert editor_console.get(VARIATION_ADD).status_code == 200
    editor_console.post(
        VARIATION_ADD,
        {"vertical": "fragrance", "raw": "eau fraiche", "canonical": "edt", "note": "box"},
    )
    assert VariationAlias.objects.get().decided_by == editor


def test_a_reviewer_cannot_open_the_variation_alias_page(reviewer_console):
    assert reviewer_console.get(VARIATION_ADD).status_code == 403


# --- Overrides, provenance and history ------------------------------------------------


def test_an_editor_sets_an_override_with_a_reason(editor_console, queued, editor):
    product = queued[0]
    page = action(editor_console, PRODUCTS, "set_override", [product.pk])
    assert b"Set this value by hand?" in page.content
    action(
        editor_console, PRODUCTS, "set_override", [product.pk], confirm="yes",
        field="name", value="Brisant EDP", reason="house spelling",
    )  # fmt: skip
    assert Override.objects.get().set_by == editor
    assert Product.objects.get(pk=product.pk).name == "Brisant EDP"


def test_an_editor_withdraws_an_override(editor_console, queued, editor):
    override = services.override_set(
        product=queued[0], field="category", value="Men", actor=editor, reason="shelf"
    )
    action(editor_console, OVERRIDES, "withdraw_overrides", [override.pk], confirm="yes",
           reason="wrong shelf")  # fmt: skip
    assert not Override.objects.exists()


def test_the_product_page_shows_provenance(editor_console, queued, editor):
    services.override_set(
        product=queued[0], field="category", value="Men", actor=editor, reason="shelf label"
    )
    page = editor_console.get(reverse("admin:catalogue_product_change", args=[queued[0].pk]))
    assert b"shelf label" in page.content and b"identity rules v" in page.content


@pytest.mark.parametrize("model", ["product", "brand", "productline", "override"])
def test_history_pages_render(editor_console, queued, editor, model):
    override = services.override_set(
        product=queued[0], field="category", value="Men", actor=editor, reason="shelf"
    )
    obj = {
        "product": queued[0],
        "brand": queued[0].brand,
        "productline": queued[0].line,
        "override": override,
    }[model]
    page = editor_console.get(reverse(f"admin:catalogue_{model}_history", args=[obj.pk]))
    assert page.status_code == 200


def test_a_history_version_cannot_be_posted_back(editor_console, queued, editor):
    product = queued[0]
    version = product.history.first()
    url = reverse("admin:catalogue_product_simple_history", args=[product.pk, version.pk])
    assert editor_console.get(url).status_code == 200
    assert editor_console.post(url, {"name": "Changed"}).status_code == 403


# --- Pins and ignores -----------------------------------------------------------------


def test_an_editor_pins_and_ignores_listings(editor_console, queued, editor):
    short, long = queued
    listing = Listing.objects.get(product=long)
    action(editor_console, LISTINGS, "pin_listings", [listing.pk], confirm="yes",
           product=str(short.pk), reason="same box")  # fmt: skip
    action(editor_console, LISTINGS, "ignore_listings", [listing.pk], confirm="yes",
           reason="seller ships fakes")  # fmt: skip
    listing.refresh_from_db()
    assert (listing.pinned_product_id, listing.pinned_by) == (short.pk, editor)
    assert listing.ignored_by == editor


def test_a_reviewer_cannot_pin(reviewer_console, queued):
    short, long = queued
    listing = Listing.objects.get(product=long)
    action(reviewer_console, LISTINGS, "pin_listings", [listing.pk], confirm="yes",
           product=str(short.pk), reason="x")  # fmt: skip
    listing.refresh_from_db()
    assert listing.pinned_product_id is None


def test_an_editor_releases_a_pin_and_shows_a_listing_again(editor_console, queued, editor):
    short, long = queued
    listing = Listing.objects.get(product=long)
    services.listing_pin(listing=listing, product=short, reason="box", actor=editor)
    services.listing_ignore(listing=listing, reason="fake", actor=editor)
    for name in ("unpin_listings", "unignore_listings"):
        page = action(editor_console, LISTINGS, name, [listing.pk])
        assert b'name="reason"' in page.content
        action(editor_console, LISTINGS, name, [listing.pk], confirm="yes", reason="mistake")
    listing.refresh_from_db()
    assert listing.pinned_product_id is None and listing.ignored_at is None


def test_the_candidate_list_links_to_the_queue(editor_console, queued):
    page = editor_console.get(CANDIDATES)
    assert page.status_code == 200 and QUEUE.encode() in page.content
