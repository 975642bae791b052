"""Public cricket statistics pages (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from cricket.stats import views

app_name = "cricket_stats"

urlpatterns = [
    path("cricket/players/<uuid:pk>/", views.player, name="player"),
    path("cricket/leaderboards/", views.leaderboards, name="leaderboards"),
]
