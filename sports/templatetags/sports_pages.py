"""Small template filters of the sports pages: the sides of a fixture, its podium."""

from __future__ import annotations

from django import template

from sports.models import Fixture, FixtureCompetitor

register = template.Library()


@register.filter
def sides(fixture: Fixture) -> list[FixtureCompetitor]:
    """The top-level competitors of a fixture whose competitors are prefetched
    (``with_competitors``), in their order (home before away)."""
    return [c for c in fixture.competitors.all() if c.parent_id is None]


@register.filter
def podium(fixture: Fixture, places: int = 3) -> list[FixtureCompetitor]:
    """The ranked top-level competitors within the first ``places`` ranks, best first."""
    ranked = [c for c in sides(fixture) if c.rank is not None and c.rank <= places]
    return sorted(ranked, key=lambda c: (c.rank, c.ordinal or 0))
