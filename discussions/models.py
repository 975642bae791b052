from __future__ import annotations

import os

import pgtrigger
from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import models
from django.db.models import Q

from discussions.querysets import (
    ArticleQuerySet,
    CommentQuerySet,
    NotificationQuerySet,
    ThreadQuerySet,
)
from omnium.models import UUIDModel
from omnium.triggers import append_only, never_truncated

USER = settings.AUTH_USER_MODEL


def _who(related_name: str, **extra) -> models.ForeignKey:
    return models.ForeignKey(
        USER, null=True, blank=True, on_delete=models.PROTECT, related_name=related_name, **extra
    )


def _all_or_none(name: str, *fields: str) -> models.CheckConstraint:
    """Fields that describe one fact together: either every one is set or none is."""
    all_set = Q(**{f"{field}__isnull": False for field in fields})
    none_set = Q(**{f"{field}__isnull": True for field in fields})
    return models.CheckConstraint(condition=all_set | none_set, name=name)


# --- threads and comments ------------------------------------------------------------------


class Outcome(models.TextChoices):
    DONE = "done", "Done"
    LATER = "later", "Later"


class Thread(UUIDModel):
    """One conversation per subject: any record, named by content type and key (frozen)."""

    subject_type = models.ForeignKey("contenttypes.ContentType", on_delete=models.PROTECT)
    subject_id = models.CharField(max_length=64)
    label = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = _who("+")
    # A plain key, not a foreign key: comments reference threads, and a reference back
    # would make the two tables a cycle.
    closing_comment_id = models.UUIDField(null=True, blank=True)
    followup_note = models.CharField(max_length=500, null=True, blank=True)
    followup_by = _who("+")
    followup_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_by = _who("+")

    objects = ThreadQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["subject_type", "subject_id"], name="discussions_thread_one_per_subject"
            ),
            _all_or_none(
                "discussions_thread_resolution_all_or_none", "outcome", "resolved_at", "resolved_by"
            ),
            _all_or_none(
                "discussions_thread_followup_all_or_none",
                "followup_note",
                "followup_by",
                "followup_at",
            ),
            _all_or_none("discussions_thread_archive_all_or_none", "archived_at", "archived_by"),
            models.CheckConstraint(
                condition=Q(closing_comment_id__isnull=True) | Q(outcome__isnull=False),
                name="discussions_thread_closing_comment_needs_outcome",
            ),
        ]

    def __str__(self) -> str:
        return self.label or f"thread on {self.subject_type_id}:{self.subject_id}"

    @property
    def subject(self):
        model = self.subject_type.model_class()
        return model._default_manager.filter(pk=self.subject_id).first() if model else None


class Comment(UUIDModel):
    """A comment in a thread. ``author`` is the account it was written from (the one being
    acted as, when support acts for someone; the audit log names the real person).

    Deleting is soft: the row stays in its thread as a tombstone and its text is no longer
    shown. A comment re-filed into another thread keeps where it came from, who moved it
    and when.
    """

    thread = models.ForeignKey(Thread, on_delete=models.PROTECT, related_name="comments")
    author = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="comments")
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = _who("+")
    moved_from_thread = models.ForeignKey(
        Thread, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    moved_by = _who("+")
    moved_at = models.DateTimeField(null=True, blank=True)

    objects = CommentQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["thread", "created_at"], name="discussions_comment_thr_idx")
        ]
        constraints = [
            _all_or_none("discussions_comment_deleted_all_or_none", "deleted_at", "deleted_by"),
            _all_or_none(
                "discussions_comment_moved_all_or_none",
                "moved_from_thread",
                "moved_by",
                "moved_at",
            ),
            models.CheckConstraint(
                condition=~Q(body=""), name="discussions_comment_body_not_empty"
            ),
        ]
        triggers = [
            # Deleting is soft; a comment row stays in its thread for good.
            pgtrigger.Protect(name="comment_never_deleted", operation=pgtrigger.Delete),
            never_truncated("comment_no_truncate"),
            # The text changes only to what the comment's latest recorded edit says, so
            # every earlier text stays in CommentEdit (comment_edit writes both).
            pgtrigger.Trigger(
                name="comment_body_by_edit",
                when=pgtrigger.Before,
                operation=pgtrigger.UpdateOf("body"),
                condition=pgtrigger.Q(old__body__df=pgtrigger.F("new__body")),
                func="""
                IF NOT EXISTS (
                    SELECT 1 FROM discussions_commentedit e
                    WHERE e.id = (SELECT max(id) FROM discussions_commentedit
                                  WHERE comment_id = NEW.id)
                      AND e.body_before = OLD.body AND e.body_after = NEW.body
                ) THEN
                    RAISE EXCEPTION 'comment %: an edit of its text is recorded first',
                        NEW.id USING ERRCODE = 'check_violation';
                END IF;
                RETURN NEW;
                """,
            ),
        ]

    def __str__(self) -> str:
        return f"comment {self.pk} in {self.thread_id}"

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def shown_body(self) -> str:
        return "" if self.is_deleted else self.body


class CommentEdit(models.Model):
    """One change of a comment's text: what it said before and after, who changed it and
    when. Append-only: the edit history of a comment cannot be rewritten."""

    id = models.BigAutoField(primary_key=True)
    comment = models.ForeignKey(Comment, on_delete=models.PROTECT, related_name="edits")
    body_before = models.TextField()
    body_after = models.TextField()
    edited_by = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    edited_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["comment", "id"]
        triggers = append_only("comment_edit")

    def __str__(self) -> str:
        return f"edit {self.pk} of {self.comment_id}"


class ThreadRead(models.Model):
    """When an account last opened a thread. Unread is computed from this, never stored."""

    id = models.BigAutoField(primary_key=True)
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="reads")
    user = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="thread_reads")
    read_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["thread", "user"], name="discussions_read_one_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.thread_id} at {self.read_at}"


class AskKind(models.TextChoices):
    CONFIRM = "confirm", "Confirm"
    RESPOND = "respond", "Respond"
    DECIDE = "decide", "Decide"
    REVIEW = "review", "Review"


class ThreadAsk(UUIDModel):
    """The one hand-off: on a thread, for one person, a line saying what."""

    thread = models.ForeignKey(Thread, on_delete=models.PROTECT, related_name="asks")
    for_user = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="asks_received")
    by_user = _who("asks_made")
    note = models.CharField(max_length=500)
    kind = models.CharField(max_length=16, choices=AskKind.choices, default=AskKind.RESPOND)
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)
    done_by = _who("+")

    class Meta:
        constraints = [
            _all_or_none("discussions_ask_done_all_or_none", "done_at", "done_by"),
            models.UniqueConstraint(
                fields=["thread", "for_user"],
                condition=Q(done_at__isnull=True),
                name="discussions_ask_one_open_per_person",
            ),
        ]

    def __str__(self) -> str:
        return f"ask {self.for_user_id}: {self.note}"


class CommentAck(models.Model):
    """ "Got it" on a comment: seen and agreed, one row per person and comment, no words."""

    id = models.BigAutoField(primary_key=True)
    comment = models.ForeignKey(Comment, on_delete=models.PROTECT, related_name="acks")
    user = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["comment", "user"], name="discussions_ack_one_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} acked {self.comment_id}"


class CommentFlag(models.Model):
    """A personal flag on a comment: seen only by the person who set it."""

    id = models.BigAutoField(primary_key=True)
    comment = models.ForeignKey(Comment, on_delete=models.PROTECT, related_name="flags")
    user = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["comment", "user"], name="discussions_flag_one_per_user"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} flagged {self.comment_id}"


# --- notifications and mail ----------------------------------------------------------------


class NotificationKind(models.TextChoices):
    MENTION = "mention", "Mention"
    COMMENT = "comment", "New comment"
    ASK = "ask", "Asked of you"
    RESOLVED = "resolved", "Thread resolved"
    # Sent by the catalogue (through omnium.notify): a followed product's price fell.
    PRICE_ALERT = "price_alert", "Price alert"


class Notification(models.Model):
    """ "You personally need to know this." One row per recipient and event; the same event
    never notifies twice because its ``dedupe_key`` is unique."""

    id = models.BigAutoField(primary_key=True)
    recipient = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="notifications")
    actor = _who("+")
    kind = models.CharField(max_length=16, choices=NotificationKind.choices)
    context_label = models.CharField(max_length=200, blank=True)
    body = models.TextField(blank=True)
    url = models.CharField(max_length=500, blank=True)
    source_type = models.CharField(max_length=100)
    source_id = models.CharField(max_length=64)
    dedupe_key = models.CharField(max_length=200, unique=True)
    read_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(
                fields=["recipient", "-id"],
                condition=Q(read_at__isnull=True),
                name="discussions_notif_unread_idx",
            ),
            models.Index(fields=["source_type", "source_id"], name="discussions_notif_src_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.recipient_id}"


# --- client surfaces -----------------------------------------------------------------------


class DecisionItem(UUIDModel):
    """A decision card raised with the client: a headline and a line or two. Its comments
    live in the item's thread."""

    title = models.CharField(max_length=200)
    note = models.TextField(blank=True)
    reality = models.TextField(blank=True)
    recommendation = models.TextField(blank=True)
    theme = models.CharField(max_length=60, blank=True)
    needs_decision = models.BooleanField(default=True)
    resolved = models.BooleanField(default=False)
    sort_order = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sort_order", "created_at"]

    def __str__(self) -> str:
        return self.title


class ItemStatus(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    DEFERRED = "deferred", "Deferred"


class OwnerItemState(models.Model):
    """The owner's decision on one item of the running list; latest decision wins."""

    item = models.OneToOneField(
        DecisionItem, primary_key=True, on_delete=models.PROTECT, related_name="owner_state"
    )
    status = models.CharField(max_length=16, choices=ItemStatus.choices, default=ItemStatus.OPEN)
    decision = models.TextField(blank=True)
    acted_by = _who("+")
    acted_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            _all_or_none("discussions_owner_state_acted_all_or_none", "acted_by", "acted_at")
        ]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.status}"


class Priority(models.TextChoices):
    MUST = "must", "Must have"
    SHOULD = "should", "Should have"
    COULD = "could", "Could have"
    LATER = "later", "Later"


class FeaturePriority(models.Model):
    """The client's ranking of one feature; one row per feature, latest choice wins."""

    id = models.BigAutoField(primary_key=True)
    feature_key = models.SlugField(max_length=100, unique=True)
    priority = models.CharField(max_length=8, choices=Priority.choices)
    author = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "feature priorities"

    def __str__(self) -> str:
        return f"{self.feature_key}: {self.priority}"


class QuoteSelection(models.Model):
    """The client's yes/no on one quote line item; latest choice wins."""

    id = models.BigAutoField(primary_key=True)
    item_key = models.SlugField(max_length=100, unique=True)
    included = models.BooleanField()
    author = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.item_key}: {'in' if self.included else 'out'}"


class QuoteRequest(UUIDModel):
    """A submitted "please quote this": the basket frozen as it was at that moment."""

    author = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True)
    items = models.JSONField()
    total_usd = models.DecimalField(max_digits=12, decimal_places=2)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        triggers = [
            never_truncated("quote_requests_no_truncate"),
            pgtrigger.Protect(
                name="quote_requests_frozen", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(total_usd__gte=0), name="discussions_quote_total_not_negative"
            )
        ]

    def __str__(self) -> str:
        return f"quote request {self.pk}"


class TodoStatus(models.TextChoices):
    OPEN = "open", "Open"
    DONE = "done", "Done"


class ClientTodo(UUIDModel):
    owner = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="todos")
    title = models.CharField(max_length=200)
    detail = models.TextField(blank=True)
    accepts_files = models.BooleanField(default=False)
    due = models.DateField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=TodoStatus.choices, default=TodoStatus.OPEN)
    sort = models.IntegerField(default=0)
    completed_by = _who("+")
    completed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sort", "created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(
                        status=TodoStatus.DONE,
                        completed_by__isnull=False,
                        completed_at__isnull=False,
                    )
                    | Q(
                        status=TodoStatus.OPEN, completed_by__isnull=True, completed_at__isnull=True
                    )
                ),
                name="discussions_todo_completion_matches_status",
            )
        ]

    def __str__(self) -> str:
        return self.title


class PrivateStorage(FileSystemStorage):
    """Client uploads, under ``PRIVATE_MEDIA_ROOT`` and never at a URL: nothing serves them
    except a view that checks who asks. The root is read on every use so settings changes
    (tests, deployments) take effect without re-importing the model."""

    @property
    def base_location(self):
        return settings.PRIVATE_MEDIA_ROOT

    @property
    def location(self):
        return os.path.abspath(self.base_location)

    @property
    def base_url(self):
        return None

    def url(self, name):
        raise ValueError("Private uploads have no URL; serve them through their view.")


def private_storage() -> FileSystemStorage:
    return PrivateStorage()


class ClientUpload(UUIDModel):
    todo = models.ForeignKey(ClientTodo, on_delete=models.PROTECT, related_name="uploads")
    file = models.FileField(storage=private_storage, upload_to="client-uploads/%Y/%m/")
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    bytes = models.PositiveBigIntegerField()
    uploaded_by = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.original_name


# --- articles ------------------------------------------------------------------------------


class ArticleKind(models.TextChoices):
    ARTICLE = "article", "Article"
    AIRPORT_WRITEUP = "airport_writeup", "Airport write-up"
    CATEGORY_INTRO = "category_intro", "Category intro"


class ArticleStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"


class Article(UUIDModel):
    """Editorial text of one of three kinds. ``body_md`` is the Markdown as handed in; HTML is
    rendered on read (``discussions.markdown``). Only ``published`` rows are ever public."""

    slug = models.SlugField(max_length=200, unique=True)
    title = models.CharField(max_length=300)
    standfirst = models.TextField(blank=True)
    body_md = models.TextField()
    kind = models.CharField(max_length=20, choices=ArticleKind.choices, default=ArticleKind.ARTICLE)
    category = models.CharField(max_length=100, null=True, blank=True)
    airport_code = models.CharField(max_length=3, null=True, blank=True)
    author = _who("articles")
    status = models.CharField(
        max_length=10, choices=ArticleStatus.choices, default=ArticleStatus.DRAFT
    )
    published_at = models.DateTimeField(null=True, blank=True)
    source_upload = models.ForeignKey(
        ClientUpload, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ArticleQuerySet.as_manager()

    class Meta:
        ordering = ["-published_at", "title"]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    kind=ArticleKind.ARTICLE, airport_code__isnull=True, category__isnull=True
                )
                | Q(
                    kind=ArticleKind.AIRPORT_WRITEUP,
                    airport_code__regex=r"^[A-Z]{3}$",
                    category__isnull=True,
                )
                | Q(
                    kind=ArticleKind.CATEGORY_INTRO,
                    category__isnull=False,
                    airport_code__isnull=True,
                ),
                name="discussions_article_key_matches_kind",
            ),
            models.CheckConstraint(
                condition=Q(status=ArticleStatus.DRAFT) | Q(published_at__isnull=False),
                name="discussions_article_published_has_date",
            ),
            models.UniqueConstraint(
                fields=["airport_code"],
                condition=Q(kind=ArticleKind.AIRPORT_WRITEUP),
                name="discussions_article_one_writeup_per_airport",
            ),
            models.UniqueConstraint(
                fields=["category"],
                condition=Q(kind=ArticleKind.CATEGORY_INTRO),
                name="discussions_article_one_intro_per_category",
            ),
        ]

    def __str__(self) -> str:
        return self.title
