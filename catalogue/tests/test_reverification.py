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


@pytest.mark.django_db(transaction=True)
def test_two_queue_runs_at_once_queue_a_product_once_without_failing():
    """The second run waits for the first (the queue's advisory lock) and then finds the
    product waiting: without the lock it inserts the same row and fails on the
    one-waiting-row rule when the first commits."""
    import threading

    from django.db import connections, transaction

    ProductFactory(identity_rules_version=RULES_VERSION - 1)
    queued, results, errors = threading.Event(), {}, []

    def first():
        try:
            with transaction.atomic():
                results["first"] = services.reverifications_queue_old_rules()
                queued.set()
                _wait_for_a_blocked_session()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
            queued.set()
        finally:
            connections.close_all()

    def second():
        queued.wait(timeout=30)
        try:
            results["second"] = services.reverifications_queue_old_rules()
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert results == {"first": 1, "second": 0}
    assert Reverification.objects.count() == 1
    assert AuditEntry.objects.filter(action="reverification.queue").count() == 1


def _wait_for_a_blocked_session(timeout: float = 10.0) -> None:
    """Until another session of this database waits on a lock (the second run)."""
    import time

    import psycopg

    from omnium.testing import _database_url_for_test_db

    deadline = time.monotonic() + timeout
    with psycopg.connect(_database_url_for_test_db(), autocommit=True) as watcher:
        while time.monotonic() < deadline:
            waiting = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            ).fetchone()
            if waiting and waiting[0]:
                return
            time.sleep(0.05)
    raise AssertionError("the second run never waited on the first")
