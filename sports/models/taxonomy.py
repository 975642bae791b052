from __future__ import annotations

import pgtrigger
from django.db import models
from django.db.models import Q
from mptt.models import MPTTModel, TreeForeignKey

from omnium.models import TimestampedModel, UUIDModel
from sports.models.enums import Archetype, CompetitionStatus, CompetitorKind, SportStatus
from sports.querysets import CompetitionManager


# django-mptt ships no type information, so to the Django plugin Competition's bases (and
# the manager built from TreeManager) are Any and it cannot name the related managers the
# tree adds here and on Sport; the ignores below are for that gap only.
class Sport(UUIDModel, TimestampedModel):  # type: ignore[django-manager-missing]
    code = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=256)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    # Default for new fixtures only; each fixture stores its own archetype.
    archetype = models.CharField(max_length=32, choices=Archetype.choices, null=True, blank=True)
    competitor_kind = models.CharField(
        max_length=32, choices=CompetitorKind.choices, null=True, blank=True
    )
    status = models.CharField(
        max_length=16, choices=SportStatus.choices, default=SportStatus.ACTIVE
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class SportDefinitionVersion(UUIDModel, TimestampedModel):
    """A sport's declared shape at one version: the JSON Schemas of ``meta`` and ``format``,
    the plugin that runs its commands and the status codes its results may carry.

    A fixture pins the version it was made with, so a later definition never reinterprets
    an old fixture.
    """

    sport = models.ForeignKey(Sport, on_delete=models.PROTECT, related_name="definitions")
    version = models.PositiveIntegerField()
    plugin = models.CharField(max_length=64, help_text="Key in settings.SPORT_PLUGINS.")
    meta_schema = models.JSONField(default=dict, blank=True)
    format_schema = models.JSONField(default=dict, blank=True)
    # The sport's own outcome words (DQ, BFD, NM, "pulled up") -> canonical result status.
    status_codes = models.JSONField(default=dict, blank=True)
    notes = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["sport", "version"], name="uq_sport_definition_version"
            ),
        ]
        ordering = ["sport", "-version"]

    def __str__(self) -> str:
        return f"{self.sport.code} v{self.version}"


class Venue(UUIDModel, TimestampedModel):
    code = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=256)
    city = models.CharField(max_length=128, blank=True)
    country = models.CharField(max_length=3, blank=True)
    meta = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(country="") | Q(country__regex=r"^[A-Z]{3}$"),
                name="venue_country_shape",
            )
        ]

    def __str__(self) -> str:
        return self.name


class Competition(MPTTModel, UUIDModel, TimestampedModel):  # type: ignore[django-manager-missing]
    """A node of a competition tree of any depth (Games > sport > event > phase, or
    league > season > round).

    ``sport`` is empty on a multi-sport root; every node below a sport node carries that
    sport (a database trigger enforces it). Tree writes go only through
    ``sports.services.tree``, which serialises writers: django-mptt's nested-set columns are
    corrupted by concurrent inserts or moves in one tree.
    """

    sport = models.ForeignKey(
        Sport, null=True, blank=True, on_delete=models.PROTECT, related_name="competitions"
    )
    parent = TreeForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    type = models.CharField(max_length=64, help_text="A free word: games, league, season, event…")
    code = models.CharField(max_length=64)
    name = models.CharField(max_length=256)
    status = models.CharField(
        max_length=32, choices=CompetitionStatus.choices, default=CompetitionStatus.ACTIVE
    )
    ordinal = models.IntegerField(null=True, blank=True)
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True)
    # Inherited downward: the nearest value set on the node or an ancestor applies.
    fixture_type = models.CharField(max_length=64, null=True, blank=True)
    format_code = models.CharField(max_length=64, null=True, blank=True)
    config = models.JSONField(default=dict, blank=True)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )

    objects = CompetitionManager()  # type: ignore[django-manager-missing]

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["sport", "code"], name="uq_competition_sport_code"),
            models.UniqueConstraint(
                fields=["code"],
                condition=Q(sport__isnull=True),
                name="uq_competition_code_no_sport",
            ),
            models.CheckConstraint(
                condition=Q(end_date__isnull=True)
                | Q(start_date__isnull=True)
                | Q(end_date__gte=models.F("start_date")),
                name="competition_dates_ordered",
            ),
            models.CheckConstraint(
                condition=~Q(merged_into=models.F("id")), name="competition_not_merged_into_self"
            ),
        ]
        indexes = [models.Index(fields=["tree_id", "lft", "rght"], name="competition_tree_range")]
        triggers = [
            pgtrigger.Trigger(
                name="competition_sport_follows_parent",
                when=pgtrigger.Before,
                operation=pgtrigger.Insert | pgtrigger.UpdateOf("parent_id", "sport_id"),
                declare=[("parent_sport", "uuid")],
                func="""
                  IF NEW.parent_id IS NOT NULL THEN
                    SELECT sport_id INTO parent_sport FROM sports_competition
                     WHERE id = NEW.parent_id;
                    IF parent_sport IS NOT NULL
                       AND NEW.sport_id IS DISTINCT FROM parent_sport THEN
                      RAISE EXCEPTION USING
                        ERRCODE = 'check_violation',
                        MESSAGE = format('competition %s: a node below a sport node must carry '
                                         'that sport', NEW.code);
                    END IF;
                  END IF;
                  RETURN NEW;
                """,
            ),
        ]

    def __str__(self) -> str:
        return self.name
