"""A batch's review page reads as a page: files with their matches and named problems, the
onboarding tasks, and no raw JSON above the "raw" disclosure."""

import pytest
from django.test import Client
from django.urls import reverse

from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.tests.batch_factories import BatchFactory, sample

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("batch_grants")]


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


def _page(user, batch) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("admin:ingest_batch_change", args=[batch.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _main_view(page: str) -> str:
    return page.split('<details class="raw">', 1)[0]


def test_each_file_shows_its_teams_dates_and_event(submitter, reviewer):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    main = _main_view(_page(reviewer, batch))
    assert "<strong>Sydney Thunder v Melbourne Stars</strong> · 2020-10-26" in main
    assert "Women&#x27;s Big Bash League" in main and "A new match" in main


def test_the_main_view_holds_no_raw_json(submitter, reviewer):
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    page = _page(reviewer, batch)
    main = _main_view(page)
    assert '<details class="raw">' in page
    assert "<pre>" not in main and "&quot;registry_id&quot;" not in main


def test_an_invalid_file_lists_its_problems_by_rule(submitter, reviewer):
    name, raw = sample("1226909")
    broken = raw.replace(b'"teams"', b'"sides"', 1)
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter, files=[(name, broken)]))
    item = batch.items.get()
    assert item.problems, "the broken file must fail validation"
    main = _main_view(_page(reviewer, batch))
    first = item.problems[0]
    assert f"<strong>{first['rule']}</strong>:" in main
    assert "problem" in main
