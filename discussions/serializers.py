from __future__ import annotations

from rest_framework import serializers

from discussions.models import Comment, Notification, Thread


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


class CommentCreateSerializer(serializers.Serializer):
    thread = serializers.PrimaryKeyRelatedField(queryset=Thread.objects.all())
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
