import pytest
from axes.models import AccessAttempt
from django.test import Client

from accounts.models import AccountStatus
from accounts.tests.factories import DEFAULT_PASSWORD, StaffFactory

CLIENT_ADDRESS = "203.0.113.77"


def _attempt(client, user, password):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": user.username, "password": password},
        REMOTE_ADDR=CLIENT_ADDRESS,
        HTTP_USER_AGENT="Mozilla/5.0 (TestAgent 1.0)",
    )


@pytest.mark.django_db
def test_a_disabled_account_cannot_sign_in(client):
    user = StaffFactory(status=AccountStatus.ACTIVE)
    user.status = AccountStatus.DISABLED
    user.disabled_at = user.date_joined
    user.save()
    response = _attempt(client, user, DEFAULT_PASSWORD)
    assert response.status_code == 200
    assert not response.context["user"].is_authenticated


@pytest.mark.django_db
def test_an_invited_account_cannot_sign_in_before_its_welcome_link(client):
    user = StaffFactory(status=AccountStatus.INVITED)
    response = _attempt(client, user, DEFAULT_PASSWORD)
    assert not response.context["user"].is_authenticated


@pytest.mark.django_db
def test_repeated_failures_lock_the_account_out_even_with_the_right_password(settings, editor):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _attempt(client, editor, "wrong password")
    response = _attempt(client, editor, DEFAULT_PASSWORD)
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_fewer_failures_than_the_limit_do_not_lock(settings, editor):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _attempt(client, editor, "wrong password")
    assert _attempt(client, editor, DEFAULT_PASSWORD).status_code == 302


@pytest.mark.django_db
def test_lockout_stores_neither_the_address_nor_the_user_agent(editor):
    client = Client()
    _attempt(client, editor, "wrong password")
    attempt = AccessAttempt.objects.get()
    assert attempt.ip_address != CLIENT_ADDRESS
    assert attempt.ip_address.startswith("2001:db8:")
    assert attempt.user_agent == ""
    stored = " ".join(str(v) for v in AccessAttempt.objects.values_list().get())
    assert CLIENT_ADDRESS not in stored
    assert "TestAgent" not in stored


@pytest.mark.django_db
def test_lockout_is_per_client(settings, editor):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _attempt(Client(), editor, "wrong password")
    other = Client().post(
        "/admin/login/?next=/admin/",
        {"username": editor.username, "password": DEFAULT_PASSWORD},
        REMOTE_ADDR="198.51.100.5",
    )
    assert other.status_code == 302


def test_the_lockout_key_depends_on_the_server_key(settings, rf):
    from accounts.lockout import lockout_client_key

    request = rf.get("/", REMOTE_ADDR=CLIENT_ADDRESS)
    settings.CLIENT_HASH_KEY = "one key"
    first = lockout_client_key(request)
    settings.CLIENT_HASH_KEY = "another key"
    assert lockout_client_key(request) != first
    assert lockout_client_key(rf.get("/", REMOTE_ADDR=CLIENT_ADDRESS)) == lockout_client_key(
        request
    )
