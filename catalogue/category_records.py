"""Categories across languages: one small curated taxonomy, and what each feed's own category
text means in it.

The feeds name categories in their own words and languages ("Viskit", "Whisky", "Tuoksut",
"Liquor"). ``Category`` is the taxonomy the public site filters by, two levels deep
(spirits / whisky), shipped as reference rows by the migration that made the table. A
``CategoryMapping`` is a person's decision that one source's text means one category: keyed
by the source and the text's fold (``category_text_key``), so every later collection of
the same text lands in the same place without anyone deciding again. A text no one has
decided is waiting in the editor's queue (``CategoryMappingQuerySet``'s reader,
``catalogue.selectors.category_queue``); no rule ever maps one.
"""

from __future__ import annotations

from typing import Self

from django.conf import settings
from django.db import models
from django.db.models import F, Func, Q, Value
from django.db.models.functions import Coalesce, Lower, Trim

from omnium.models import TimestampedModel, UUIDModel


def category_text_key(text: str | None) -> str:
    """The fold a feed's category text is decided under: spaces trimmed and made single,
    lower case. ``category_key_sql`` is the same fold in SQL; the two must agree."""
    return " ".join((text or "").split()).lower()


def category_key_sql(column: str) -> Func:
    """``category_text_key`` of a text column, as a database expression."""
    return Lower(
        Trim(
            Func(
                F(column),
                Value(r"\s+"),
                Value(" "),
                Value("g"),
                function="regexp_replace",
                output_field=models.CharField(),
            )
        ),
        output_field=models.CharField(),
    )


class CategoryQuerySet(models.QuerySet):
    def top(self) -> Self:
        return self.filter(parent__isnull=True)

    def in_order(self) -> Self:
        """Each top category followed by the ones under it, as a choice list shows them."""
        return self.select_related("parent").order_by(
            Coalesce("parent__sort_order", "sort_order"),
            Coalesce("parent__name", "name"),
            F("parent").asc(nulls_first=True),
            "sort_order",
            "name",
        )

    def subtree(self, slug: str) -> Self:
        """The category named by ``slug`` and the categories under it."""
        return self.filter(Q(slug=slug) | Q(parent__slug=slug))


class Category(UUIDModel):
    """One node of the curated taxonomy: a top category (spirits) or one under it (whisky)."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=120)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    sort_order = models.PositiveSmallIntegerField(default=0)

    objects = CategoryQuerySet.as_manager()

    class Meta:
        ordering = ["sort_order", "name"]
        verbose_name_plural = "categories"
        constraints = [
            models.CheckConstraint(
                condition=~Q(parent=F("id")), name="catalogue_category_not_its_own_parent"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="catalogue_category_has_name"),
        ]

    def __str__(self) -> str:
        """The name with its parent's, as a reader sees it: "Spirits / Whisky" (read with
        ``select_related("parent")``)."""
        return f"{self.parent.name} / {self.name}" if self.parent_id and self.parent else self.name


class CategoryMapping(UUIDModel, TimestampedModel):
    """A person's decision: one source's category text means one category of the taxonomy.

    ``text`` is the text as the person saw it; ``text_key`` its fold, the key a collected
    text is looked up by. Written only by ``catalogue.services.category_map``, which keeps
    the audit row with the old and new category."""

    source = models.ForeignKey(
        "catalogue.Source", on_delete=models.PROTECT, related_name="category_mappings"
    )
    text = models.CharField(max_length=200)
    text_key = models.CharField(max_length=200)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="mappings")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField()
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["source", "text_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "text_key"], name="catalogue_category_mapping_unique_text"
            ),
            models.CheckConstraint(
                condition=~Q(text_key=""), name="catalogue_category_mapping_has_text"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.text} → {self.category}"
