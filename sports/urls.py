"""Public site pages of the sports app (mounted at the site root by omnium/urls.py)."""

from django.urls import path  # noqa: F401

app_name = "sports"

urlpatterns: list = []
