"""Public site pages of the sports app (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from sports import views

app_name = "sports"

urlpatterns = [
    path("competitions/", views.competition_list, name="competition-list"),
    path("competitions/<uuid:pk>/", views.competition_detail, name="competition-detail"),
    path("competitions/<uuid:pk>/medals/", views.medal_table, name="medal-table"),
    path("competitions/<uuid:pk>/standings/", views.standings, name="standings"),
    path("fixtures/<uuid:pk>/", views.fixture_detail, name="fixture-detail"),
    path("participants/<uuid:pk>/", views.participant_detail, name="participant-detail"),
    path("venues/<uuid:pk>/", views.venue_detail, name="venue-detail"),
]
