"""Public cricket statistics pages (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from cricket.stats import views

app_name = "cricket_stats"

urlpatterns = [
    path("cricket/players/<uuid:pk>/", views.player, name="player"),
    path("cricket/players/<uuid:pk>/trace/", views.figure_trace, name="trace"),
    path("cricket/leaderboards/", views.leaderboards, name="leaderboards"),
]
