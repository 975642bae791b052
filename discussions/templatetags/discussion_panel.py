from __future__ import annotations

from django import template
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Exists, OuterRef, Prefetch
from django.urls import reverse
from django.utils.http import urlencode

from discussions.forms import AskForm, CommentForm, FollowupForm, ResolveForm
from discussions.models import Comment, CommentAck, CommentFlag, Thread, ThreadAsk
from discussions.rights import may_write
from omnium.readable import readable

register = template.Library()


@register.inclusion_tag("discussions/panel.html", takes_context=True)
def discussion_panel(context, subject):
    """The discussion beside a record on its admin change page. Reading only: the thread is
    created by the first action, and the read mark moves by a POST the page sends on open.
    Shown only to those who may read the record by its model's reader (the console's own
    page may be open to more than that)."""
    request = context["request"]
    user = request.user
    subject_type = ContentType.objects.get_for_model(subject)
    if not readable(type(subject)._default_manager.filter(pk=subject.pk), user).exists():
        return {"readable": False}
    comments = (
        Comment.objects.select_related("author", "moved_from_thread")
        .annotate(
            ack_count=Count("acks"),
            acked_by_me=Exists(CommentAck.objects.filter(comment=OuterRef("pk"), user=user)),
            flagged_by_me=Exists(CommentFlag.objects.filter(comment=OuterRef("pk"), user=user)),
        )
        .order_by("created_at", "id")
    )
    thread = (
        Thread.objects.filter(subject_type=subject_type, subject_id=str(subject.pk))
        .with_unread_count(user)
        .select_related("followup_by", "resolved_by", "archived_by")
        .prefetch_related(
            Prefetch("comments", queryset=comments),
            Prefetch(
                "asks",
                queryset=ThreadAsk.objects.filter(done_at__isnull=True).select_related(
                    "for_user", "by_user"
                ),
                to_attr="open_asks",
            ),
        )
        .first()
    )
    return {
        "readable": True,
        "may_write": may_write(user),
        "thread": thread,
        "comments": thread.comments.all() if thread else [],
        "action_url": reverse(
            "discussions:panel-action",
            kwargs={"type_id": subject_type.pk, "subject_id": subject.pk},
        ),
        "next": request.get_full_path(),
        "user": user,
        "comment_form": CommentForm(),
        "ask_form": AskForm(),
        "resolve_form": ResolveForm(),
        "followup_form": FollowupForm(),
        "csrf_token": context.get("csrf_token"),
        "audit_url": reverse("admin:accounts_auditentry_changelist")
        + "?"
        + urlencode({"entity_type": subject._meta.label_lower, "entity_key": str(subject.pk)}),
    }
