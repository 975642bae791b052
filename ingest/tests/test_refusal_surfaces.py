"""A refused submission or review says which rule refused it and what to do, in the same
words on every surface: the console's message, the command line's error and the API's
403 all carry the one text ``ingest.batches.permissions`` writes."""

import base64
import html
from datetime import UTC, datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.access import competition_grant_set
from accounts.models import Role, TokenPurpose
from accounts.services import account_invite
from accounts.tests.factories import StaffFactory
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.permissions import review_refusal, submit_batches_refusal, submit_refusal
from ingest.tests.batch_factories import SAMPLES, SMALL, BatchFactory, sample
from sports.tests.factories import CompetitionFactory

pytestmark = pytest.mark.django_db
API = "/api/v1/batches/"
QUEUE = reverse("admin:ingest_batch_changelist")


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


@pytest.fixture
def sub1():
    """An invited submitter who has not used the welcome link sent on 30 Nov."""
    inviter = StaffFactory(username="inviter", role=Role.ADMIN, is_superuser=True)
    invited = account_invite(
        actor=inviter, username="sub1", email="sub1@example.org", role=Role.SUBMITTER
    )
    sent = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    invited.tokens.filter(purpose=TokenPurpose.WELCOME).update(created_at=sent)
    return invited


INVITED = (
    "sub1 may not submit batches: sub1 has not accepted the invitation sent on 30 Nov 2026; "
    "resend it from Accounts (Users, action 'Resend the welcome link')"
)


def test_the_invitation_refusal_names_the_rule_and_the_remedy(sub1):
    assert submit_batches_refusal(sub1) == INVITED


def test_the_command_line_refuses_an_invited_submitter_in_those_words(sub1):
    with pytest.raises(CommandError) as refused:
        call_command(
            "submit_batch", str(SAMPLES / f"{SMALL[0]}.json"), "--as", "sub1",
            stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    assert str(refused.value) == INVITED


def test_the_api_refuses_an_invited_submitter_in_those_words(sub1):
    client = APIClient()
    client.force_authenticate(sub1)
    name, raw = sample(SMALL[0])
    body = {"files": [{"name": name, "content_base64": base64.b64encode(raw).decode()}]}
    response = client.post(API, body, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert (response.status_code, response.data["message"]) == (403, INVITED)


@pytest.fixture
def own_batch(editor):
    return services.batch_validate(batch=BatchFactory(submitter=editor))


def test_the_own_batch_refusal_names_the_rule_and_the_remedy(editor, own_batch):
    assert review_refusal(editor, own_batch) == (
        f"editor submitted batch {own_batch.pk}, and a submitter cannot review their own "
        "batch; another reviewer of its competition decides it"
    )


def test_the_console_refuses_reviewing_ones_own_batch_in_those_words(editor, own_batch):
    client = Client()
    client.force_login(editor)
    response = client.post(
        QUEUE,
        {"action": "approve", "_selected_action": [str(own_batch.pk)], "confirm": "yes",
         "reason": "mine"},
        follow=True,
    )  # fmt: skip
    shown = [html.unescape(str(m)) for m in response.context["messages"]]
    assert shown == [f"{own_batch}: {review_refusal(editor, own_batch)}"]


def test_the_command_line_refuses_reviewing_ones_own_batch_in_those_words(editor, own_batch):
    with pytest.raises(CommandError) as refused:
        call_command(
            "review_batch", str(own_batch.pk), "--approve", "--reason", "mine", "--as", "editor"
        )
    assert str(refused.value) == review_refusal(editor, own_batch)


def test_the_api_refuses_reviewing_ones_own_batch_in_those_words(editor, own_batch):
    client = APIClient()
    client.force_authenticate(editor)
    response = client.post(
        f"{API}{own_batch.pk}/decision/", {"approve": True, "reason": "mine"}, format="json"
    )
    assert (response.status_code, response.data["message"]) == (
        403,
        review_refusal(editor, own_batch),
    )


def test_a_submitter_outside_their_grants_is_told_where_to_ask_for_access(submitter):
    competition = CompetitionFactory(code="far-cup", name="Far Cup")
    competition_grant_set(
        user=submitter, competition=CompetitionFactory(), role=Role.SUBMITTER, actor=None
    )
    assert submit_refusal(submitter, competition) == (
        "submitter may not submit for Far Cup (far-cup): no grant of theirs covers it; "
        "submitter can ask for access on /account/access/ (an administrator decides), or an "
        "administrator can grant it in Accounts (Account grants)"
    )
