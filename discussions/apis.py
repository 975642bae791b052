"""API for discussions: reads through read-only viewsets, writes as input serializer →
service → output serializer. Every route needs a signed-in account.

Threads and comments are listed, fetched and written only where their subject may be read
(``ThreadQuerySet.readable_by``, the subject model's reader): a thread or a record someone
may not read is "not found", the same answer as one that does not exist."""

from __future__ import annotations

from typing import TypedDict

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.acting import request_actors
from accounts.models import User
from discussions import rights, services
from discussions.filters import ArticleFilter, CommentFilter, NotificationFilter, ThreadFilter
from discussions.models import (
    Article,
    ClientTodo,
    Comment,
    DecisionItem,
    FeaturePriority,
    Notification,
    QuoteRequest,
    QuoteSelection,
    Thread,
)
from discussions.serializers import (
    ArticleSerializer,
    ClientTodoSerializer,
    ClientUploadSerializer,
    CommentCreateSerializer,
    CommentEditSerializer,
    CommentSerializer,
    DecisionItemSerializer,
    FeaturePrioritySerializer,
    NotificationSerializer,
    OwnerItemStateSerializer,
    QuoteRequestInputSerializer,
    QuoteRequestSerializer,
    QuoteSelectionSerializer,
    ThreadInputSerializer,
    ThreadSerializer,
    UploadInputSerializer,
)
from omnium.auth import signed_in
from omnium.pagination import CountedPagePagination


class _Writers(TypedDict):
    actor: User
    acting_as: User | None


def _writers(request: Request) -> _Writers:
    """Who writes a comment: the person at the keyboard and whom they act as (if anyone).
    Every route here requires a signed-in account, so the actor is one."""
    actors = request_actors(request)
    return {"actor": signed_in(actors["actor"]), "acting_as": actors["acting_as"]}


class ThreadViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ThreadSerializer
    permission_classes = (IsAuthenticated,)
    filterset_class = ThreadFilter
    cursor_ordering = ("-pk",)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Thread.objects.none()
        return (
            Thread.objects.readable_by(self.request.user)
            .select_related("subject_type")
            .with_unread_count(self.request.user)
            .order_by("-pk")
        )

    @extend_schema(request=ThreadInputSerializer, responses=ThreadSerializer)
    def create(self, request: Request) -> Response:
        """The thread of a record (``app_label.model`` + key), created on first use: for
        those who may read the record and write (a record one may not read answers as a
        missing one does)."""
        data = ThreadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user: User = signed_in(request.user)
        subject = rights.subject_find(
            subject_type=data.validated_data["subject_type"],
            subject_id=data.validated_data["subject_id"],
            user=user,
        )
        thread = services.thread_open(subject=subject, actor=user)
        thread = self.get_queryset().get(pk=thread.pk)
        return Response(ThreadSerializer(thread).data, status=status.HTTP_200_OK)

    @extend_schema(request=None, responses=ThreadSerializer)
    @action(detail=True, methods=["post"])
    def read(self, request: Request, pk=None) -> Response:
        """Opening a thread: move the caller's read mark to now."""
        thread = self.get_object()
        services.thread_read_mark(thread=thread, user=signed_in(request.user))
        return Response(ThreadSerializer(self.get_queryset().get(pk=thread.pk)).data)


class CommentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = CommentSerializer
    permission_classes = (IsAuthenticated,)
    filterset_class = CommentFilter
    cursor_ordering = ("pk",)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Comment.objects.none()
        return (
            Comment.objects.readable_by(self.request.user).select_related("author").order_by("pk")
        )

    @extend_schema(request=CommentCreateSerializer, responses={201: CommentSerializer})
    def create(self, request: Request) -> Response:
        data = CommentCreateSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        comment = services.comment_post(
            thread=data.validated_data["thread"],
            body=data.validated_data["body"],
            **_writers(request),
        )
        return Response(CommentSerializer(comment).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=CommentEditSerializer, responses=CommentSerializer)
    def partial_update(self, request: Request, pk=None) -> Response:
        """Edit a comment: its author, or a moderator."""
        data = CommentEditSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        comment = services.comment_edit(
            comment=self.get_object(),
            body=data.validated_data["body"],
            **_writers(request),
        )
        return Response(CommentSerializer(comment).data)

    @extend_schema(request=None, responses={204: None})
    def destroy(self, request: Request, pk=None) -> Response:
        """Soft delete: the comment stays as a tombstone."""
        services.comment_delete(comment=self.get_object(), **_writers(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class NotificationViewSet(viewsets.ReadOnlyModelViewSet):
    """The signed-in account's own notifications, newest first."""

    serializer_class = NotificationSerializer
    permission_classes = (IsAuthenticated,)
    filterset_class = NotificationFilter
    cursor_ordering = ("-pk",)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Notification.objects.none()
        return Notification.objects.for_recipient(self.request.user).select_related("actor")

    @extend_schema(request=None, responses=NotificationSerializer)
    @action(detail=True, methods=["post"])
    def read(self, request: Request, pk=None) -> Response:
        notification = services.notification_mark_read(
            notification=self.get_object(), actor=signed_in(request.user)
        )
        return Response(NotificationSerializer(notification).data)

    @extend_schema(request=None, responses={200: None})
    @action(detail=False, methods=["post"], url_path="read-all")
    def read_all(self, request: Request) -> Response:
        marked = services.notifications_mark_all_read(actor=signed_in(request.user))
        return Response({"marked": marked})


class FeaturePriorityViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """The client's feature ranking; POST sets one feature's priority (latest wins)."""

    pagination_class = CountedPagePagination  # a short list per account
    serializer_class = FeaturePrioritySerializer
    permission_classes = (IsAuthenticated,)
    queryset = FeaturePriority.objects.order_by("feature_key")

    @extend_schema(request=FeaturePrioritySerializer, responses={200: FeaturePrioritySerializer})
    def create(self, request: Request) -> Response:
        data = FeaturePrioritySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = services.feature_priority_set(**data.validated_data, actor=signed_in(request.user))
        return Response(FeaturePrioritySerializer(row).data)


class QuoteSelectionViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Yes/no per quote line item; POST sets one (latest wins)."""

    pagination_class = CountedPagePagination  # a short list per account
    serializer_class = QuoteSelectionSerializer
    permission_classes = (IsAuthenticated,)
    queryset = QuoteSelection.objects.order_by("item_key")

    @extend_schema(request=QuoteSelectionSerializer, responses={200: QuoteSelectionSerializer})
    def create(self, request: Request) -> Response:
        data = QuoteSelectionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = services.quote_selection_set(**data.validated_data, actor=signed_in(request.user))
        return Response(QuoteSelectionSerializer(row).data)


class QuoteRequestViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """The signed-in account's submitted quote requests; POST freezes a basket."""

    serializer_class = QuoteRequestSerializer
    permission_classes = (IsAuthenticated,)
    cursor_ordering = ("-pk",)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return QuoteRequest.objects.none()
        return QuoteRequest.objects.filter(author=self.request.user)

    @extend_schema(request=QuoteRequestInputSerializer, responses={201: QuoteRequestSerializer})
    def create(self, request: Request) -> Response:
        data = QuoteRequestInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        quote = services.quote_request_submit(
            lines=data.validated_data["lines"],
            note=data.validated_data["note"],
            actor=signed_in(request.user),
        )
        return Response(QuoteRequestSerializer(quote).data, status=status.HTTP_201_CREATED)


class DecisionItemViewSet(viewsets.ReadOnlyModelViewSet):
    pagination_class = CountedPagePagination  # a short list per account
    serializer_class = DecisionItemSerializer
    permission_classes = (IsAuthenticated,)
    queryset = DecisionItem.objects.select_related("owner_state").order_by("sort_order", "pk")

    @extend_schema(request=OwnerItemStateSerializer, responses=DecisionItemSerializer)
    @action(detail=True, methods=["post"])
    def state(self, request: Request, pk=None) -> Response:
        """The owner's decision on this item (administrators); the latest one wins."""
        user: User = signed_in(request.user)
        data = OwnerItemStateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = self.get_object()
        services.owner_item_state_set(
            item=item,
            status=data.validated_data["status"],
            decision=data.validated_data.get("decision", ""),
            actor=user,
        )
        return Response(DecisionItemSerializer(self.get_queryset().get(pk=item.pk)).data)


class ClientTodoViewSet(viewsets.ReadOnlyModelViewSet):
    """The signed-in account's to-dos, with their uploads."""

    pagination_class = CountedPagePagination  # a short list per account
    serializer_class = ClientTodoSerializer
    permission_classes = (IsAuthenticated,)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return ClientTodo.objects.none()
        return ClientTodo.objects.filter(owner=self.request.user).prefetch_related("uploads")

    @extend_schema(request=None, responses=ClientTodoSerializer)
    @action(detail=True, methods=["post"])
    def complete(self, request: Request, pk=None) -> Response:
        todo = services.todo_complete(todo=self.get_object(), actor=signed_in(request.user))
        return Response(ClientTodoSerializer(self.get_queryset().get(pk=todo.pk)).data)

    @extend_schema(request=UploadInputSerializer, responses={201: ClientUploadSerializer})
    @action(detail=True, methods=["post"], parser_classes=(MultiPartParser,))
    def uploads(self, request: Request, pk=None) -> Response:
        data = UploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = services.upload_add(
            todo=self.get_object(),
            file=data.validated_data["file"],
            note=data.validated_data["note"],
            actor=signed_in(request.user),
        )
        return Response(ClientUploadSerializer(upload).data, status=status.HTTP_201_CREATED)


class ArticleViewSet(viewsets.ReadOnlyModelViewSet):
    """Published articles only: a draft is a 404 here as on the site."""

    serializer_class = ArticleSerializer
    permission_classes = (AllowAny,)
    filterset_class = ArticleFilter
    cursor_ordering = ("-published_at", "slug")
    lookup_field = "slug"
    queryset = Article.objects.published().order_by("-published_at", "slug")
