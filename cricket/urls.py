"""Public cricket pages (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from cricket import views

app_name = "cricket"

urlpatterns = [
    path("cricket/fixtures/<uuid:pk>/", views.scorecard, name="scorecard"),
]
