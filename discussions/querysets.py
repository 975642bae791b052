from __future__ import annotations

from typing import TYPE_CHECKING, Self

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Count, F, OuterRef, Q, Subquery

from omnium.models import related_rows
from omnium.readable import readable_keys

if TYPE_CHECKING:
    # models.py imports this module, so the models are named here for mypy only; ruff does
    # not see the quoted names in the class bases, hence the noqa.
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User
    from discussions.models import Article, Comment, Notification, Thread  # noqa: F401


class ThreadQuerySet(models.QuerySet["Thread"]):
    def for_subject(self, subject: models.Model) -> Self:
        return self.filter(
            subject_type=ContentType.objects.get_for_model(subject), subject_id=str(subject.pk)
        )

    def open(self) -> Self:
        return self.filter(outcome__isnull=True)

    def readable_by(self, user: User | AnonymousUser | None) -> Self:
        """The threads ``user`` may read: those on a subject ``user`` may read, by the
        subject model's registered reader (``omnium.readable``), whichever page shows the
        subject. One condition per kind of subject that has threads, each a subquery of the
        readable keys, so the list is filtered in the query and never row by row in
        Python. Costs one query to learn which kinds of subject have threads (plus what the
        readers ask of the account's grants)."""
        kinds = ContentType.objects.filter(
            pk__in=self.model._default_manager.values("subject_type")
        )
        match = Q(pk__in=[])
        for kind in kinds:
            model = kind.model_class()
            if model is None:  # a table whose model is gone: nobody reads its threads
                continue
            keys = readable_keys(model, user)
            if keys is None:
                match |= Q(subject_type=kind)
            elif not keys.query.is_empty():
                match |= Q(subject_type=kind, subject_id__in=keys)
        return self.filter(match)

    def unarchived(self) -> Self:
        return self.filter(archived_at__isnull=True)

    def with_unread_count(self, user: User) -> Self:
        """Annotate ``unread_count``: live comments by others newer than ``user``'s last
        open of the thread (all of them if never opened). Computed from ``ThreadRead`` on
        every read; nothing stores a count that could drift."""
        last_read = (
            related_rows(self.model, "reads")
            .filter(thread=OuterRef("pk"), user=user)
            .values("read_at")
        )
        return self.annotate(last_read_at=Subquery(last_read[:1])).annotate(
            unread_count=Count(
                "comments",
                filter=Q(comments__deleted_at__isnull=True)
                & ~Q(comments__author=user)
                & (Q(last_read_at__isnull=True) | Q(comments__created_at__gt=F("last_read_at"))),
            )
        )


class CommentQuerySet(models.QuerySet["Comment"]):
    def live(self) -> Self:
        return self.filter(deleted_at__isnull=True)

    def readable_by(self, user: User | AnonymousUser | None) -> Self:
        """The comments of the threads ``user`` may read (``ThreadQuerySet.readable_by``)."""
        threads = related_rows(self.model, "thread").readable_by(user)  # type: ignore[attr-defined]
        return self.filter(thread__in=threads.values("pk"))


class NotificationQuerySet(models.QuerySet["Notification"]):
    def unread(self) -> Self:
        return self.filter(read_at__isnull=True)

    def for_recipient(self, user: User) -> Self:
        return self.filter(recipient=user)


class ArticleQuerySet(models.QuerySet["Article"]):
    def published(self) -> Self:
        """The only articles the public may see, on every page and route."""
        return self.filter(status="published", published_at__isnull=False)

    def airport_writeup(self, airport_code: str) -> Self:
        """The published write-up of one airport (an empty queryset if none)."""
        return self.published().filter(kind="airport_writeup", airport_code=airport_code.upper())

    def category_intro(self, category: str) -> Self:
        """The published intro of one category (an empty queryset if none)."""
        return self.published().filter(kind="category_intro", category=category)
