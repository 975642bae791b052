"""Who may read the spine's rows, registered with ``omnium.readable`` (see there).

- **Fixtures.** Everyone reads the public ones (canonical or merged, first seen in an
  accepted submission: the gate of the public pages and the API). Editors and
  administrators read every fixture. A submitter or reviewer also reads the unpublished
  fixtures of the competitions their grants cover (a grant on a node covers its subtree):
  they submit and review there, and nowhere else. ``accounts.access`` decides the grants.
- **Rows of a fixture** (its competitors, amendments, timeline items, stat lines) are read
  exactly when their fixture is.
- **Competitions** are public: the site lists every node of every tree.
- **Submissions**: accepted ones, one's own, and those that first brought a fixture the
  reader may read.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from accounts.access import SCOPED_ROLES, competitions_for, effective_role
from accounts.models import Capability, Role
from omnium.readable import readable, readable_register, readable_register_through
from sports.models import (
    Competition,
    Fixture,
    FixtureAmendment,
    FixtureAttempt,
    FixtureCompetitor,
    StatLine,
    Submission,
    TimelineItem,
)


def fixtures_readable(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    role = effective_role(user)
    if role in (Role.EDITOR, Role.ADMIN):
        return queryset
    published = Q(first_seen_in__accepted=True)
    if role in SCOPED_ROLES:
        # Reviewer grants carry the submit capability too, so one subquery covers both.
        granted = competitions_for(user, Capability.SUBMIT).values("pk")
        return queryset.filter(published | Q(competition__in=granted))
    return queryset.filter(published)


def _everyone(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    return queryset


def _timeline_items(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    if effective_role(user) in (Role.EDITOR, Role.ADMIN):
        return queryset
    fixtures = readable(Fixture.objects.all(), user)
    # A stream of a competition or a participant belongs to no fixture: public.
    return queryset.filter(Q(fixture__isnull=True) | Q(fixture__in=fixtures.values("pk")))


def _submissions(queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
    role = effective_role(user)
    if role in (Role.EDITOR, Role.ADMIN):
        return queryset
    seen = readable(Fixture.objects.all(), user).values("first_seen_in")
    match = Q(accepted=True) | Q(pk__in=seen)
    if role is not None:
        match |= Q(submitted_by=user)
    return queryset.filter(match)


def register() -> None:
    """Called from ``SportsConfig.ready()``."""
    readable_register(Fixture, fixtures_readable)
    readable_register(Competition, _everyone)
    readable_register(Submission, _submissions)
    readable_register(TimelineItem, _timeline_items)
    for model in (FixtureAmendment, FixtureAttempt, FixtureCompetitor, StatLine):
        readable_register_through(model, "fixture")
