"""Public site pages of the discussions app (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from discussions import views

app_name = "discussions"

urlpatterns = [
    path("articles/", views.article_list, name="article-list"),
    path("articles/<slug:slug>/", views.article_detail, name="article-detail"),
    path("notifications/", views.notification_inbox, name="notification-inbox"),
    path(
        "discussions/<int:type_id>/<str:subject_id>/",
        views.panel_action,
        name="panel-action",
    ),
    path("discussions/uploads/<uuid:pk>/", views.upload_download, name="upload-download"),
]
