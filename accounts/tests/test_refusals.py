"""A refusal names the rule that refused and what to do about it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.access import account_refusal, capability_refusal
from accounts.models import AccountStatus, Capability, Role, TokenPurpose
from accounts.services import account_invite
from accounts.tests.factories import StaffFactory, UserFactory

pytestmark = pytest.mark.django_db


def _invite(username: str = "sub1"):
    inviter = StaffFactory(username="inviter", role=Role.ADMIN, is_superuser=True)
    invited = account_invite(
        actor=inviter, username=username, email=f"{username}@example.org", role=Role.SUBMITTER
    )
    sent = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    invited.tokens.filter(purpose=TokenPurpose.WELCOME).update(created_at=sent)
    return invited


def test_an_invited_account_is_told_when_its_invitation_was_sent_and_how_to_resend_it():
    invited = _invite()
    assert account_refusal(invited) == (
        "sub1 has not accepted the invitation sent on 30 Nov 2026; resend it from Accounts "
        "(Users, action 'Resend the welcome link')"
    )


def test_an_invited_submitter_is_refused_submitting_for_the_invitation_not_the_role():
    refusal = capability_refusal(_invite(), Capability.SUBMIT)
    assert refusal.startswith("sub1 has not accepted the invitation sent on 30 Nov 2026")


def test_a_disabled_account_is_told_it_was_disabled_and_by_whom_it_can_be_enabled():
    account = UserFactory(
        username="gone",
        status=AccountStatus.DISABLED,
        disabled_at=datetime(2026, 11, 2, tzinfo=UTC),
    )
    assert account_refusal(account) == (
        "gone's account was disabled on 02 Nov 2026; an administrator can enable it in Accounts"
    )


def test_a_viewer_is_told_which_roles_may_submit():
    refusal = capability_refusal(UserFactory(role=Role.VIEWER), Capability.SUBMIT)
    assert refusal.startswith("the viewer role may not submit match data (roles that may: ")
    assert "submitter" in refusal and "an administrator can change the role" in refusal


def test_a_submitter_without_grants_is_told_to_ask_for_one():
    account = UserFactory(username="nogrant", role=Role.SUBMITTER)
    assert capability_refusal(account, Capability.SUBMIT) == (
        "nogrant holds no competition grant to submit match data; an administrator can grant "
        "one in Accounts (Account grants)"
    )


def test_an_editor_is_refused_nothing():
    assert capability_refusal(StaffFactory(role=Role.EDITOR), Capability.REVIEW) == ""


def test_nobody_signed_in_is_told_to_sign_in():
    assert account_refusal(AnonymousUser()) == "nobody is signed in; sign in first"
