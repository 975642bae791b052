"""The search results page (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from search import views

app_name = "search"

urlpatterns = [path("search/", views.results, name="results")]
