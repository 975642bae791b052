"""API route of site search (mounted under /api/v1/ by omnium/urls.py)."""

from django.urls import path

from search.apis import SearchApi

urlpatterns = [path("search/", SearchApi.as_view(), name="search")]
