"""A reviewer works the merge-candidate queue in a real browser: the queue shows both sides
by name; two pairs are accepted from the keyboard, one rejected with its button; the public
catalogue then shows one product for each accepted pair and both of the rejected one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

PAIRS = [
    ("Vireo Brisant EDP 100 ml", "Maison Vireo Brisant Eau de Parfum 100 ml"),
    ("Vireo Homme EDT 50 ml", "Maison Vireo Homme Eau de Toilette 50 ml"),
    ("Vireo Lointain EDT 100 ml", "Maison Vireo Lointain Eau de Toilette 100 ml"),
]


@pytest.fixture(scope="module")
def queue(site_rows, site_server):
    """Three product pairs in the queue (highest score first, in the order above) and a
    reviewer's session, built once for the module."""
    from django.test import Client

    from accounts.services import account_groups_sync
    from accounts.tests.factories import StaffFactory
    from catalogue import services
    from catalogue.identity.keys import Listed
    from catalogue.tests.factories import LocationFactory, PriceObservationFactory
    from curation.services import merge_candidate_propose

    location = LocationFactory(code="lhr")

    def sight(name: str, sku: str):
        listing = services.listing_record_sighting(
            sighting=services.Sighting(
                location=location,
                source_sku=sku,
                listed=Listed(brand="Vireo", name=name),
                vertical="fragrance",
                seen_at=datetime(2026, 1, 5, tzinfo=UTC),
            )
        )
        PriceObservationFactory(listing=listing.listing)
        return listing.product

    pairs = []
    for n, (left_name, right_name) in enumerate(PAIRS):
        left, right = sight(left_name, f"L{n}"), sight(right_name, f"R{n}")
        assert left.pk != right.pk
        merge_candidate_propose(
            level="product", left_id=left.pk, right_id=right.pk, score=0.9 - n / 10, why="same"
        )
        pairs.append((left, right))
    reviewer = StaffFactory(username="queue-reviewer", role="reviewer")
    account_groups_sync(user=reviewer)
    client = Client()
    client.force_login(reviewer)
    return {"server": site_server, "pairs": pairs, "session": client.cookies}


def test_a_reviewer_accepts_two_rejects_one_and_the_catalogue_follows(queue, site_page):
    from django.conf import settings
    from django.urls import reverse

    from catalogue.models import Product

    page = site_page
    cookie = queue["session"][settings.SESSION_COOKIE_NAME]
    page.context.add_cookies(
        [{"name": cookie.key, "value": cookie.value, "url": queue["server"].url}]
    )
    page.goto(reverse("admin:curation_candidate_queue") + "?level=product")
    rows = page.locator("tr.pair")
    assert rows.count() == 3
    for n, (left, right) in enumerate(queue["pairs"]):
        sides = rows.nth(n).locator("table.facts thead th")
        assert sides.nth(1).text_content().strip() == left.name
        assert sides.nth(2).text_content().strip() == right.name

    # Two accepts from the keyboard: the note first, then "a" on the row in focus; each
    # decided pair leaves the queue at once.
    for note in ("same bottle", "same bottle, other spelling"):
        page.locator("tr.pair.current textarea").fill(note)
        page.evaluate("document.activeElement.blur()")
        with page.expect_navigation():
            page.keyboard.press("a")
        assert "Accepted 1 pair(s)." in page.locator(".messagelist").inner_text()
    assert rows.count() == 1
    page.locator("tr.pair textarea").fill("a different scent")
    with page.expect_navigation():
        page.get_by_role("button", name="Reject (they are two)").click()
    assert "Rejected 1 pair(s)." in page.locator(".messagelist").inner_text()
    assert "Nothing waits at this level." in page.locator("#content").inner_text()

    page.goto(reverse("catalogue:product-list"))
    shown = page.locator("main").inner_text()
    visible = set(Product.objects.visible().values_list("pk", flat=True))
    for left, right in queue["pairs"][:2]:
        assert (left.pk in visible) != (right.pk in visible)  # one kept, one merged away
        kept = left if left.pk in visible else right
        gone = right if kept is left else left
        assert kept.name in shown and gone.name not in shown
    left, right = queue["pairs"][2]
    assert left.name in shown and right.name in shown
