"""Every list endpoint in the URLconf follows the paging conventions (docs/api.md): one of
the project's paging classes at the shared sizes (default 50, at most 200, over it a 400
naming the limit), the shared filter vocabulary, and a row in docs/api.md's table of lists.

The lists are found by walking the URLconf and the schema (``omnium.api_lists``), so a new
list endpoint is checked the day it is mounted: an unpaged list, a private page size or a
synonym of a shared parameter fails here with what to change.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from omnium.api_lists import (
    STYLES,
    TABLE_END,
    TABLE_START,
    document_with_table,
    list_endpoints,
    markdown_table,
)
from omnium.pagination import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from omnium.testing import REPO_ROOT

DOCUMENT, LISTS = list_endpoints()
BY_PATH = {e.path: e for e in LISTS}
PAGED = [e.path for e in LISTS if e.style != "whole"]
# Lists a client can call without naming a record in the path: checked by calling them.
CALLABLE = [path for path in PAGED if "{" not in path]

# Public reads a client can call without naming a record or a required parameter: their
# cache headers are checked by calling them.
PUBLIC_READS = sorted(
    path
    for path, item in DOCUMENT["paths"].items()
    if item.get("get", {}).get("security") == []
    and "{" not in path
    and not any(p.get("required") for p in item["get"].get("parameters", []))
)

# A name another list might use for a shared parameter, and the shared name (docs/api.md).
# One of these may stay on a list only while it is deprecated (marked so in the schema).
SYNONYMS = {
    "search": "q",
    "query": "q",
    "name": "q",
    "text": "q",
    "sport_code": "sport",
    "competition_id": "competition",
    "node": "competition",
    "from": "date_from",
    "to": "date_to",
    "start": "date_from",
    "end": "date_to",
    "after": "date_from",
    "before": "date_to",
    "since": "date_from",
    "until": "date_to",
    "order": "ordering",
    "order_by": "ordering",
    "sort": "ordering",
    "limit": "page_size",
    "per_page": "page_size",
    "offset": "cursor",
    "match_type": "format",
}

FIX = (
    "Give the view a paging class from omnium.pagination: StableCursorPagination (the "
    "default of every generic view; a keyset order via cursor_ordering), "
    "PositionCursorPagination for a list computed with LIMIT/OFFSET (an ApiView with "
    "pagination_class), or CountedPagePagination for a small table with a cheap count. If "
    'the list is small and fixed by nature, set small_fixed_list = "<why>" on the view '
    "instead (see docs/api.md, Paging)."
)


def test_the_walk_finds_the_lists():
    # The walk is only worth something if it sees the lists it is meant to guard.
    assert {
        "/api/v1/fixtures/",
        "/api/v1/cricket/leaderboards/batting/",
        "/api/v1/products/",
        "/api/v1/cricket/releases/",
        "/api/v1/cricket/stats/batting/",
    } <= set(BY_PATH)
    assert "/api/v1/fixtures/{id}/" not in BY_PATH


@pytest.mark.parametrize("path", list(BY_PATH))
def test_every_list_pages_with_a_project_class_at_the_shared_sizes(path):
    endpoint = BY_PATH[path]
    where = f"GET {path} ({endpoint.view})"
    if endpoint.paginator is None:
        assert endpoint.small_fixed_list, f"{where} answers a list without paging. {FIX}"
        return
    assert type(endpoint.paginator) in STYLES, (
        f"{where} pages with {type(endpoint.paginator).__name__}, not one of the project's "
        f"classes. {FIX} Do not subclass one to change its sizes."
    )
    assert (endpoint.default_size, endpoint.max_size) == (DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE), (
        f"{where} pages {endpoint.default_size} rows by default and at most "
        f"{endpoint.max_size}: every list uses default {DEFAULT_PAGE_SIZE}, maximum "
        f"{MAX_PAGE_SIZE} (remove the page_size/max_page_size override)."
    )


@pytest.mark.parametrize("path", PAGED)
def test_every_paged_list_documents_its_page_size_limit(path):
    parameters = {p["name"]: p for p in DOCUMENT["paths"][path]["get"]["parameters"]}
    where = f"GET {path} ({BY_PATH[path].view})"
    assert "cursor" in parameters or "page" in parameters, f"{where} documents no cursor/page"
    assert "page_size" in parameters, f"{where} documents no page_size"
    schema = parameters["page_size"]["schema"]
    assert (schema.get("minimum"), schema.get("maximum"), schema.get("default")) == (
        1,
        MAX_PAGE_SIZE,
        DEFAULT_PAGE_SIZE,
    ), (
        f"{where} documents page_size as {schema}: let the paginator document it (a "
        "computed list: an ApiView with pagination_class; no hand-written page_size "
        "parameter)."
    )


@pytest.mark.parametrize("path", list(BY_PATH))
def test_every_list_speaks_the_shared_vocabulary(path):
    endpoint = BY_PATH[path]
    wrong = {
        name: SYNONYMS[name]
        for name in endpoint.parameters
        if name in SYNONYMS and name not in endpoint.deprecated
    }
    assert not wrong, (
        f"GET {path} ({endpoint.view}) names shared parameters its own way: "
        + ", ".join(f"{old!r} should be {new!r}" for old, new in wrong.items())
        + " (docs/api.md, Query parameters). To keep an old name working, accept both and "
        "start the old one's help text with 'Deprecated' (the schema then marks it)."
    )


@pytest.fixture
def staff(db):
    # An administrator may read every list (releases, candidates, batches, the queue).
    from accounts.tests.factories import StaffFactory

    client = APIClient(REMOTE_ADDR="192.0.2.20")
    client.force_authenticate(StaffFactory(username="lists-admin", role="admin", is_superuser=True))
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("path", CALLABLE)
def test_every_list_refuses_a_page_size_over_the_limit_naming_it(path, staff):
    response = staff.get(path, {"page_size": MAX_PAGE_SIZE + 1})
    where = f"GET {path}?page_size={MAX_PAGE_SIZE + 1} ({BY_PATH[path].view})"
    assert response.status_code == 400, (
        f"{where} answered {response.status_code}: a page size over the limit is a 400 "
        "(page through omnium.pagination; a computed list calls paginator.window)."
    )
    body = response.json()
    assert [e.get("parameter") for e in body["errors"]] == ["page_size"], body
    assert str(MAX_PAGE_SIZE) in body["message"], body
    assert staff.get(path, {"page_size": MAX_PAGE_SIZE}).status_code == 200, where


@pytest.mark.django_db
@pytest.mark.parametrize("path", CALLABLE)
def test_every_list_refuses_an_unknown_parameter_naming_it(path, staff):
    response = staff.get(path, {"colour": "red"})
    assert response.status_code == 400, (
        f"GET {path}?colour=red ({BY_PATH[path].view}) answered {response.status_code}: an "
        "unknown parameter is a 400 naming it (omnium.filters.StrictFilterBackend for a "
        "generic list, omnium.apis.ApiView for any other)."
    )
    assert [(e.get("parameter"), e["code"]) for e in response.json()["errors"]] == [
        ("colour", "unknown")
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("path", PUBLIC_READS)
def test_every_public_read_is_cacheable_and_varies_on_credentials(path, staff):
    anonymous = APIClient(REMOTE_ADDR="192.0.2.21").get(path)
    signed_in = staff.get(path)
    where = f"GET {path}"
    assert anonymous.status_code == signed_in.status_code == 200, where
    assert anonymous["Cache-Control"] == "public, max-age=60", where
    assert signed_in["Cache-Control"] == "private, no-cache", where
    for response in (anonymous, signed_in):
        vary = {v.strip() for v in response["Vary"].split(",")}
        assert {"Accept", "Authorization", "Cookie"} <= vary, where


def test_the_table_of_lists_in_the_docs_matches_the_urlconf():
    docs = REPO_ROOT / "docs" / "api.md"
    text = docs.read_text()
    assert TABLE_START in text and TABLE_END in text, f"{docs} lost its table markers"
    assert document_with_table(text, markdown_table(LISTS)) == text, (
        "docs/api.md's table of lists is out of date with the URLconf: run `make api-lists` "
        "and commit docs/api.md."
    )
    assert len(re.findall(r"^\| `GET ", text, flags=re.M)) == len(LISTS)


def test_the_shared_sizes_are_the_settings_default():
    assert settings.REST_FRAMEWORK["PAGE_SIZE"] == DEFAULT_PAGE_SIZE
