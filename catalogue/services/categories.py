"""Category mappings: a person decides what one feed's category text means."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.services import audit_record
from catalogue.category_records import Category, CategoryMapping, category_text_key
from catalogue.collection_records import Source

if TYPE_CHECKING:
    from accounts.models import User

TEXT_MAX = 200  # CategoryMapping.text


@transaction.atomic
def category_map(
    *, source: Source, text: str, category: Category, actor: User, note: str = ""
) -> CategoryMapping:
    """Decide that ``source``'s category ``text`` (any spacing or case of it) means
    ``category``; every listing of the source carrying that text is then read under it,
    at this collection and every later one.

    Deciding again replaces the category and keeps one row per source and text; the audit
    row says what it was and what it became. Deciding what is already decided changes
    nothing and writes no audit row. Holds a row lock on the mapping while it changes.
    """
    key = category_text_key(text)
    if not key:
        raise ValidationError({"text": "Name the category text the feed uses."})
    if len(key) > TEXT_MAX:
        raise ValidationError({"text": f"At most {TEXT_MAX} characters, not {len(key)}."})
    held = (
        CategoryMapping.objects.select_for_update()
        .filter(source=source, text_key=key)
        .select_related("category")
        .first()
    )
    if held is not None and held.category_id == category.pk:
        return held
    before = held.category.slug if held is not None else None
    now = timezone.now()
    mapping = held or CategoryMapping(source=source, text=" ".join(text.split()), text_key=key)
    mapping.category, mapping.decided_by, mapping.decided_at = category, actor, now
    mapping.note = note.strip()
    mapping.save()
    audit_record(
        actor=actor,
        action="category.map",
        entity=CategoryMapping,
        key=mapping.pk,
        detail={
            "source": source.slug,
            "text": mapping.text,
            "from": before,
            "to": category.slug,
            "note": mapping.note,
        },
    )
    return mapping
