"""The console's statistic lines and their provenance trace pages: the same chain as the
API, for reviewers within their competitions, editors and administrators."""

import hashlib
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.access import account_tombstone, competition_grant_set
from accounts.models import Role
from cricket.stats.models import CricketBowlingLine, CricketFieldingLine
from cricket.tests.factories import seed_dismissal_kinds
from ingest.storage import stored_objects_expire
from ingest.tests.batch_factories import SMALL, sample
from ingest.tests.provenance_factories import (
    NASH_MATCHES,
    NASH_REGISTRY_ID,
    REASON,
    participant_of,
    published_batch,
    reviewer_without_grants,
    top_batting_line,
)
from sports.services import competition_create
from sports.tests.factories import FootballFactory

pytestmark = pytest.mark.django_db
BATTING = reverse("admin:cricket_cricketbattingline_changelist")


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


@pytest.fixture
def scoped(db):
    return reviewer_without_grants()


@pytest.fixture
def line(submitter, reviewer):
    batch = published_batch(submitter=submitter, reviewer=reviewer, match_ids=[SMALL[0]])
    return top_batting_line(batch.items.get().fixture_id)


def _console(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _trace_page(line, figure="runs") -> str:
    return reverse("admin:cricket_provenance_line", args=["batting", line.pk]) + f"?figure={figure}"


def test_the_batting_lines_list_links_each_figure_to_its_trace(
    editor, line, django_assert_max_num_queries
):
    client = _console(editor)
    with django_assert_max_num_queries(12):
        response = client.get(BATTING)
    assert response.status_code == 200
    assert _trace_page(line).replace("&", "&amp;") in response.content.decode()


@pytest.mark.parametrize("model", [CricketBowlingLine, CricketFieldingLine])
def test_the_bowling_and_fielding_lists_open(model, editor, line):
    name = model._meta.model_name
    assert _console(editor).get(reverse(f"admin:cricket_{name}_changelist")).status_code == 200


def test_a_line_page_links_its_figures_and_the_career_traces(editor, line):
    response = _console(editor).get(
        reverse("admin:cricket_cricketbattingline_change", args=[line.pk])
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "balls faced" in page
    assert reverse("admin:cricket_provenance_player", args=[line.participant_id]) in page


def test_the_trace_page_shows_the_chain_to_the_reviewer(editor, submitter, line):
    response = _console(editor).get(_trace_page(line))
    page = response.content.decode()
    assert response.status_code == 200
    assert hashlib.sha256(sample(SMALL[0])[1]).hexdigest() in page
    assert str(submitter) in page
    assert REASON in page
    assert "bytes kept until" in page
    assert reverse("admin:cricket_delivery_changelist") in page  # each ball links its page


def test_the_trace_page_shows_expired_bytes_and_a_deleted_submitter(editor, submitter, line):
    stored_objects_expire(now=timezone.now() + timedelta(days=10_000))
    account_tombstone(user=submitter, actor=None, reason="asked for the account to be deleted")
    page = _console(editor).get(_trace_page(line)).content.decode()
    assert "bytes expired" in page
    assert "deleted account" in page
    assert hashlib.sha256(sample(SMALL[0])[1]).hexdigest() in page


def test_the_career_trace_page_pages_by_fixture(editor, submitter, reviewer):
    published_batch(submitter=submitter, reviewer=reviewer, match_ids=NASH_MATCHES)
    nash = participant_of(NASH_REGISTRY_ID)
    url = reverse("admin:cricket_provenance_player", args=[nash.pk])
    response = _console(editor).get(url, {"figure": "runs", "fixtures": 1})
    page = response.content.decode()
    assert response.status_code == 200
    assert "Next fixtures" in page
    assert "2 fixture(s) in all" in page


def test_a_bad_figure_is_shown_as_an_error(editor, line):
    page = _console(editor).get(_trace_page(line, figure="wickets")).content.decode()
    assert "figures are" in page


@pytest.mark.parametrize("persona", ["viewer", "submitter"])
def test_people_who_do_not_review_cannot_open_a_trace(persona, request, line):
    user = request.getfixturevalue(persona)
    user.is_staff = True  # even with console access, the role decides
    user.save()
    client = _console(user)
    assert client.get(_trace_page(line)).status_code == 403
    assert client.get(BATTING).status_code == 403


def test_a_reviewer_without_a_grant_on_the_competition_cannot_open_its_trace(
    scoped, admin_user, line
):
    other = competition_create(
        code="other", name="Other", type="league", sport=FootballFactory(), actor="t"
    )
    competition_grant_set(user=scoped, competition=other, role=Role.REVIEWER, actor=admin_user)
    client = _console(scoped)
    assert client.get(_trace_page(line)).status_code == 403
    assert line.participant.name not in client.get(BATTING).content.decode()


def test_a_reviewer_granted_the_competition_opens_its_trace(scoped, admin_user, line):
    competition_grant_set(
        user=scoped, competition=line.competition, role=Role.REVIEWER, actor=admin_user
    )
    client = _console(scoped)
    assert client.get(_trace_page(line)).status_code == 200
    assert line.participant.name in client.get(BATTING).content.decode()
