from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from discussions.markdown import render_markdown
from discussions.models import (
    Article,
    ClientTodo,
    ClientUpload,
    Comment,
    DecisionItem,
    FeaturePriority,
    Notification,
    OwnerItemState,
    QuoteRequest,
    QuoteSelection,
    Thread,
)


class AccountRefSerializer(serializers.Serializer):
    id = serializers.UUIDField(read_only=True)
    username = serializers.CharField(read_only=True)
    display_name = serializers.CharField(read_only=True)


class ThreadSerializer(serializers.ModelSerializer):
    subject_type = serializers.SerializerMethodField()
    unread_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Thread
        fields = (
            "id",
            "subject_type",
            "subject_id",
            "label",
            "created_at",
            "outcome",
            "resolved_at",
            "closing_comment_id",
            "followup_note",
            "followup_at",
            "archived_at",
            "unread_count",
        )
        read_only_fields = fields

    def get_subject_type(self, thread: Thread) -> str:
        return f"{thread.subject_type.app_label}.{thread.subject_type.model}"


class ThreadInputSerializer(serializers.Serializer):
    subject_type = serializers.RegexField(r"^[a-z_0-9]+\.[a-z_0-9]+$")
    subject_id = serializers.CharField(max_length=64)


class CommentSerializer(serializers.ModelSerializer):
    author = AccountRefSerializer(read_only=True)
    body = serializers.SerializerMethodField()
    deleted = serializers.SerializerMethodField()

    class Meta:
        model = Comment
        fields = (
            "id",
            "thread",
            "author",
            "body",
            "created_at",
            "edited_at",
            "deleted",
            "deleted_at",
            "moved_from_thread",
            "moved_at",
        )
        read_only_fields = fields

    def get_body(self, comment: Comment) -> str | None:
        # A tombstone keeps its place in the thread but never its words.
        return None if comment.is_deleted else comment.body

    def get_deleted(self, comment: Comment) -> bool:
        return comment.is_deleted


@extend_schema_field(OpenApiTypes.UUID)
class ReadableThreadField(serializers.PrimaryKeyRelatedField):
    """A thread the writer may read, looked up when the input is validated (never when the
    serializer is built: schema generation builds it with no request and no database)."""

    def get_queryset(self):
        request = self.context.get("request")
        return Thread.objects.readable_by(getattr(request, "user", None))


class CommentCreateSerializer(serializers.Serializer):
    """A thread the writer may not read is refused as one that does not exist."""

    thread = ReadableThreadField()
    body = serializers.CharField(max_length=10_000)


class CommentEditSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=10_000)


class NotificationSerializer(serializers.ModelSerializer):
    actor = AccountRefSerializer(read_only=True)

    class Meta:
        model = Notification
        fields = (
            "id",
            "kind",
            "actor",
            "context_label",
            "body",
            "url",
            "source_type",
            "source_id",
            "read_at",
            "resolved_at",
            "created_at",
        )
        read_only_fields = fields


class FeaturePrioritySerializer(serializers.ModelSerializer):
    class Meta:
        model = FeaturePriority
        fields = ("feature_key", "priority", "updated_at")
        read_only_fields = ("updated_at",)
        # The key is an upsert target here, not a unique row to refuse twice.
        extra_kwargs: dict[str, dict[str, Any]] = {"feature_key": {"validators": []}}


class QuoteSelectionSerializer(serializers.ModelSerializer):
    class Meta:
        model = QuoteSelection
        fields = ("item_key", "included", "updated_at")
        read_only_fields = ("updated_at",)
        extra_kwargs: dict[str, dict[str, Any]] = {"item_key": {"validators": []}}


class QuoteLineSerializer(serializers.Serializer):
    item_key = serializers.CharField(max_length=100)
    # The stubs type Field.label (a field's caption) on Serializer too, so a field named
    # "label" reads as overriding it; DRF keeps declared fields apart from that attribute.
    label = serializers.CharField(max_length=200, required=False)  # type: ignore[assignment]
    quantity = serializers.IntegerField(min_value=1)
    unit_usd = serializers.DecimalField(max_digits=10, decimal_places=2, min_value=0)


class QuoteRequestInputSerializer(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, default="")
    lines = QuoteLineSerializer(many=True)


class QuoteRequestSerializer(serializers.ModelSerializer):
    class Meta:
        model = QuoteRequest
        fields = ("id", "note", "items", "total_usd", "created_at")
        read_only_fields = fields


class OwnerItemStateSerializer(serializers.ModelSerializer):
    class Meta:
        model = OwnerItemState
        fields = ("status", "decision", "acted_at")
        read_only_fields = ("acted_at",)


class DecisionItemSerializer(serializers.ModelSerializer):
    owner_state = OwnerItemStateSerializer(read_only=True)

    class Meta:
        model = DecisionItem
        fields = (
            "id",
            "title",
            "note",
            "reality",
            "recommendation",
            "theme",
            "needs_decision",
            "resolved",
            "sort_order",
            "owner_state",
        )
        read_only_fields = fields


class ClientUploadSerializer(serializers.ModelSerializer):
    class Meta:
        model = ClientUpload
        fields = ("id", "original_name", "content_type", "bytes", "note", "created_at")
        read_only_fields = fields


class ClientTodoSerializer(serializers.ModelSerializer):
    uploads = ClientUploadSerializer(many=True, read_only=True)

    class Meta:
        model = ClientTodo
        fields = (
            "id",
            "title",
            "detail",
            "accepts_files",
            "due",
            "status",
            "completed_at",
            "uploads",
        )
        read_only_fields = fields


class UploadInputSerializer(serializers.Serializer):
    file = serializers.FileField()
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class ArticleSerializer(serializers.ModelSerializer):
    body_html = serializers.SerializerMethodField()

    class Meta:
        model = Article
        fields = (
            "slug",
            "title",
            "standfirst",
            "kind",
            "airport_code",
            "category",
            "published_at",
            "body_md",
            "body_html",
        )
        read_only_fields = fields

    def get_body_html(self, article: Article) -> str:
        # The same renderer as the site's page: the two can never disagree.
        return str(render_markdown(article.body_md))
