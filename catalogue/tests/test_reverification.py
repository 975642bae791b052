"""The reverification queue: products under old identity rules queued once, and an editor
marking a row done with what they found, audited."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from catalogue import services
from catalogue.identity import RULES_VERSION
from catalogue.models import Reverification
from catalogue.tests.factories import ProductFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def old_product():
    return ProductFactory(identity_rules_version=RULES_VERSION - 1)


def test_products_under_old_rules_are_queued_once(old_product):
    ProductFactory(identity_rules_version=RULES_VERSION)
    assert services.reverifications_queue_old_rules() == 1
    assert services.reverifications_queue_old_rules() == 0
    row = Reverification.objects.get()
    assert (row.product, row.done_at) == (old_product, None)


def test_an_editor_marks_a_row_done_with_an_audit_row(old_product, editor):
    services.reverifications_queue_old_rules()
    row = services.reverification_done(
        reverification=Reverification.objects.get(), result="still one product",
        actor=editor, note="read both shops' pages",
    )  # fmt: skip
    assert row.done_at is not None and row.result == "still one product"
    assert AuditEntry.objects.get(action="reverification.done").actor == editor
    with pytest.raises(ValidationError, match="Already done"):
        services.reverification_done(reverification=row, result="x", actor=editor, note="y")


def test_the_console_action_marks_rows_done(client, editor, old_product):
    services.reverifications_queue_old_rules()
    account_groups_sync(user=editor)
    client.force_login(editor)
    url = reverse("admin:catalogue_reverification_changelist")
    row = Reverification.objects.get()
    chosen = {"action": "mark_done", "_selected_action": [row.pk]}
    assert client.post(url, chosen).status_code == 200  # the confirmation page
    answer = {"confirm": "yes", "verdict": "agrees", "result": "agrees", "note": "checked"}
    client.post(url, {**chosen, **answer})
    row.refresh_from_db()
    assert row.result == "agrees" and row.done_at is not None
