"""Account deletion by tombstone: personal data gone, credentials dead, provenance intact."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, ProgrammingError, transaction
from django.test import Client
from django.utils import timezone

from accounts.access import (
    access_request_create,
    account_tombstone,
    competition_grant_set,
)
from accounts.models import (
    AccessEvent,
    AccessHistory,
    AccessRequestStatus,
    AccountGrant,
    AccountSession,
    AccountStatus,
    AccountToken,
    AuditEntry,
    RevokedSubject,
    Role,
    User,
)
from accounts.services import account_invite, account_token_issue, api_key_authenticate
from accounts.subjects import subject_digest, subject_revoked
from accounts.tests.factories import DEFAULT_PASSWORD, StaffFactory
from sports.models import Submission, SubmissionKind
from sports.services import competition_create, submission_record
from sports.tests.factories import FootballFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def league():
    return competition_create(
        code="lg", name="League", type="league", sport=FootballFactory(), actor="t"
    )


@pytest.fixture
def signed_in(submitter):
    """A browser signed in as the submitter (a real session row)."""
    client = Client()
    client.force_login(submitter)
    return client


def test_the_row_stays_and_personal_data_is_gone(admin_user, submitter):
    old_username, old_email = submitter.username, submitter.email
    account_tombstone(user=submitter, actor=admin_user, reason="asked to be forgotten")
    row = User.objects.get(pk=submitter.pk)
    assert row.username.startswith("deleted-") and old_username not in row.username
    assert (row.display_name, row.first_name, row.last_name, row.email) == ("", "", "", "")
    assert row.tombstoned_at is not None
    assert not row.has_usable_password()
    assert (row.status, row.is_active, row.role) == (AccountStatus.DISABLED, False, Role.VIEWER)
    assert RevokedSubject.objects.filter(digest=subject_digest(old_email)).exists()
    assert subject_revoked(old_username)


def test_tombstone_usernames_are_random(admin_user, submitter, viewer):
    account_tombstone(user=submitter, actor=admin_user, reason="x")
    account_tombstone(user=viewer, actor=admin_user, reason="x")
    submitter.refresh_from_db()
    viewer.refresh_from_db()
    assert submitter.username != viewer.username


def test_provenance_still_resolves_to_the_account(admin_user, submitter):
    submission = submission_record(
        kind=SubmissionKind.BATCH, source_code="batch", actor=submitter, accepted=False
    )
    account_tombstone(user=submitter, actor=admin_user, reason="x")
    submission = Submission.objects.select_related("submitted_by").get(pk=submission.pk)
    assert submission.submitted_by.pk == submitter.pk
    assert submission.submitted_by.tombstoned_at is not None


def test_every_live_session_is_revoked(admin_user, submitter, signed_in):
    assert AccountSession.objects.filter(user=submitter).live().exists()
    account_tombstone(user=submitter, actor=admin_user, reason="x")
    assert not AccountSession.objects.filter(user=submitter).live().exists()
    assert not signed_in.get("/account/sessions/").wsgi_request.user.is_authenticated


def test_every_api_key_is_revoked(admin_user, viewer, issued_key):
    _key, plaintext = issued_key
    assert api_key_authenticate(presented=plaintext) is not None
    account_tombstone(user=viewer, actor=admin_user, reason="x")
    issued_key[0].refresh_from_db()
    assert issued_key[0].revoked_at is not None
    assert api_key_authenticate(presented=plaintext) is None


def test_every_unused_reset_link_is_spent(admin_user, viewer):
    account_token_issue(user=viewer, purpose="reset", actor=None)
    account_tombstone(user=viewer, actor=admin_user, reason="x")
    assert not AccountToken.objects.filter(user=viewer, used_at__isnull=True).exists()


def test_grants_and_pending_requests_end_with_history(admin_user, submitter, league):
    competition_grant_set(user=submitter, competition=league, role=Role.SUBMITTER, actor=admin_user)
    cup = competition_create(code="cup", name="Cup", type="cup", sport=league.sport, actor="t")
    request = access_request_create(user=submitter, competition=cup, actor=submitter)
    account_tombstone(user=submitter, actor=admin_user, reason="left the club")
    request.refresh_from_db()
    assert request.status == AccessRequestStatus.WITHDRAWN
    assert not AccountGrant.objects.filter(user=submitter).exists()
    events = set(AccessHistory.objects.filter(user=submitter).values_list("event", flat=True))
    assert {AccessEvent.REVOKED, AccessEvent.WITHDRAWN, AccessEvent.TOMBSTONED} <= events


def test_the_old_login_is_refused_and_cannot_be_reused(admin_user):
    person = StaffFactory(username="gone", email="gone@example.org", role=Role.EDITOR)
    account_tombstone(user=person, actor=admin_user, reason="x")
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": "gone", "password": DEFAULT_PASSWORD},
        REMOTE_ADDR="203.0.113.5",
        HTTP_USER_AGENT="Mozilla/5.0 (TestAgent 1.0)",
    )
    assert not response.context["user"].is_authenticated
    with pytest.raises(ValidationError, match="deleted account"):
        account_invite(actor=admin_user, username="gone", email="new@example.org")
    with pytest.raises(ValidationError, match="deleted account"):
        account_invite(actor=admin_user, username="other", email="GONE@example.org")


def test_the_marker_is_one_way(admin_user, viewer):
    account_tombstone(user=viewer, actor=admin_user, reason="x")
    with pytest.raises(ProgrammingError), transaction.atomic():
        User.objects.filter(pk=viewer.pk).update(tombstoned_at=None)
    with pytest.raises(ProgrammingError), transaction.atomic():
        RevokedSubject.objects.all().delete()


def test_a_tombstoned_row_cannot_be_reactivated(admin_user, viewer):
    account_tombstone(user=viewer, actor=admin_user, reason="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(pk=viewer.pk).update(
            status=AccountStatus.ACTIVE, disabled_at=None, is_active=True
        )


def test_deleting_twice_changes_nothing(admin_user, viewer):
    first = account_tombstone(user=viewer, actor=admin_user, reason="x")
    again = account_tombstone(user=viewer, actor=admin_user, reason="again")
    assert first.username == again.username
    assert AccessHistory.objects.filter(event=AccessEvent.TOMBSTONED).count() == 1


def test_a_person_may_delete_their_own_account_grants_and_all(admin_user, submitter, league):
    competition_grant_set(user=submitter, competition=league, role=Role.SUBMITTER, actor=admin_user)
    account_tombstone(user=submitter, actor=submitter, reason="leaving")
    submitter.refresh_from_db()
    assert submitter.tombstoned_at is not None
    assert not AccountGrant.objects.filter(user=submitter).exists()
    revoked = AccessHistory.objects.get(event=AccessEvent.REVOKED)
    assert (revoked.actor, revoked.competition) == (submitter, league)


@pytest.mark.parametrize("persona", ["editor", "reviewer", "submitter"])
def test_nobody_but_an_administrator_deletes_someone_else(request, persona, outsider):
    with pytest.raises(PermissionDenied):
        account_tombstone(user=outsider, actor=request.getfixturevalue(persona), reason="x")
    outsider.refresh_from_db()
    assert outsider.tombstoned_at is None


def test_a_deletion_needs_a_reason(admin_user, viewer):
    with pytest.raises(ValidationError):
        account_tombstone(user=viewer, actor=admin_user, reason="  ")


def test_the_audit_row_holds_no_personal_data(admin_user, viewer):
    email, username = viewer.email, viewer.username
    account_tombstone(user=viewer, actor=admin_user, reason="asked")
    entry = AuditEntry.objects.get(action="account.tombstone")
    assert email not in str(entry.detail) and username not in str(entry.detail)


def test_the_console_action_tombstones_with_a_reason(client, admin_user, viewer):
    client.force_login(admin_user)
    page = client.post(
        "/admin/accounts/user/", {"action": "tombstone", "_selected_action": [viewer.pk]}
    )
    assert b"reason" in page.content
    viewer.refresh_from_db()
    assert viewer.tombstoned_at is None  # nothing happens before the reason is confirmed
    client.post(
        "/admin/accounts/user/",
        {
            "action": "tombstone",
            "_selected_action": [viewer.pk],
            "confirm": "yes",
            "reason": "asked to be forgotten",
        },
    )
    viewer.refresh_from_db()
    assert viewer.tombstoned_at is not None
    entry = AccessHistory.objects.get(event=AccessEvent.TOMBSTONED)
    assert (entry.actor, entry.reason) == (admin_user, "asked to be forgotten")
    assert entry.at <= timezone.now()
