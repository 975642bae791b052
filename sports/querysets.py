"""Read vocabulary of the sports spine, shared by admin, API, pages and services."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from django.db import models
from django.db.models import F, Max, Min, OuterRef, Subquery
from mptt.managers import TreeManager
from mptt.querysets import TreeQuerySet

from accounts.access import competitions_for, effective_role
from accounts.models import Capability, Role
from omnium.models import related_rows

if TYPE_CHECKING:
    from sports.models import Competition


class CompetitionQuerySet(TreeQuerySet):
    def canonical(self) -> CompetitionQuerySet:
        return self.filter(merged_into__isnull=True)

    def with_effective(self) -> CompetitionQuerySet:
        """Annotate ``effective_fixture_type`` and ``effective_format_code``: the nearest
        value set on the node or an ancestor (values are inherited down the tree)."""
        ancestors = self.model.objects.filter(
            tree_id=OuterRef("tree_id"), lft__lte=OuterRef("lft"), rght__gte=OuterRef("rght")
        ).order_by("-level")
        return self.annotate(
            effective_fixture_type=Subquery(
                ancestors.filter(fixture_type__isnull=False).values("fixture_type")[:1]
            ),
            effective_format_code=Subquery(
                ancestors.filter(format_code__isnull=False).values("format_code")[:1]
            ),
        )

    def with_fixture_dates(self) -> CompetitionQuerySet:
        """Annotate ``first_start`` and ``last_start``: the earliest and latest scheduled
        start of any fixture on the node or below it (imports seldom give node dates)."""
        under = (
            related_rows(self.model, "fixtures")
            .filter(
                merged_into__isnull=True,
                competition__tree_id=OuterRef("tree_id"),
                competition__lft__gte=OuterRef("lft"),
                competition__rght__lte=OuterRef("rght"),
            )
            .order_by()
        )
        return self.annotate(
            first_start=Subquery(
                under.values("competition__tree_id").annotate(d=Min("scheduled_start")).values("d")
            ),
            last_start=Subquery(
                under.values("competition__tree_id").annotate(d=Max("scheduled_start")).values("d")
            ),
        )

    def seasons_under(self, node: Competition) -> CompetitionQuerySet:
        """The canonical season nodes strictly below ``node``, latest first: by start date
        where one is set, else by the last fixture under the season, else by name."""
        return (
            self.canonical()
            .filter(
                type=SEASON,
                tree_id=node.tree_id,
                lft__gt=node.lft,
                rght__lt=node.rght,
            )
            .with_fixture_dates()
            .order_by(
                F("start_date").desc(nulls_last=True),
                F("last_start").desc(nulls_last=True),
                "-name",
            )
        )


# The node type every import gives a season (openfootball, Cricsheet): a league table is
# folded per season, never over several.
SEASON = "season"

CompetitionManager = TreeManager.from_queryset(CompetitionQuerySet)


class Visibility:
    """What of the fixtures a reader sees (``fixture_visibility``)."""

    ALL = "all"  # editors and administrators
    REVIEW = "review"  # reviewers: the published ones and the competitions they review
    PUBLISHED = "published"  # everyone else


def fixture_visibility(user) -> str:
    role = effective_role(user)
    if role in (Role.EDITOR, Role.ADMIN):
        return Visibility.ALL
    if role == Role.REVIEWER:
        return Visibility.REVIEW
    return Visibility.PUBLISHED


class FixtureQuerySet(models.QuerySet):
    def canonical(self) -> FixtureQuerySet:
        return self.filter(merged_into__isnull=True)

    def public(self) -> FixtureQuerySet:
        """What anonymous readers and plain viewers may see: canonical fixtures whose first
        submission was accepted."""
        return self.filter(merged_into__isnull=True, first_seen_in__accepted=True)

    def visible_to(self, user) -> FixtureQuerySet:
        """The gate without the canonical filter (a merged id must still answer with its
        survivor): editors and administrators see every fixture; a reviewer also sees the
        unpublished ones in the competitions they review (``accounts.access``, the one
        selector of who may do what where); everyone else only fixtures first seen in an
        accepted submission."""
        return self.gated(fixture_visibility(user), user)

    def gated(self, visibility: str, user=None) -> FixtureQuerySet:
        """The gate for a ``fixture_visibility`` answer; only ``REVIEW`` needs the user."""
        if visibility == Visibility.ALL:
            return self
        published = models.Q(first_seen_in__accepted=True)
        if visibility == Visibility.REVIEW:
            return self.filter(
                published | models.Q(competition__in=competitions_for(user, Capability.REVIEW))
            )
        return self.filter(published)

    def under(self, node: Competition) -> FixtureQuerySet:
        """Every fixture on ``node`` or any node below it: one range condition on the
        tree's nested-set columns, whatever the depth."""
        return self.filter(
            competition__tree_id=node.tree_id,
            competition__lft__gte=node.lft,
            competition__rght__lte=node.rght,
        )

    def with_competitors(self) -> FixtureQuerySet:
        competitors = related_rows(self.model, "competitors")
        return self.select_related("sport", "competition", "venue").prefetch_related(
            models.Prefetch(
                "competitors",
                queryset=competitors.select_related("participant").order_by(
                    "parent_id", "ordinal", "id"
                ),
            )
        )


class ParticipantQuerySet(models.QuerySet):
    def canonical(self) -> ParticipantQuerySet:
        return self.filter(merged_into__isnull=True)

    def visible_to(self, sport) -> ParticipantQuerySet:
        """Participants a sport sees: those listing it, plus the Commons (listing none)."""
        return self.filter(models.Q(sports__sport=sport) | models.Q(sports__isnull=True)).distinct()


def follow_merges(model: type[models.Model], pk: UUID | str, *, limit: int = 32) -> UUID | str:
    """The surviving row's primary key for ``pk``, following ``merged_into`` links.

    ``model`` has a ``merged_into`` self-reference; its default manager (``objects`` on every
    such model) is what is read. ``pk`` comes back as given when that row was never merged.
    """
    seen: list[UUID | str] = []
    current = pk
    while current is not None:
        if current in seen or len(seen) >= limit:
            raise ValueError(f"{model.__name__} merge chain loops or is too long at {pk}")
        seen.append(current)
        nxt = (
            model._default_manager.filter(pk=current)
            .values_list("merged_into_id", flat=True)
            .first()
        )
        if nxt is None:
            return current
        current = nxt
    return current
