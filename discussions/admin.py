from __future__ import annotations

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse

from discussions import rights, services
from discussions.models import (
    Article,
    ClientTodo,
    ClientUpload,
    Comment,
    DecisionItem,
    FeaturePriority,
    Notification,
    QuoteRequest,
    QuoteSelection,
    Thread,
)
from omnium.console import (
    ReadableAdmin,
    ReadOnlyAdmin,
    confirm_page,
    confirmed_form,
    console_actor,
)


class CommentInline(admin.TabularInline):
    model = Comment
    fk_name = "thread"
    fields = ("created_at", "author", "body", "edited_at", "deleted_at", "moved_from_thread")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Thread)
class ThreadAdmin(ReadableAdmin, ReadOnlyAdmin):
    """Threads whose subject the person may read (``ThreadQuerySet.readable_by``)."""

    list_display = (
        "__str__",
        "subject_type",
        "created_at",
        "outcome",
        "followup_at",
        "archived_at",
    )
    list_filter = ("outcome", "subject_type", ("archived_at", admin.EmptyFieldListFilter))
    list_select_related = ("subject_type",)
    search_fields = ("label", "subject_id")
    inlines = (CommentInline,)


class MoveForm(forms.Form):
    to_thread = forms.ModelChoiceField(
        queryset=Thread.objects.filter(archived_at__isnull=True), label="Move to thread"
    )


@admin.register(Comment)
class CommentAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = ("created_at", "author", "thread", "edited_at", "deleted_at", "moved_at")
    list_filter = (("deleted_at", admin.EmptyFieldListFilter),)
    list_select_related = ("author", "thread")
    search_fields = ("body",)
    show_full_result_count = False
    actions = ("move",)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return rights.is_moderator(console_actor(request))

    @admin.action(description="Move to another thread", permissions=["moderate"])
    def move(self, request: HttpRequest, queryset) -> TemplateResponse | None:
        form = confirmed_form(request, MoveForm)
        if form.is_bound and form.is_valid():
            for comment in queryset:
                services.comment_move(
                    comment=comment,
                    to_thread=form.cleaned_data["to_thread"],
                    actor=console_actor(request),
                )
            self.message_user(request, f"{queryset.count()} comments moved.")
            return None
        return confirm_page(
            self, request, queryset, action="move", title="Move comments", form=form
        )


@admin.register(Notification)
class NotificationAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = ("created_at", "recipient", "kind", "context_label", "read_at", "delivered_at")
    list_filter = ("kind",)
    list_select_related = ("recipient",)
    show_full_result_count = False


@admin.register(DecisionItem)
class DecisionItemAdmin(admin.ModelAdmin):
    list_display = ("title", "theme", "needs_decision", "resolved", "sort_order")
    list_filter = ("theme", "needs_decision", "resolved")
    list_editable = ("sort_order",)
    search_fields = ("title",)


@admin.register(FeaturePriority)
class FeaturePriorityAdmin(ReadOnlyAdmin):
    list_display = ("feature_key", "priority", "author", "updated_at")
    list_select_related = ("author",)


@admin.register(QuoteSelection)
class QuoteSelectionAdmin(ReadOnlyAdmin):
    list_display = ("item_key", "included", "author", "updated_at")
    list_select_related = ("author",)


@admin.register(QuoteRequest)
class QuoteRequestAdmin(ReadableAdmin, ReadOnlyAdmin):
    list_display = ("created_at", "author", "total_usd")
    list_select_related = ("author",)
    readonly_fields = ("author", "note", "items", "total_usd", "created_at")


class UploadInline(admin.TabularInline):
    model = ClientUpload
    fields = ("original_name", "content_type", "bytes", "uploaded_by", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ClientTodo)
class ClientTodoAdmin(ReadableAdmin):
    list_display = ("title", "owner", "status", "due", "accepts_files")
    list_filter = ("status", "accepts_files")
    list_select_related = ("owner",)
    readonly_fields = ("status", "completed_by", "completed_at")
    inlines = (UploadInline,)
    actions = ("mark_done",)

    @admin.action(description="Mark done")
    def mark_done(self, request: HttpRequest, queryset) -> None:
        for todo in queryset:
            services.todo_complete(todo=todo, actor=console_actor(request))


class ArticleForm(forms.ModelForm):
    class Meta:
        model = Article
        fields = ("slug", "title", "standfirst", "kind", "airport_code", "category", "body_md")


@admin.register(Article)
class ArticleAdmin(ReadableAdmin):
    """Text is written through the same service as the importer; publishing is an action.
    Drafts are listed only for those who edit (``discussions.readable``)."""

    form = ArticleForm
    list_display = ("title", "kind", "status", "published_at", "updated_at")
    list_filter = ("status", "kind")
    search_fields = ("title", "slug")
    readonly_fields = ("status", "published_at", "author")
    actions = ("publish", "unpublish")

    def get_readonly_fields(self, request, obj=None):
        # The slug is the identity imports match on: fixed once the article exists.
        return (*self.readonly_fields, "slug") if obj else self.readonly_fields

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        article, _ = services.article_import(
            slug=obj.slug,
            title=data["title"],
            body_md=data["body_md"],
            standfirst=data.get("standfirst", ""),
            kind=data["kind"],
            airport_code=data.get("airport_code"),
            category=data.get("category"),
            actor=console_actor(request),
        )
        obj.pk = article.pk
        obj.refresh_from_db()

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description="Publish")
    def publish(self, request: HttpRequest, queryset) -> None:
        for article in queryset:
            services.article_publish(article=article, actor=console_actor(request))

    @admin.action(description="Return to draft")
    def unpublish(self, request: HttpRequest, queryset) -> None:
        for article in queryset:
            services.article_publish(article=article, actor=console_actor(request), published=False)
