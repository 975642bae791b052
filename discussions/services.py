"""Writes on discussions. One function per operation; each is the only implementation.

Conventions: ``actor`` is the person really acting; ``acting_as`` the account they act as
(support), which is the account a comment is written from. The audit row names both.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.mail import send_mail
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from accounts.models import AccountPreference, AccountStatus, User
from accounts.services import audit_record, email_send_reserve, task_enqueue

# Articles' writes live in their own module; the names stay here for every caller.
from discussions.articles import article_import as article_import
from discussions.articles import article_publish as article_publish
from discussions.models import (
    AskKind,
    ClientTodo,
    ClientUpload,
    Comment,
    CommentAck,
    CommentEdit,
    CommentFlag,
    DecisionItem,
    FeaturePriority,
    ItemStatus,
    Notification,
    NotificationKind,
    Outcome,
    OwnerItemState,
    QuoteRequest,
    QuoteSelection,
    Thread,
    ThreadAsk,
    ThreadRead,
    TodoStatus,
)
from discussions.rights import (
    _require_writer,
    is_client_owner,
    is_moderator,
    may_write,
    thread_readable,
)

MENTION = re.compile(r"(?<![\w@.])@([\w.+-]*\w)")


def _author(actor: User, acting_as: User | None) -> User:
    return acting_as or actor


# --- threads -------------------------------------------------------------------------------


def thread_open(*, subject: models.Model, actor: User) -> Thread:
    """The thread of ``subject`` for ``actor``, who found it through ``subject_find``;
    created on first use, which needs the role's write right (``may_write``)."""
    if not may_write(actor):
        raise PermissionDenied("You may not start or join discussions.")
    return thread_for(subject=subject)


def thread_for(*, subject: models.Model, label: str = "") -> Thread:
    """The thread of ``subject``, created on first use. The unique (type, key) pair makes a
    concurrent first use converge on one row (get_or_create re-reads after the conflict).
    Asks nobody's rights: a caller acting for a person goes through ``thread_open``."""
    thread, _ = Thread.objects.get_or_create(
        subject_type=ContentType.objects.get_for_model(subject),
        subject_id=str(subject.pk),
        defaults={"label": label or str(subject)[:200]},
    )
    return thread


def _thread_participants(thread: Thread) -> set[uuid.UUID]:
    return set(thread.comments.live().values_list("author_id", flat=True).distinct()) | set(
        thread.asks.values_list("for_user_id", flat=True)
    )


def _thread_url(thread: Thread) -> str:
    from django.urls import NoReverseMatch, reverse

    try:
        return reverse(
            f"admin:{thread.subject_type.app_label}_{thread.subject_type.model}_change",
            args=[thread.subject_id],
        )
    except NoReverseMatch:
        return reverse("discussions:notification-inbox")


@transaction.atomic
def comment_post(
    *, thread: Thread, body: str, actor: User, acting_as: User | None = None
) -> Comment:
    """Add a comment; @mentions and earlier participants are notified (each once), but
    only those who may read the thread. The author needs the thread's read right and the
    role's write right (``may_write``)."""
    body = body.strip()
    if not body:
        raise ValidationError({"body": "A comment needs some text."})
    author = _author(actor, acting_as)
    _require_writer(thread, author)
    if thread.archived_at is not None:
        raise ValidationError("This thread is archived.")
    comment = Comment.objects.create(thread=thread, author=author, body=body)
    audit_record(
        actor=actor,
        acting_as=acting_as,
        action="comment.post",
        entity=comment,
        key=comment.pk,
        detail={"thread": thread.pk},
    )
    # Writing in a thread is reading it: the author's own comment is never unread for them.
    thread_read_mark(thread=thread, user=author, at=comment.created_at)
    # One check per recipient, on a write: a mention must not carry a thread's words to
    # someone who may not read it.
    mentioned = [user for user in mentioned_accounts(body) if thread_readable(thread, user)]
    for user in mentioned:
        if user.pk != author.pk:
            notification_send(
                recipient=user,
                actor=author,
                kind=NotificationKind.MENTION,
                context_label=str(thread),
                body=body[:500],
                url=_thread_url(thread),
                source=comment,
                dedupe_key=f"mention:{comment.pk}:{user.pk}",
            )
    mentioned_ids = {user.pk for user in mentioned}
    for user in User.objects.filter(pk__in=_thread_participants(thread) - mentioned_ids):
        if user.pk != author.pk and thread_readable(thread, user):
            notification_send(
                recipient=user,
                actor=author,
                kind=NotificationKind.COMMENT,
                context_label=str(thread),
                body=body[:500],
                url=_thread_url(thread),
                source=comment,
                dedupe_key=f"comment:{comment.pk}:{user.pk}",
            )
    return comment


def mentioned_accounts(body: str) -> list[User]:
    names = {name.lower() for name in MENTION.findall(body)}
    if not names:
        return []
    match = models.Q()
    for name in names:
        match |= models.Q(username__iexact=name)
    return list(User.objects.filter(match, status=AccountStatus.ACTIVE))


def _may_change(comment: Comment, actor: User, acting_as: User | None) -> bool:
    return comment.author_id == _author(actor, acting_as).pk or is_moderator(actor)


@transaction.atomic
def comment_edit(
    *, comment: Comment, body: str, actor: User, acting_as: User | None = None
) -> Comment:
    """Change a comment's text (its author, or a moderator); the edit time is kept."""
    comment = Comment.objects.select_for_update().get(pk=comment.pk)
    if not _may_change(comment, actor, acting_as):
        raise PermissionDenied("Only the author or a moderator can edit this comment.")
    if comment.is_deleted:
        raise ValidationError("A deleted comment cannot be edited.")
    body = body.strip()
    if not body:
        raise ValidationError({"body": "A comment needs some text."})
    if body == comment.body:
        return comment
    old = comment.body
    CommentEdit.objects.create(comment=comment, body_before=old, body_after=body, edited_by=actor)
    comment.body = body
    comment.edited_at = timezone.now()
    comment.save(update_fields=["body", "edited_at", "updated_at"])
    audit_record(
        actor=actor,
        acting_as=acting_as,
        action="comment.edit",
        entity=comment,
        key=comment.pk,
        detail={"body": [old, body]},
    )
    return comment


@transaction.atomic
def comment_delete(*, comment: Comment, actor: User, acting_as: User | None = None) -> Comment:
    """Soft delete: the comment stays in its thread as a tombstone."""
    comment = Comment.objects.select_for_update().get(pk=comment.pk)
    if not _may_change(comment, actor, acting_as):
        raise PermissionDenied("Only the author or a moderator can delete this comment.")
    if comment.is_deleted:
        return comment
    comment.deleted_at = timezone.now()
    comment.deleted_by = _author(actor, acting_as)
    comment.save(update_fields=["deleted_at", "deleted_by", "updated_at"])
    audit_record(
        actor=actor, acting_as=acting_as, action="comment.delete", entity=comment, key=comment.pk
    )
    return comment


@transaction.atomic
def comment_move(*, comment: Comment, to_thread: Thread, actor: User) -> Comment:
    """Re-file a comment into another thread (moderators), recording from where, by whom
    and when. A comment moved twice remembers the thread it last left."""
    if not is_moderator(actor):
        raise PermissionDenied("Only a moderator can move comments.")
    comment = Comment.objects.select_for_update().get(pk=comment.pk)
    if comment.thread_id == to_thread.pk:
        return comment
    old_thread_id = comment.thread_id
    comment.moved_from_thread_id = old_thread_id
    comment.thread = to_thread
    comment.moved_by = actor
    comment.moved_at = timezone.now()
    comment.save(
        update_fields=["thread", "moved_from_thread", "moved_by", "moved_at", "updated_at"]
    )
    audit_record(
        actor=actor,
        action="comment.move",
        entity=comment,
        key=comment.pk,
        detail={"thread": [old_thread_id, to_thread.pk]},
    )
    return comment


def thread_read_mark(*, thread: Thread, user: User, at: datetime | None = None) -> ThreadRead:
    """Move ``user``'s read mark on ``thread`` forward (never back)."""
    at = at or timezone.now()
    read, created = ThreadRead.objects.get_or_create(
        thread=thread, user=user, defaults={"read_at": at}
    )
    if not created and read.read_at < at:
        ThreadRead.objects.filter(pk=read.pk, read_at__lt=at).update(read_at=at)
        read.read_at = at
    return read


@transaction.atomic
def thread_followup_set(*, thread: Thread, note: str, actor: User) -> Thread:
    _require_writer(thread, actor)
    note = note.strip()
    if not note:
        raise ValidationError({"note": "Say what needs following up."})
    thread = Thread.objects.select_for_update().get(pk=thread.pk)
    thread.followup_note, thread.followup_by, thread.followup_at = note, actor, timezone.now()
    thread.save(update_fields=["followup_note", "followup_by", "followup_at"])
    audit_record(
        actor=actor, action="thread.followup", entity=thread, key=thread.pk, detail={"note": note}
    )
    return thread


@transaction.atomic
def thread_followup_clear(*, thread: Thread, actor: User) -> Thread:
    _require_writer(thread, actor)
    thread = Thread.objects.select_for_update().get(pk=thread.pk)
    if thread.followup_at is None:
        return thread
    thread.followup_note = thread.followup_by = thread.followup_at = None
    thread.save(update_fields=["followup_note", "followup_by", "followup_at"])
    audit_record(actor=actor, action="thread.followup_clear", entity=thread, key=thread.pk)
    return thread


@transaction.atomic
def thread_resolve(
    *,
    thread: Thread,
    outcome: str,
    actor: User,
    closing_body: str = "",
    acting_as: User | None = None,
) -> Thread:
    """Close a thread as done or for later, optionally with a closing comment. The thread's
    notifications are marked resolved with it."""
    if outcome not in Outcome.values:
        raise ValidationError({"outcome": "Choose done or later."})
    _require_writer(thread, _author(actor, acting_as))
    thread = Thread.objects.select_for_update().get(pk=thread.pk)
    closing = None
    if closing_body.strip():
        closing = comment_post(thread=thread, body=closing_body, actor=actor, acting_as=acting_as)
    now = timezone.now()
    thread.outcome, thread.resolved_at, thread.resolved_by = outcome, now, _author(actor, acting_as)
    thread.closing_comment_id = closing.pk if closing else None
    thread.save(update_fields=["outcome", "resolved_at", "resolved_by", "closing_comment_id"])
    comment_ids = [str(pk) for pk in thread.comments.values_list("pk", flat=True)]
    Notification.objects.filter(
        source_type="discussions.comment", source_id__in=comment_ids, resolved_at__isnull=True
    ).update(resolved_at=now)
    resolver = _author(actor, acting_as)
    for user in User.objects.filter(pk__in=_thread_participants(thread)).exclude(pk=resolver.pk):
        notification_send(
            recipient=user,
            actor=resolver,
            kind=NotificationKind.RESOLVED,
            context_label=str(thread),
            body=f"Resolved: {thread.get_outcome_display()}",
            url=_thread_url(thread),
            source=thread,
            # One per resolution: a thread reopened and resolved again notifies again.
            dedupe_key=f"resolved:{thread.pk}:{user.pk}:{now.isoformat()}",
        )
    audit_record(
        actor=actor,
        acting_as=acting_as,
        action="thread.resolve",
        entity=thread,
        key=thread.pk,
        detail={"outcome": outcome, "closing_comment": thread.closing_comment_id},
    )
    return thread


@transaction.atomic
def thread_reopen(*, thread: Thread, actor: User) -> Thread:
    _require_writer(thread, actor)
    thread = Thread.objects.select_for_update().get(pk=thread.pk)
    if thread.outcome is None:
        return thread
    old = thread.outcome
    thread.outcome = thread.resolved_at = thread.resolved_by = thread.closing_comment_id = None
    thread.save(update_fields=["outcome", "resolved_at", "resolved_by", "closing_comment_id"])
    audit_record(
        actor=actor, action="thread.reopen", entity=thread, key=thread.pk, detail={"was": old}
    )
    return thread


@transaction.atomic
def thread_archive(*, thread: Thread, actor: User, archived: bool = True) -> Thread:
    _require_writer(thread, actor)
    thread = Thread.objects.select_for_update().get(pk=thread.pk)
    if (thread.archived_at is not None) == archived:
        return thread
    thread.archived_at = timezone.now() if archived else None
    thread.archived_by = actor if archived else None
    thread.save(update_fields=["archived_at", "archived_by"])
    audit_record(
        actor=actor,
        action="thread.archive" if archived else "thread.unarchive",
        entity=thread,
        key=thread.pk,
    )
    return thread


# --- asks, acks, flags ---------------------------------------------------------------------


@transaction.atomic
def ask_create(
    *, thread: Thread, for_user: User, note: str, actor: User, kind: str = AskKind.RESPOND
) -> ThreadAsk:
    """Hand the thread to one person with a line saying what; they are notified. Both the
    asker and the person asked must be able to read the thread."""
    _require_writer(thread, actor)
    if not thread_readable(thread, for_user):
        raise ValidationError("That person may not read this thread.")
    note = note.strip()
    if not note:
        raise ValidationError({"note": "Say what you are asking."})
    if ThreadAsk.objects.filter(thread=thread, for_user=for_user, done_at__isnull=True).exists():
        raise ValidationError("That person already has an open ask on this thread.")
    ask = ThreadAsk.objects.create(
        thread=thread, for_user=for_user, by_user=actor, note=note, kind=kind
    )
    audit_record(
        actor=actor,
        action="ask.create",
        entity=ask,
        key=ask.pk,
        detail={"thread": thread.pk, "for": for_user.pk, "note": note},
    )
    if for_user.pk != actor.pk:
        notification_send(
            recipient=for_user,
            actor=actor,
            kind=NotificationKind.ASK,
            context_label=str(thread),
            body=note,
            url=_thread_url(thread),
            source=ask,
            dedupe_key=f"ask:{ask.pk}",
        )
    return ask


@transaction.atomic
def ask_done(*, ask: ThreadAsk, actor: User) -> ThreadAsk:
    ask = ThreadAsk.objects.select_for_update().get(pk=ask.pk)
    if ask.done_at is not None:
        return ask
    if actor.pk not in (ask.for_user_id, ask.by_user_id) and not is_moderator(actor):
        raise PermissionDenied("Only the person asked, the asker or a moderator can close this.")
    ask.done_at, ask.done_by = timezone.now(), actor
    ask.save(update_fields=["done_at", "done_by"])
    Notification.objects.filter(dedupe_key=f"ask:{ask.pk}").update(resolved_at=ask.done_at)
    audit_record(actor=actor, action="ask.done", entity=ask, key=ask.pk)
    return ask


@transaction.atomic
def comment_ack(*, comment: Comment, actor: User) -> CommentAck:
    """ "Got it": idempotent, one per person and comment; others see it, so it is a write."""
    _require_writer(comment.thread, actor)
    ack, created = CommentAck.objects.get_or_create(comment=comment, user=actor)
    if created:
        audit_record(actor=actor, action="comment.ack", entity=comment, key=comment.pk)
    return ack


@transaction.atomic
def comment_flag_set(*, comment: Comment, actor: User, flagged: bool) -> bool:
    """Set or clear the actor's own flag on a comment; returns whether it is now flagged."""
    if flagged:
        _, created = CommentFlag.objects.get_or_create(comment=comment, user=actor)
        changed = created
    else:
        changed = CommentFlag.objects.filter(comment=comment, user=actor).delete()[0] > 0
    if changed:
        audit_record(
            actor=actor,
            action="comment.flag" if flagged else "comment.unflag",
            entity=comment,
            key=comment.pk,
        )
    return flagged


# --- notifications and mail caps -----------------------------------------------------------


def notification_send(
    *,
    recipient: User,
    actor: User | None,
    kind: str,
    context_label: str,
    body: str,
    url: str,
    source: models.Model,
    dedupe_key: str,
) -> Notification | None:
    """Store one notification unless one with ``dedupe_key`` exists; returns the new row,
    or None when the event had already notified. Mail goes out after commit, only for the
    row actually created.
    """
    try:
        # A savepoint: a duplicate key fails only this insert, not the caller's transaction.
        # A concurrent sender of the same event waits on the unique index until the first
        # commits, then lands here too.
        with transaction.atomic():
            notification = Notification.objects.create(
                recipient=recipient,
                actor=actor,
                kind=kind,
                context_label=context_label[:200],
                body=body,
                url=url,
                source_type=source._meta.label_lower,
                source_id=str(source.pk),
                dedupe_key=dedupe_key,
            )
    except IntegrityError:
        return None
    # The mail is asked for in the notification's transaction (the outbox: sent after the
    # commit, or by the dispatcher when the broker is down).
    task_enqueue("discussions.deliver_notification_mail", args=[notification.pk])
    return notification


@transaction.atomic
def notification_mark_read(*, notification: Notification, actor: User) -> Notification:
    if notification.recipient_id != actor.pk:
        raise PermissionDenied("This is someone else's notification.")
    if notification.read_at is None:
        notification.read_at = timezone.now()
        Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(
            read_at=notification.read_at
        )
    return notification


@transaction.atomic
def notifications_mark_all_read(*, actor: User) -> int:
    return Notification.objects.for_recipient(actor).unread().update(read_at=timezone.now())


def notification_mail_deliver(*, notification_id: int) -> bool:
    """Mail one notification if its recipient wants mail and their cap has room; True if
    sent. The row's ``delivered_at`` says it went, so a retried task does not send twice."""
    with transaction.atomic():
        notification = (
            Notification.objects.select_for_update()
            .select_related("recipient")
            .filter(pk=notification_id, delivered_at__isnull=True)
            .first()
        )
        if notification is None or not notification.recipient.email:
            return False
        preference = AccountPreference.objects.filter(user=notification.recipient).first()
        if preference is not None and not preference.mail_notifications:
            return False
        if not email_send_reserve(bucket=f"notify:{notification.recipient_id}"):
            return False
        notification.delivered_at = timezone.now()
        notification.save(update_fields=["delivered_at"])
        link = f"{settings.SITE_URL.rstrip('/')}{notification.url}"
        send_mail(
            f"[omnium] {notification.get_kind_display()}: {notification.context_label}",
            f"{notification.body}\n\n{link}\n",
            None,
            [notification.recipient.email],
        )
    return True


# --- client surfaces -----------------------------------------------------------------------


@transaction.atomic
def feature_priority_set(*, feature_key: str, priority: str, actor: User) -> FeaturePriority:
    """Latest choice wins: one row per feature, overwritten by each new choice. The client
    (``is_client_owner``) ranks; nobody else."""
    if not is_client_owner(actor):
        raise PermissionDenied("Only the client ranks the features.")
    row = FeaturePriority.objects.select_for_update().filter(feature_key=feature_key).first()
    old = row.priority if row else None
    if row is None:
        row = FeaturePriority.objects.create(
            feature_key=feature_key, priority=priority, author=actor
        )
    elif row.priority != priority or row.author_id != actor.pk:
        row.priority, row.author = priority, actor
        row.save(update_fields=["priority", "author", "updated_at"])
    else:
        return row
    audit_record(
        actor=actor,
        action="feature_priority.set",
        entity=row,
        key=feature_key,
        detail={"priority": [old, priority]},
    )
    return row


@transaction.atomic
def quote_selection_set(*, item_key: str, included: bool, actor: User) -> QuoteSelection:
    """Latest choice wins: one row per quote line item. The client (``is_client_owner``)
    chooses; nobody else."""
    if not is_client_owner(actor):
        raise PermissionDenied("Only the client chooses the quote's lines.")
    row = QuoteSelection.objects.select_for_update().filter(item_key=item_key).first()
    old = row.included if row else None
    if row is None:
        row = QuoteSelection.objects.create(item_key=item_key, included=included, author=actor)
    elif row.included != included:
        row.included, row.author = included, actor
        row.save(update_fields=["included", "author", "updated_at"])
    else:
        return row
    audit_record(
        actor=actor,
        action="quote_selection.set",
        entity=row,
        key=item_key,
        detail={"included": [old, included]},
    )
    return row


@transaction.atomic
def quote_request_submit(
    *, lines: Iterable[dict[str, Any]], note: str, actor: User
) -> QuoteRequest:
    """Freeze the basket as it is now. Each line: ``item_key``, ``label``, ``quantity``,
    ``unit_usd``. Later changes to selections never touch a submitted request (the table
    refuses UPDATE by trigger)."""
    items = []
    total = Decimal("0")
    for number, line in enumerate(lines, start=1):
        try:
            quantity = int(line["quantity"])
            unit = Decimal(str(line["unit_usd"])).quantize(Decimal("0.01"))
            key = str(line["item_key"])
        except (KeyError, TypeError, ValueError, InvalidOperation) as error:
            raise ValidationError({"lines": f"Line {number} is incomplete: {error}"}) from error
        if quantity <= 0 or unit < 0:
            raise ValidationError({"lines": f"Line {number}: quantity and price must be positive."})
        items.append(
            {"item_key": key, "label": str(line.get("label", key)), "quantity": quantity,
             "unit_usd": str(unit)}
        )  # fmt: skip
        total += unit * quantity
    if not items:
        raise ValidationError({"lines": "The basket is empty."})
    request = QuoteRequest.objects.create(
        author=actor, note=note.strip(), items=items, total_usd=total
    )
    audit_record(
        actor=actor,
        action="quote_request.submit",
        entity=request,
        key=request.pk,
        detail={"lines": len(items), "total_usd": total},
    )
    return request


@transaction.atomic
def owner_item_state_set(
    *, item: DecisionItem, status: str, decision: str, actor: User
) -> OwnerItemState:
    """The owner's decision on a running-list item; the latest one wins."""
    if not is_client_owner(actor):
        raise PermissionDenied("Only the owner decides items.")
    if status not in ItemStatus.values:
        raise ValidationError({"status": "Unknown status."})
    state, _ = OwnerItemState.objects.select_for_update().get_or_create(item=item)
    old = (state.status, state.decision)
    if old == (status, decision):
        return state
    state.status, state.decision = status, decision
    state.acted_by, state.acted_at = actor, timezone.now()
    state.save()
    audit_record(
        actor=actor,
        action="owner_item_state.set",
        entity=item,
        key=item.pk,
        detail={"status": [old[0], status], "decision": decision},
    )
    return state


@transaction.atomic
def todo_complete(*, todo: ClientTodo, actor: User, done: bool = True) -> ClientTodo:
    """Mark a to-do done (or open again): its owner, or a moderator."""
    todo = ClientTodo.objects.select_for_update().get(pk=todo.pk)
    if todo.owner_id != actor.pk and not is_moderator(actor):
        raise PermissionDenied("Only the to-do's owner or a moderator can change it.")
    if (todo.status == TodoStatus.DONE) == done:
        return todo
    todo.status = TodoStatus.DONE if done else TodoStatus.OPEN
    todo.completed_by = actor if done else None
    todo.completed_at = timezone.now() if done else None
    todo.save(update_fields=["status", "completed_by", "completed_at"])
    audit_record(
        actor=actor, action="todo.complete" if done else "todo.reopen", entity=todo, key=todo.pk
    )
    return todo


# Uploads: what a client may hand in, by extension, with the bytes each must start with.
UPLOAD_TYPES: dict[str, tuple[str, tuple[bytes, ...]]] = {
    ".pdf": ("application/pdf", (b"%PDF-",)),
    ".png": ("image/png", (b"\x89PNG\r\n\x1a\n",)),
    ".jpg": ("image/jpeg", (b"\xff\xd8\xff",)),
    ".jpeg": ("image/jpeg", (b"\xff\xd8\xff",)),
    ".docx": (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        (b"PK\x03\x04",),
    ),
    ".xlsx": (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        (b"PK\x03\x04",),
    ),
    ".csv": ("text/csv", ()),
    ".txt": ("text/plain", ()),
    ".md": ("text/markdown", ()),
}


@transaction.atomic
def upload_add(
    *, todo: ClientTodo, file: UploadedFile[bytes], actor: User, note: str = ""
) -> ClientUpload:
    """Store a client's file privately after checking its size and that its type is one we
    accept (by extension and by its first bytes: a renamed executable is refused)."""
    from pathlib import PurePath

    if todo.owner_id != actor.pk and not is_moderator(actor):
        raise PermissionDenied("Only the to-do's owner or a moderator can add files to it.")
    if not todo.accepts_files:
        raise ValidationError("This to-do does not take files.")
    # Django gives every uploaded file a name and a size; a File built by hand may lack
    # either, and neither check below can be made without them.
    if file.name is None or file.size is None:
        raise ValidationError({"file": "The upload has no name or size."})
    if file.size > settings.CLIENT_UPLOAD_MAX_BYTES:
        raise ValidationError(
            {"file": f"Files are limited to {settings.CLIENT_UPLOAD_MAX_BYTES} bytes."}
        )
    name = PurePath(file.name).name
    suffix = PurePath(name).suffix.lower()
    if suffix not in UPLOAD_TYPES:
        raise ValidationError({"file": f"{suffix or 'This type'} files are not accepted."})
    content_type, signatures = UPLOAD_TYPES[suffix]
    head = file.read(16)
    file.seek(0)
    if signatures and not head.startswith(signatures):
        raise ValidationError({"file": "The file's content does not match its type."})
    if not signatures and b"\x00" in file.read(4096):
        raise ValidationError({"file": "A text file cannot contain binary data."})
    file.seek(0)
    upload = ClientUpload(
        todo=todo,
        original_name=name[:255],
        content_type=content_type,
        bytes=file.size,
        uploaded_by=actor,
        note=note,
    )
    upload.file.save(f"{upload.pk}{suffix}", file, save=False)
    upload.save()
    # If the transaction later rolls back, the file stays on disk with no row naming it;
    # nothing serves files except through a row, so it is unreachable, not exposed.
    audit_record(
        actor=actor,
        action="upload.add",
        entity=upload,
        key=upload.pk,
        detail={"todo": todo.pk, "name": name, "bytes": file.size},
    )
    return upload
