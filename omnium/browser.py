"""Browser-test helpers: assertions every page type is held to, run in a real Chromium
driven by Playwright (the fixtures are in ``omnium/testing.py``)."""

from __future__ import annotations

from typing import Any

# Impact levels of axe-core that fail a page.
FAILING_IMPACTS = ("serious", "critical")


def horizontal_overflow(page: Any) -> int:
    """How many CSS pixels the page is wider than its viewport (0 when it fits)."""
    return int(
        page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - document.documentElement.clientWidth"
        )
    )


def assert_no_horizontal_overflow(page: Any) -> None:
    overflow = horizontal_overflow(page)
    if overflow > 0:
        wide = page.evaluate(
            """() => {
                const limit = document.documentElement.clientWidth;
                return [...document.querySelectorAll('body *')]
                  .filter(e => e.getBoundingClientRect().right > limit + 1
                               && !e.closest('.table-wrap, .canvas-box'))
                  .slice(0, 5)
                  .map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''));
            }"""
        )
        raise AssertionError(
            f"{page.url} is {overflow}px wider than its {page.viewport_size['width']}px "
            f"viewport; widest elements: {wide}"
        )


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on the page at the failing impact levels."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [v for v in results.response["violations"] if v.get("impact") in FAILING_IMPACTS]


def assert_no_serious_axe_violations(page: Any) -> None:
    violations = axe_violations(page)
    if violations:
        lines = [
            f"{v['id']} ({v['impact']}): {v['help']} at "
            + ", ".join(str(n["target"]) for n in v["nodes"][:3])
            for v in violations
        ]
        raise AssertionError(f"{page.url}: axe found\n  " + "\n  ".join(lines))


def chart_points(page: Any, key: str) -> list[int]:
    """Points drawn per dataset of a rendered chart (null values are gaps, not points)."""
    page.wait_for_function(f"() => window.omniumCharts && window.omniumCharts[{key!r}]")
    return list(
        page.evaluate(
            f"() => window.omniumCharts[{key!r}].data.datasets"
            ".map(d => d.data.filter(v => v !== null && v !== undefined).length)"
        )
    )
