"""The public site in a real browser (Chromium through Playwright) on the sample data
``make run`` loads: a visitor's walk at desktop and phone widths, the scorecard's charts, and
an accessibility check of every page type."""

from __future__ import annotations

import json

import pytest

from ingest.samples import SAMPLE_LOADERS, SAMPLES
from omnium.browser import (
    assert_no_horizontal_overflow,
    assert_no_serious_axe_violations,
    chart_points,
)

# django_db: the module needs the test database even when run on its own.
pytestmark = [pytest.mark.browser, pytest.mark.django_db]

# A one-day international with complete innings of 50 and 35 overs.
ODI = SAMPLES / "cricket" / "213288.json"


@pytest.fixture(scope="module")
def site(site_rows, site_server):
    """The samples loaded through the real pipelines, once for the module."""
    from cricket.tests.factories import seed_dismissal_kinds

    # The migration's seed rows, which a transactional test elsewhere may have flushed.
    seed_dismissal_kinds()
    for _label, load in SAMPLE_LOADERS:
        load()
    from catalogue.models import Location, Product
    from sports.models import Competition, Fixture

    info = json.loads(ODI.read_text())["info"]
    odi = Fixture.objects.public().get(
        sport__code="cricket",
        scheduled_start__date=info["dates"][0],
        name__icontains=info["teams"][1],
    )
    batter = odi.competitors.filter(parent__isnull=False, participant__isnull=False).first()
    return {
        "server": site_server,
        "odi": odi,
        "odi_overs": [len(i["overs"]) for i in json.loads(ODI.read_text())["innings"]],
        "player": batter.participant,
        "league": Competition.objects.get(code="epl", parent__isnull=True),
        "product": Product.objects.visible().order_by("name").first(),
        "airport": Location.objects.visible().order_by("code").first(),
    }


def _pages(site) -> dict[str, str]:
    """One URL per page type."""
    from django.urls import reverse

    product = site["product"]
    return {
        "home": reverse("home"),
        "competitions": reverse("sports:competition-list"),
        "league": reverse("sports:competition-detail", args=[site["league"].pk]),
        "scorecard": reverse("cricket:scorecard", args=[site["odi"].pk]),
        "player": reverse("cricket_stats:player", args=[site["player"].pk]),
        "leaderboards": reverse("cricket_stats:leaderboards"),
        "records": reverse("cricket_stats:record", args=["highest-innings"]),
        "products": reverse("catalogue:product-list"),
        "product": reverse("catalogue:product-detail", args=[product.pk]),
        "brand": reverse("catalogue:brand-detail", args=[product.brand.slug]),
        "airport": reverse("catalogue:location-detail", args=[site["airport"].code]),
        "articles": reverse("discussions:article-list"),
        "search": reverse("search:results") + "?q=premier+leage",
    }


def _walk(page, site) -> None:
    pages = _pages(site)
    page.goto(pages["home"])
    assert page.get_by_role("banner").is_visible()
    assert_no_horizontal_overflow(page)
    # The home page links to the league and to recent scorecards.
    page.get_by_role("main").get_by_role("link", name=site["league"].name, exact=True).first.click()
    page.wait_for_url(f"**{pages['league']}")
    assert page.get_by_role("heading", level=1).inner_text() == site["league"].name
    assert_no_horizontal_overflow(page)
    # The header's search box finds the league with a typo in it.
    if pages.get("search"):
        box = page.get_by_role("search").first.get_by_role("searchbox")
        if not box.is_visible():
            page.get_by_role("button", name="Menu").click()
        box.fill("premier leage")
        box.press("Enter")
        page.wait_for_url("**/search/?q=*")
        assert page.get_by_role("link", name=site["league"].name, exact=True).first.is_visible()
        assert_no_horizontal_overflow(page)
    page.goto(pages["scorecard"])
    assert chart_points(page, "worm") == site["odi_overs"]
    assert chart_points(page, "manhattan") == site["odi_overs"]
    assert_no_horizontal_overflow(page)
    # A batter's name on the scorecard leads to their statistics.
    page.get_by_role("link", name=site["player"].name, exact=True).first.click()
    page.wait_for_url(f"**{pages['player']}")
    assert site["player"].name in page.get_by_role("heading", level=1).inner_text()
    # The player's charts draw one point per innings listed.
    innings = page.locator("table.innings-list tbody tr").count()
    assert chart_points(page, "progression") == [innings]
    assert chart_points(page, "runs-per-innings") == [innings]
    assert_no_horizontal_overflow(page)


def test_a_visitor_walks_from_home_to_a_scorecard_and_a_player_at_desktop_width(site, site_page):
    _walk(site_page, site)


def test_the_same_walk_fits_a_phone_screen_with_the_menu_collapsed(site, site_page_phone):
    page = site_page_phone
    page.goto("/")
    menu = page.locator("#site-menu")
    assert not menu.is_visible()
    page.get_by_role("button", name="Menu").click()
    assert menu.is_visible()
    assert page.get_by_role("search").first.is_visible()
    _walk(page, site)


def test_no_page_type_is_wider_than_a_360px_screen(site, browser):
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, base_url=site["server"].url
    )
    page = context.new_page()
    try:
        for name, url in _pages(site).items():
            page.goto(url)
            assert page.title(), name
            assert_no_horizontal_overflow(page)
    finally:
        context.close()


PAGE_TYPES = [
    "home",
    "competitions",
    "league",
    "scorecard",
    "player",
    "leaderboards",
    "records",
    "products",
    "product",
    "brand",
    "airport",
    "articles",
    "search",
]


def test_the_page_types_checked_are_every_page_type_listed(site):
    assert sorted(_pages(site)) == sorted(PAGE_TYPES)


@pytest.mark.parametrize("page_type", PAGE_TYPES)
def test_each_page_type_has_no_serious_accessibility_violation(site, site_page, page_type):
    site_page.goto(_pages(site)[page_type])
    assert_no_serious_axe_violations(site_page)


def test_wide_tables_scroll_inside_their_own_container_with_the_first_column_fixed(
    site, site_page_phone
):
    page = site_page_phone
    page.goto(_pages(site)["scorecard"])
    wrap = page.locator(".table-wrap:has(table.batting)").first
    assert wrap.evaluate("e => getComputedStyle(e).overflowX") == "auto"
    first_cell = wrap.locator("tbody td").first
    assert first_cell.evaluate("e => getComputedStyle(e).position") == "sticky"
