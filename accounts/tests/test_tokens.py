import re
from datetime import timedelta

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.models import AccountStatus, AccountToken, AuditEntry
from accounts.services import account_invite, account_token_redeem, password_reset_request

NEW_PASSWORD = "a much longer passphrase 9317"


def _link_token(message) -> str:
    return re.search(r"/account/link/([^/\s]+)/", message.body).group(1)


@pytest.fixture
def invited(admin_user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        user = account_invite(actor=admin_user, username="newbie", email="newbie@example.org")
    return user


def test_invite_creates_an_invited_account_recording_who_invited(invited, admin_user):
    assert invited.status == AccountStatus.INVITED
    assert invited.invited_by == admin_user
    assert not invited.has_usable_password()


def test_invite_mails_a_link_whose_token_is_stored_only_as_a_digest(invited):
    assert len(mail.outbox) == 1
    raw = _link_token(mail.outbox[0])
    stored = AccountToken.objects.get(user=invited)
    assert stored.token_hash != raw
    assert raw not in stored.token_hash
    assert len(stored.token_hash) == 64


def test_invite_mail_waits_for_the_commit(admin_user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        account_invite(actor=admin_user, username="later", email="later@example.org")
    assert mail.outbox == []
    assert len(callbacks) == 1


def test_welcome_token_sets_the_password_and_activates_the_account(invited):
    user = account_token_redeem(raw_token=_link_token(mail.outbox[0]), password=NEW_PASSWORD)
    user.refresh_from_db()
    assert user.status == AccountStatus.ACTIVE
    assert user.check_password(NEW_PASSWORD)


def test_a_token_works_only_once(invited):
    raw = _link_token(mail.outbox[0])
    account_token_redeem(raw_token=raw, password=NEW_PASSWORD)
    with pytest.raises(ValidationError):
        account_token_redeem(raw_token=raw, password="another fine passphrase 77")


def test_a_token_expires_after_48_hours(invited):
    raw = _link_token(mail.outbox[0])
    token = AccountToken.objects.get(user=invited)
    assert token.expires_at - token.created_at == timedelta(hours=48)
    AccountToken.objects.filter(pk=token.pk).update(
        created_at=timezone.now() - timedelta(hours=49),
        expires_at=timezone.now() - timedelta(hours=1),
    )
    with pytest.raises(ValidationError):
        account_token_redeem(raw_token=raw, password=NEW_PASSWORD)


def test_a_weak_password_is_refused_and_leaves_the_token_unspent(invited):
    raw = _link_token(mail.outbox[0])
    with pytest.raises(ValidationError):
        account_token_redeem(raw_token=raw, password="123")
    assert AccountToken.objects.get(user=invited).used_at is None


def test_reset_request_for_an_unknown_address_sends_nothing(db):
    assert password_reset_request(email="nobody@example.org") is None
    assert mail.outbox == []


def test_reset_link_page_sets_a_new_password(client, editor, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/account/reset/", {"email": editor.email.upper()})
    assert response.status_code == 200
    raw = _link_token(mail.outbox[0])
    response = client.post(
        f"/account/link/{raw}/", {"password": NEW_PASSWORD, "password_again": NEW_PASSWORD}
    )
    assert response.status_code == 302
    editor.refresh_from_db()
    assert editor.check_password(NEW_PASSWORD)
    assert client.get(f"/account/link/{raw}/").status_code == 404


def test_redeeming_a_token_is_audited(invited):
    account_token_redeem(raw_token=_link_token(mail.outbox[0]), password=NEW_PASSWORD)
    entry = AuditEntry.objects.get(action="account.password_set")
    assert entry.actor == invited
    assert entry.detail["via"] == "welcome"


def test_sign_in_mail_is_capped_per_account(settings, editor, django_capture_on_commit_callbacks):
    settings.AUTH_MAIL_CAP = 2
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(4):
            password_reset_request(email=editor.email)
    assert len(mail.outbox) == 2
    assert AccountToken.objects.filter(user=editor).count() == 2


def test_setting_a_password_spends_every_other_link(editor, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        password_reset_request(email=editor.email)
        password_reset_request(email=editor.email)
    first, second = (_link_token(message) for message in mail.outbox)
    account_token_redeem(raw_token=second, password=NEW_PASSWORD)
    with pytest.raises(ValidationError):
        account_token_redeem(raw_token=first, password="yet another passphrase 55")


def test_setting_a_password_signs_out_every_browser(client, editor):
    from accounts.models import AccountSession
    from accounts.services import account_token_issue
    from accounts.tests.factories import DEFAULT_PASSWORD

    client.post("/admin/login/", {"username": editor.username, "password": DEFAULT_PASSWORD})
    assert client.get("/admin/").status_code == 200
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            "accounts.services.tokens.secrets.token_urlsafe", lambda n: "known-token-value"
        )
        account_token_issue(user=editor, purpose="reset", actor=None)
    account_token_redeem(raw_token="known-token-value", password=NEW_PASSWORD)
    assert not AccountSession.objects.filter(user=editor).live().exists()
    assert client.get("/admin/").status_code == 302
