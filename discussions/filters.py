from __future__ import annotations

import django_filters

from discussions.models import Article, Comment, Notification, Thread


class ThreadFilter(django_filters.FilterSet):
    subject_type = django_filters.CharFilter(method="filter_subject_type")
    subject_id = django_filters.CharFilter()
    outcome = django_filters.CharFilter()
    open = django_filters.BooleanFilter(field_name="outcome", lookup_expr="isnull")
    archived = django_filters.BooleanFilter(
        field_name="archived_at", lookup_expr="isnull", exclude=True
    )

    class Meta:
        model = Thread
        fields = ("subject_type", "subject_id", "outcome", "open", "archived")

    def filter_subject_type(self, queryset, name, value):
        app_label, _, model = value.partition(".")
        return queryset.filter(subject_type__app_label=app_label, subject_type__model=model)


class CommentFilter(django_filters.FilterSet):
    class Meta:
        model = Comment
        fields = ("thread",)


class NotificationFilter(django_filters.FilterSet):
    unread = django_filters.BooleanFilter(field_name="read_at", lookup_expr="isnull")

    class Meta:
        model = Notification
        fields = ("kind", "unread")


class ArticleFilter(django_filters.FilterSet):
    airport_code = django_filters.CharFilter(method="filter_airport")

    class Meta:
        model = Article
        fields = ("kind", "category", "airport_code")

    def filter_airport(self, queryset, name, value):
        return queryset.filter(airport_code=value.upper())
