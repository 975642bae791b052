from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from accounts.authentication import ApiKeyAuthentication
from accounts.models import AccountStatus, ApiConsumerStatus, ApiKey, AuditEntry
from accounts.services import (
    api_consumer_change,
    api_consumer_create,
    api_key_digest,
    api_key_issue,
    api_key_revoke,
)

pytestmark = pytest.mark.django_db


def _client_with(plaintext: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {plaintext}")
    return client


def _authenticate(plaintext: str):
    request = Request(APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Api-Key {plaintext}"))
    return ApiKeyAuthentication().authenticate(request)


def test_a_key_authenticates_as_the_consumers_owning_account(issued_key, consumer):
    key, plaintext = issued_key
    user, auth = _authenticate(plaintext)
    assert user == consumer.owner
    assert auth == key


def test_the_plaintext_is_stored_nowhere(issued_key):
    key, plaintext = issued_key
    prefix, secret = plaintext.split(".", 1)
    stored = ApiKey.objects.get(pk=key.pk)
    assert stored.prefix == prefix
    assert stored.secret_hash == api_key_digest(secret)
    assert secret not in str(list(ApiKey.objects.values()))
    assert secret not in str(list(AuditEntry.objects.values()))


def test_a_wrong_secret_with_a_real_prefix_gets_401(issued_key):
    prefix = issued_key[1].split(".", 1)[0]
    response = _client_with(f"{prefix}.not-the-secret").get("/api/v1/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Api-Key"


def test_a_revoked_key_gets_401(issued_key, admin_user):
    key, plaintext = issued_key
    assert _client_with(plaintext).get("/api/v1/").status_code == 200
    api_key_revoke(key=key, actor=admin_user, reason="leaked in a public repository")
    assert _client_with(plaintext).get("/api/v1/").status_code == 401


def test_an_expired_key_gets_401(consumer, admin_user, monkeypatch):
    now = timezone.now()
    _key, plaintext = api_key_issue(
        consumer=consumer, actor=admin_user, expires_at=now + timedelta(hours=1)
    )
    assert _client_with(plaintext).get("/api/v1/").status_code == 200
    monkeypatch.setattr(timezone, "now", lambda: now + timedelta(hours=1))
    assert _client_with(plaintext).get("/api/v1/").status_code == 401


def test_a_suspended_consumers_keys_get_401(issued_key, consumer, admin_user):
    api_consumer_change(consumer=consumer, actor=admin_user, status=ApiConsumerStatus.SUSPENDED)
    assert _client_with(issued_key[1]).get("/api/v1/").status_code == 401


def test_a_disabled_owners_keys_get_401(issued_key, consumer):
    consumer.owner.status = AccountStatus.DISABLED
    consumer.owner.disabled_at = timezone.now()
    consumer.owner.save()
    assert _client_with(issued_key[1]).get("/api/v1/").status_code == 401


def test_requests_without_a_key_are_anonymous_as_before(issued_key):
    assert APIClient().get("/api/v1/").status_code == 200
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION="Bearer something")
    assert bearer.get("/api/v1/").status_code == 200


def test_rotation_keeps_both_keys_working_until_the_old_is_revoked(
    issued_key, consumer, admin_user
):
    old, old_plaintext = issued_key
    _new, new_plaintext = api_key_issue(consumer=consumer, actor=admin_user)
    assert _client_with(old_plaintext).get("/api/v1/").status_code == 200
    assert _client_with(new_plaintext).get("/api/v1/").status_code == 200
    api_key_revoke(key=old, actor=admin_user, reason="rotated")
    assert _client_with(old_plaintext).get("/api/v1/").status_code == 401
    assert _client_with(new_plaintext).get("/api/v1/").status_code == 200


def test_issue_and_revoke_are_audited_with_the_actor(issued_key, consumer, admin_user):
    key, _plaintext = issued_key
    api_key_revoke(key=key, actor=admin_user, reason="contract ended")
    entries = AuditEntry.objects.filter(entity_key=str(consumer.pk)).order_by("id")
    assert [(e.action, e.actor) for e in entries] == [
        ("api_key.issue", admin_user),
        ("api_key.revoke", admin_user),
    ]
    assert entries.last().detail["reason"] == "contract ended"


def test_revoking_needs_a_reason(issued_key, admin_user):
    with pytest.raises(ValidationError):
        api_key_revoke(key=issued_key[0], actor=admin_user, reason="  ")


def test_revoking_twice_keeps_the_first_record(issued_key, admin_user, editor):
    key = api_key_revoke(key=issued_key[0], actor=admin_user, reason="first")
    again = api_key_revoke(key=key, actor=editor, reason="second")
    assert (again.revoked_by, again.revoke_reason) == (admin_user, "first")
    assert AuditEntry.objects.filter(action="api_key.revoke").count() == 1


def test_an_expiry_in_the_past_is_refused(consumer, admin_user):
    with pytest.raises(ValidationError):
        api_key_issue(consumer=consumer, actor=admin_user, expires_at=timezone.now() - timedelta(1))


def test_the_database_refuses_a_revocation_without_a_reason(issued_key):
    with pytest.raises(IntegrityError), transaction.atomic():
        ApiKey.objects.filter(pk=issued_key[0].pk).update(revoked_at=timezone.now())


def test_consumer_changes_are_audited_with_old_and_new_values(viewer, admin_user):
    consumer = api_consumer_create(
        actor=admin_user,
        name="Fixtures Ltd",
        kind="organisation",
        contact_email="api@fixtures.example",
        owner=viewer,
        per_minute_limit=60,
        daily_quota=1000,
    )
    api_consumer_change(consumer=consumer, actor=admin_user, per_minute_limit=120)
    api_consumer_change(consumer=consumer, actor=admin_user, per_minute_limit=120)
    changes = AuditEntry.objects.filter(action="api_consumer.change")
    assert [e.detail for e in changes] == [{"per_minute_limit": [60, 120]}]


def test_a_zero_limit_is_refused(consumer, admin_user):
    with pytest.raises(ValidationError):
        api_consumer_change(consumer=consumer, actor=admin_user, daily_quota=0)
