"""Currency rates in the console: appended through ``fx_rate_set`` with an audit row; never
edited or deleted in place."""

from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from catalogue.models import FxRate
from catalogue.services import fx_rate_set
from catalogue.tests.factories import FxRateFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, editor):
    account_groups_sync(user=editor)
    client.force_login(editor)
    return client


def test_an_editor_adds_a_rate_through_the_service_with_an_audit_row(console, editor):
    response = console.post(
        reverse("admin:catalogue_fxrate_add"),
        {"currency": "GBP", "rate_to_usd": "1.27", "as_of": "2025-03-01", "source": "desk"},
    )
    assert response.status_code == 302
    rate = FxRate.objects.get(currency="GBP")
    assert rate.rate_to_usd == Decimal("1.27")
    entry = AuditEntry.objects.get(action="fx_rate.set")
    assert entry.actor == editor and entry.entity_key == str(rate.pk)
    assert (entry.detail["old"], entry.detail["new"]) == (None, "1.27")


def test_a_rate_cannot_be_edited_in_the_console(console):
    rate = FxRateFactory()
    page = console.get(reverse("admin:catalogue_fxrate_change", args=[rate.pk]))
    assert page.status_code == 200
    assert b'name="rate_to_usd"' not in page.content


def test_a_rate_cannot_be_deleted_in_the_console(console):
    rate = FxRateFactory()
    url = reverse("admin:catalogue_fxrate_delete", args=[rate.pk])
    response = console.post(url, {"post": "yes"})
    assert response.status_code == 403
    assert FxRate.objects.filter(pk=rate.pk).exists()


def test_setting_a_days_rate_again_replaces_it_and_audits_old_and_new(editor):
    rate = FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.10"), source="desk")
    fx_rate_set(
        currency="EUR", rate_to_usd=Decimal("1.12"), as_of=rate.as_of, source="desk", actor=editor
    )
    rate.refresh_from_db()
    assert rate.rate_to_usd == Decimal("1.12")
    detail = AuditEntry.objects.get(action="fx_rate.set").detail
    assert (Decimal(detail["old"]), Decimal(detail["new"])) == (Decimal("1.10"), Decimal("1.12"))


def test_setting_the_same_rate_again_writes_nothing(editor):
    rate = FxRateFactory(rate_to_usd=Decimal("1.10"))
    fx_rate_set(
        currency=rate.currency,
        rate_to_usd=Decimal("1.10"),
        as_of=rate.as_of,
        source=rate.source,
        actor=editor,
    )
    assert not AuditEntry.objects.filter(action="fx_rate.set").exists()


def test_a_rate_that_is_not_positive_is_refused(editor):
    with pytest.raises(ValidationError):
        fx_rate_set(
            currency="EUR", rate_to_usd=Decimal(0), as_of=date(2025, 1, 2), source="d", actor=editor
        )
