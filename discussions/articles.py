"""Writes on articles: the importer, the console and the command share these two."""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.services import audit_record
from discussions.models import Article, ArticleKind, ArticleStatus, ClientUpload

# --- articles ------------------------------------------------------------------------------


@transaction.atomic
def article_import(
    *,
    slug: str,
    title: str,
    body_md: str,
    actor: User | None,
    kind: str = ArticleKind.ARTICLE,
    standfirst: str = "",
    airport_code: str | None = None,
    category: str | None = None,
    source_upload: ClientUpload | None = None,
) -> tuple[Article, bool]:
    """Create or replace the text of the article ``slug``. A re-import replaces the text and
    never changes the status: publishing is a person's decision, not an import's."""
    if kind == ArticleKind.AIRPORT_WRITEUP and not re.fullmatch(r"[A-Za-z]{3}", airport_code or ""):
        raise ValidationError({"airport_code": "An airport write-up needs a 3-letter code."})
    if kind == ArticleKind.CATEGORY_INTRO and not category:
        raise ValidationError({"category": "A category intro needs its category."})
    if kind != ArticleKind.AIRPORT_WRITEUP:
        airport_code = None
    if kind != ArticleKind.CATEGORY_INTRO:
        category = None
    if not slug or not title.strip() or not body_md.strip():
        raise ValidationError("An article needs a slug, a title and a body.")
    fields: dict[str, Any] = {
        "title": title,
        "body_md": body_md,
        "standfirst": standfirst,
        "kind": kind,
        "airport_code": airport_code.upper() if airport_code else None,
        "category": category or None,
    }
    if source_upload is not None:
        fields["source_upload"] = source_upload
    article = Article.objects.select_for_update().filter(slug=slug).first()
    created = article is None
    if article is None:
        article = Article.objects.create(slug=slug, author=actor, **fields)
        changed = fields
    else:
        changed = {k: v for k, v in fields.items() if getattr(article, k) != v}
        if not changed:
            return article, False
        for name, value in changed.items():
            setattr(article, name, value)
        article.save(update_fields=[*changed, "updated_at"])
    audit_record(
        actor=actor,
        action="article.import",
        entity=article,
        key=slug,
        detail={"created": created, "fields": sorted(changed)},
    )
    return article, created


@transaction.atomic
def article_publish(*, article: Article, actor: User, published: bool = True) -> Article:
    article = Article.objects.select_for_update().get(pk=article.pk)
    status = ArticleStatus.PUBLISHED if published else ArticleStatus.DRAFT
    if article.status == status:
        return article
    old = article.status
    article.status = status
    if published and article.published_at is None:
        article.published_at = timezone.now()
    article.save(update_fields=["status", "published_at", "updated_at"])
    audit_record(
        actor=actor,
        action="article.status",
        entity=article,
        key=article.slug,
        detail={"status": [old, status]},
    )
    return article
