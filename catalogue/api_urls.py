"""API routes of the catalogue app (mounted under /api/v1/ by omnium/urls.py)."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
