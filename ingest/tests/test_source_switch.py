"""The kill switch of a retailer source: a reason is required, and each switch is an audit
row and a line in the source's notes, from the console as from the service."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from catalogue.collection_records import Source
from catalogue.tests.factories import LocationFactory
from ingest.collectors.services import source_set_enabled

pytestmark = pytest.mark.django_db


@pytest.fixture
def source():
    return Source.objects.create(
        slug="switch-shop", name="Switch shop", feed_format="generic_csv",
        location=LocationFactory(), mapping={"fields": {"sku": "sku", "name": "name"}},
    )  # fmt: skip


def test_switching_a_source_off_is_audited_with_who_and_why(source, editor):
    source_set_enabled(source=source, enabled=False, actor=editor, note="robots.txt says no")
    entry = AuditEntry.objects.get(action="source.disable")
    assert (entry.actor, entry.entity_key) == (editor, str(source.pk))
    assert entry.detail["note"] == "robots.txt says no"
    source.refresh_from_db()
    assert not source.enabled and "disabled: robots.txt says no" in source.notes


def test_a_switch_without_a_reason_is_refused_and_changes_nothing(source, editor):
    with pytest.raises(ValidationError, match="Say why"):
        source_set_enabled(source=source, enabled=False, actor=editor, note="  ")
    source.refresh_from_db()
    assert source.enabled and not AuditEntry.objects.exists()


def test_switching_to_the_state_it_is_in_records_nothing(source, editor):
    source_set_enabled(source=source, enabled=True, actor=editor, note="already on")
    assert not AuditEntry.objects.exists()


def test_the_console_switch_asks_why_and_audits_it(source, editor):
    account_groups_sync(user=editor)
    console = Client()
    console.force_login(editor)
    url = reverse("admin:catalogue_source_changelist")
    response = console.post(
        url,
        {"action": "disable_sources", "_selected_action": [source.pk], "confirm": "yes",
         "note": "the shop asked us to stop"},
    )  # fmt: skip
    assert response.status_code in (200, 302)
    source.refresh_from_db()
    assert not source.enabled
    assert AuditEntry.objects.get(action="source.disable").actor == editor
