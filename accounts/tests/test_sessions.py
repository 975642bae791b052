import hashlib

import pytest
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.models import AccountSession, AccountStatus
from accounts.services import account_status_set, session_revoke
from accounts.tests.factories import DEFAULT_PASSWORD


def _sign_in(client, user):
    response = client.post(
        "/admin/login/?next=/admin/", {"username": user.username, "password": DEFAULT_PASSWORD}
    )
    assert response.status_code == 302
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.mark.django_db
def test_the_session_table_keeps_only_a_digest_of_the_cookie(client, editor):
    cookie = _sign_in(client, editor)
    session = AccountSession.objects.get(user=editor, revoked_at__isnull=True)
    assert session.key_digest == hashlib.sha256(cookie.encode()).hexdigest()
    assert not AccountSession.objects.filter(key_digest=cookie).exists()
    assert cookie not in session.session_data


@pytest.mark.django_db
def test_a_revoked_session_is_signed_out_on_its_next_request(client, editor, admin_user):
    _sign_in(client, editor)
    assert client.get("/admin/").status_code == 200
    session = AccountSession.objects.get(user=editor, revoked_at__isnull=True)
    session_revoke(session=session, actor=admin_user, reason="laptop stolen")
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


@pytest.mark.django_db
def test_revocation_keeps_who_revoked_and_why(client, editor, admin_user):
    _sign_in(client, editor)
    session = AccountSession.objects.get(user=editor, revoked_at__isnull=True)
    session_revoke(session=session, actor=admin_user, reason="laptop stolen")
    session.refresh_from_db()
    assert (session.revoked_by, session.revoke_reason) == (admin_user, "laptop stolen")
    assert session.revoked_at is not None


@pytest.mark.django_db
def test_revoking_needs_a_reason(client, editor, admin_user):
    _sign_in(client, editor)
    session = AccountSession.objects.get(user=editor, revoked_at__isnull=True)
    with pytest.raises(ValidationError):
        session_revoke(session=session, actor=admin_user, reason="  ")


@pytest.mark.django_db
def test_signing_out_keeps_the_session_row_as_revoked(client, editor):
    _sign_in(client, editor)
    client.post("/admin/logout/")
    assert AccountSession.objects.filter(user=editor).count() == 1
    assert AccountSession.objects.get(user=editor).revoked_at is not None


@pytest.mark.django_db
def test_disabling_an_account_revokes_its_sessions(client, editor, admin_user):
    _sign_in(client, editor)
    account_status_set(user=editor, status=AccountStatus.DISABLED, actor=admin_user)
    assert not AccountSession.objects.filter(user=editor).live().exists()
    assert client.get("/admin/").status_code == 302


@pytest.mark.django_db
def test_admin_revoke_action_asks_for_a_reason_then_revokes(client, editor, admin_user):
    _sign_in(client, editor)
    session = AccountSession.objects.get(user=editor, revoked_at__isnull=True)
    admin_client = client.__class__()
    admin_client.force_login(admin_user)
    url = "/admin/accounts/accountsession/"
    page = admin_client.post(url, {"action": "revoke", "_selected_action": [session.pk]})
    assert page.status_code == 200
    assert "reason" in page.content.decode()
    admin_client.post(
        url,
        {
            "action": "revoke",
            "_selected_action": [session.pk],
            "confirm": "yes",
            "reason": "left the company",
        },
    )
    session.refresh_from_db()
    assert session.revoke_reason == "left the company"


@pytest.mark.django_db
def test_only_administrators_can_revoke_from_the_console(client, editor, reviewer):
    from django.contrib.auth.models import Permission
    from django.test import Client

    _sign_in(Client(), reviewer)
    session = AccountSession.objects.get(user=reviewer, revoked_at__isnull=True)
    editor.user_permissions.add(Permission.objects.get(codename="view_accountsession"))
    client.force_login(editor)
    client.post(
        "/admin/accounts/accountsession/",
        {"action": "revoke", "_selected_action": [session.pk], "confirm": "yes", "reason": "x"},
    )
    session.refresh_from_db()
    assert session.revoked_at is None


@pytest.mark.django_db
def test_a_person_can_sign_out_their_other_browser(editor):
    from django.test import Client

    laptop, phone = Client(), Client()
    _sign_in(laptop, editor)
    phone_cookie = _sign_in(phone, editor)
    phone_digest = hashlib.sha256(phone_cookie.encode()).hexdigest()
    page = laptop.get("/account/sessions/").content.decode()
    # One other session offers its sign-out (the header's own sign-out is another form).
    assert page.count('<button name="session"') == 1
    laptop.post("/account/sessions/", {"session": phone_digest})
    assert AccountSession.objects.get(key_digest=phone_digest).revoked_by == editor
    assert phone.get("/admin/").status_code == 302
    assert laptop.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_nobody_revokes_someone_elses_session(client, editor, reviewer):
    _sign_in(client, reviewer)
    session = AccountSession.objects.get(user=reviewer, revoked_at__isnull=True)
    with pytest.raises(PermissionDenied):
        session_revoke(session=session, actor=editor, reason="mischief")


@pytest.mark.django_db
def test_session_change_page_renders_without_the_key(client, editor, admin_user):
    from django.test import Client

    cookie = _sign_in(Client(), editor)
    session = AccountSession.objects.get(user=editor, revoked_at__isnull=True)
    client.force_login(admin_user)
    page = client.get(f"/admin/accounts/accountsession/{session.pk}/change/")
    assert page.status_code == 200
    assert cookie not in page.content.decode()
