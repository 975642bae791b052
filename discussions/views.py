from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST, require_safe

from accounts.acting import request_actors
from accounts.models import AccountPreference, User
from accounts.services import preference_mail_set
from discussions import rights, services
from discussions.forms import AskForm, CommentForm, FollowupForm, ResolveForm
from discussions.markdown import render_markdown
from discussions.models import Article, ClientUpload, Comment, Notification, Thread, ThreadAsk
from omnium.auth import signed_in


@require_safe
def article_list(request: HttpRequest) -> HttpResponse:
    articles = (
        Article.objects.published()
        .filter(kind="article")
        .only("slug", "title", "standfirst", "published_at")
    )
    return render(request, "discussions/article_list.html", {"articles": articles})


@require_safe
def article_detail(request: HttpRequest, slug: str) -> HttpResponse:
    # published() even here: a draft is a 404 at its own address.
    article = get_object_or_404(Article.objects.published(), slug=slug)
    return render(
        request,
        "discussions/article_detail.html",
        {"article": article, "body_html": render_markdown(article.body_md)},
    )


@login_required
def notification_inbox(request: HttpRequest) -> HttpResponse:
    user: User = signed_in(request.user)
    if request.method == "POST":
        if request.POST.get("mail") in ("on", "off"):
            preference_mail_set(user=user, enabled=request.POST["mail"] == "on", actor=user)
        elif request.POST.get("all"):
            services.notifications_mark_all_read(actor=user)
        elif request.POST.get("notification"):
            notification = get_object_or_404(
                Notification, pk=request.POST["notification"], recipient=user
            )
            services.notification_mark_read(notification=notification, actor=user)
        return redirect("discussions:notification-inbox")
    notifications = Notification.objects.for_recipient(user).select_related("actor")[:100]
    return render(
        request,
        "discussions/notification_inbox.html",
        {
            "notifications": notifications,
            "unread": Notification.objects.for_recipient(user).unread().count(),
            "mail_on": AccountPreference.objects.filter(user=user, mail_notifications=False).first()
            is None,
        },
    )


# The panel's ops that write nothing others see: they need only the read right.
READING_OPS = frozenset({"read", "flag", "unflag"})


def _back(request: HttpRequest) -> HttpResponse:
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    return redirect(target)


@login_required
@require_POST
def panel_action(request: HttpRequest, type_id: int, subject_id: str) -> HttpResponse:
    """Every button of the discussion panel posts here with an ``op``; each op is one
    service call. The record is looked up through its model's reader: one the account may
    not read is a 404, as a missing one is. Marking read and one's own flags need only the
    read right; everything else is a write (the thread is created on the first)."""
    subject_type = get_object_or_404(ContentType, pk=type_id)
    me: User = signed_in(request.user)
    try:
        subject = rights.subject_find(subject_type=subject_type, subject_id=subject_id, user=me)
    except rights.NoSuchSubject as error:
        raise Http404 from error
    actors = request_actors(request)
    actor, acting_as = signed_in(actors["actor"]), actors["acting_as"]
    op = request.POST.get("op", "")
    thread = Thread.objects.for_subject(subject).first()
    if thread is None and op in READING_OPS:
        return _back(request)  # nothing to mark on a thread nobody has started
    try:
        if thread is None:
            thread = services.thread_open(subject=subject, actor=me)
        # One name for whichever form the op posts; each is only read as a plain Form.
        form: forms.Form
        if op == "comment":
            form = CommentForm(request.POST)
            if not form.is_valid():
                raise ValidationError(form.errors.as_text())
            services.comment_post(
                thread=thread, body=form.cleaned_data["body"], actor=actor, acting_as=acting_as
            )
        elif op in ("edit", "delete", "ack", "flag", "unflag"):
            comment = get_object_or_404(Comment, pk=request.POST.get("comment"), thread=thread)
            if op == "edit":
                form = CommentForm(request.POST)
                if not form.is_valid():
                    raise ValidationError(form.errors.as_text())
                services.comment_edit(
                    comment=comment,
                    body=form.cleaned_data["body"],
                    actor=actor,
                    acting_as=acting_as,
                )
            elif op == "delete":
                services.comment_delete(comment=comment, actor=actor, acting_as=acting_as)
            elif op == "ack":
                services.comment_ack(comment=comment, actor=me)
            else:
                services.comment_flag_set(comment=comment, actor=me, flagged=op == "flag")
        elif op == "ask":
            form = AskForm(request.POST)
            if not form.is_valid():
                raise ValidationError(form.errors.as_text())
            for_user = User.objects.filter(username=form.cleaned_data["for_username"]).first()
            if for_user is None:
                raise ValidationError("No account has that username.")
            services.ask_create(
                thread=thread,
                for_user=for_user,
                note=form.cleaned_data["note"],
                kind=form.cleaned_data["kind"],
                actor=me,
            )
        elif op == "ask_done":
            ask = get_object_or_404(ThreadAsk, pk=request.POST.get("ask"), thread=thread)
            services.ask_done(ask=ask, actor=me)
        elif op == "resolve":
            form = ResolveForm(request.POST)
            if not form.is_valid():
                raise ValidationError(form.errors.as_text())
            services.thread_resolve(
                thread=thread,
                outcome=form.cleaned_data["outcome"],
                closing_body=form.cleaned_data["closing_body"],
                actor=actor,
                acting_as=acting_as,
            )
        elif op == "reopen":
            services.thread_reopen(thread=thread, actor=me)
        elif op == "followup":
            form = FollowupForm(request.POST)
            if not form.is_valid():
                raise ValidationError(form.errors.as_text())
            services.thread_followup_set(thread=thread, note=form.cleaned_data["note"], actor=me)
        elif op == "followup_clear":
            services.thread_followup_clear(thread=thread, actor=me)
        elif op in ("archive", "unarchive"):
            services.thread_archive(thread=thread, actor=me, archived=op == "archive")
        elif op == "read":
            pass
        else:
            raise ValidationError(f"Unknown action {op!r}.")
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
    except PermissionDenied as error:
        messages.error(request, str(error) or "Not allowed.")
    else:
        if thread is not None:
            services.thread_read_mark(thread=thread, user=me)
    return _back(request)


@login_required
@require_safe
def upload_download(request: HttpRequest, pk: str) -> FileResponse:
    """Uploads are private: the to-do's owner and moderators may fetch them, nobody else."""
    upload = get_object_or_404(ClientUpload.objects.select_related("todo"), pk=pk)
    user: User = signed_in(request.user)
    if upload.todo.owner_id != user.pk and not rights.is_moderator(user):
        raise Http404
    return FileResponse(
        upload.file.open("rb"),
        as_attachment=True,
        filename=upload.original_name,
        content_type=upload.content_type,
    )
