"""Public cricket statistics pages (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from cricket.stats import board_views, records_views, views

app_name = "cricket_stats"

urlpatterns = [
    path("cricket/players/<uuid:pk>/", views.player, name="player"),
    path("cricket/players/<uuid:pk>/trace/", views.figure_trace, name="trace"),
    path("cricket/leaderboards/", board_views.leaderboards, name="leaderboards"),
    path("cricket/records/", records_views.records_index, name="records"),
    path("cricket/records/<slug:kind>/", records_views.record, name="record"),
]
