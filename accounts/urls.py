"""Public site pages of the accounts app (mounted at the site root by omnium/urls.py)."""

from django.urls import path  # noqa: F401

app_name = "accounts"

urlpatterns: list = []
