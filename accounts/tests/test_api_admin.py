import re

import pytest
from django.utils import timezone

from accounts.models import ApiConsumer, ApiKey, AuditEntry
from accounts.services import api_key_authenticate, api_key_issue, api_usage_admit
from accounts.tests.factories import ApiConsumerFactory

pytestmark = pytest.mark.django_db

CONSUMERS = "/admin/accounts/apiconsumer/"
KEYS = "/admin/accounts/apikey/"
NO_INLINE_KEYS = {
    "keys-TOTAL_FORMS": "0",
    "keys-INITIAL_FORMS": "0",
    "keys-MIN_NUM_FORMS": "0",
    "keys-MAX_NUM_FORMS": "1000",
}


@pytest.fixture
def console(client, admin_user):
    client.force_login(admin_user)
    return client


def _plaintexts(response) -> list[str]:
    return re.findall(r'class="api-key-plaintext">([^<]+)<', response.content.decode())


def _consumer_form(owner, **overrides):
    return {
        "name": "Fixtures Ltd",
        "kind": "organisation",
        "contact_name": "Ada",
        "contact_email": "api@fixtures.example",
        "owner": str(owner.pk),
        "status": "active",
        "per_minute_limit": "60",
        "daily_quota": "5000",
        **NO_INLINE_KEYS,
        **overrides,
    }


def test_consumer_changelist_shows_live_keys_and_todays_requests(console, issued_key):
    key, _plaintext = issued_key
    for _ in range(3):
        api_usage_admit(key=key, at=timezone.now())
    response = console.get(CONSUMERS)
    assert response.status_code == 200
    row = response.context["cl"].result_list[0]
    assert (row.live_key_count, row.requests_today_total) == (1, 3)


def test_adding_a_consumer_in_the_console_goes_through_the_audited_service(
    console, viewer, admin_user
):
    response = console.post(f"{CONSUMERS}add/", _consumer_form(viewer))
    assert response.status_code == 302, response.context["adminform"].errors
    consumer = ApiConsumer.objects.get(name="Fixtures Ltd")
    entry = AuditEntry.objects.get(action="api_consumer.create")
    assert (entry.actor, entry.entity_key) == (admin_user, str(consumer.pk))


def test_changing_a_consumers_limit_in_the_console_is_audited_with_old_and_new(console, viewer):
    consumer = ApiConsumerFactory(owner=viewer, per_minute_limit=60, daily_quota=5000)
    response = console.post(
        f"{CONSUMERS}{consumer.pk}/change/",
        _consumer_form(
            viewer,
            name=consumer.name,
            contact_name=consumer.contact_name,
            contact_email=consumer.contact_email,
            per_minute_limit="90",
        ),
    )
    assert response.status_code == 302
    entry = AuditEntry.objects.get(action="api_consumer.change")
    assert entry.detail == {"per_minute_limit": [60, 90]}


def test_issuing_a_key_from_the_consumer_list_shows_its_plaintext_once(console, consumer):
    response = console.post(
        CONSUMERS, {"action": "issue_key", "_selected_action": [str(consumer.pk)]}
    )
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    [plaintext] = _plaintexts(response)
    assert api_key_authenticate(presented=plaintext).consumer == consumer
    key = ApiKey.objects.get(consumer=consumer)
    page = console.get(f"{KEYS}{key.pk}/change/").content.decode()
    assert plaintext.split(".", 1)[1] not in page


def test_adding_a_key_shows_the_plaintext_that_then_authenticates(console, consumer):
    response = console.post(
        f"{KEYS}add/", {"consumer": str(consumer.pk), "expires_at_0": "", "expires_at_1": ""}
    )
    assert response.status_code == 200
    [plaintext] = _plaintexts(response)
    assert api_key_authenticate(presented=plaintext).consumer == consumer


def test_a_key_with_a_past_expiry_is_refused_on_the_form(console, consumer):
    response = console.post(
        f"{KEYS}add/",
        {"consumer": str(consumer.pk), "expires_at_0": "2001-01-01", "expires_at_1": "00:00:00"},
    )
    assert response.status_code == 200
    assert "expires_at" in response.context["adminform"].form.errors
    assert not ApiKey.objects.exists()


def test_revoking_keys_asks_for_a_reason_then_revokes(console, issued_key, admin_user):
    key, plaintext = issued_key
    form = {"action": "revoke", "_selected_action": [str(key.pk)]}
    asked = console.post(KEYS, form)
    assert asked.status_code == 200
    assert "reason" in asked.context["form"].fields
    assert api_key_authenticate(presented=plaintext) is not None
    done = console.post(KEYS, {**form, "confirm": "yes", "reason": "partner offboarded"})
    assert done.status_code == 302
    key.refresh_from_db()
    assert (key.revoked_by, key.revoke_reason) == (admin_user, "partner offboarded")
    assert api_key_authenticate(presented=plaintext) is None


def test_key_list_and_page_and_usage_list_render(console, issued_key, admin_user):
    key, _plaintext = issued_key
    api_usage_admit(key=key, at=timezone.now())
    assert console.get(KEYS).status_code == 200
    assert console.get(f"{KEYS}{key.pk}/change/").status_code == 200
    assert console.get("/admin/accounts/apiusage/").status_code == 200
    assert console.get(f"{CONSUMERS}{key.consumer_id}/change/").status_code == 200


def test_staff_who_are_not_administrators_cannot_see_consumers_or_keys(client, editor, consumer):
    api_key_issue(consumer=consumer, actor=editor)
    client.force_login(editor)
    assert client.get(CONSUMERS).status_code == 403
    assert client.get(KEYS).status_code == 403
    assert client.get("/admin/accounts/apiusage/").status_code == 403
