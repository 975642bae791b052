"""Console rows that point at other rows name them, with a link; history pages show one
reason column."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from catalogue import services
from catalogue.tests.factories import ProductFactory

pytestmark = pytest.mark.django_db


def _console(user) -> Client:
    account_groups_sync(user=user)
    client = Client()
    client.force_login(type(user).objects.get(pk=user.pk))
    return client


@pytest.fixture
def override(editor):
    product = ProductFactory(name="Sauvage Eau de Parfum 100 ml")
    return services.override_set(
        product=product, field="category", value="Men", actor=editor, reason="shelf label"
    )


def test_an_override_row_names_its_product_with_a_link(editor, override):
    page = _console(editor).get(reverse("admin:catalogue_override_changelist")).content.decode()
    url = reverse("admin:catalogue_product_change", args=[override.entity_key])
    assert f'<a href="{url}">Sauvage Eau de Parfum 100 ml</a>' in page


def test_an_audit_row_names_its_record_with_a_link(admin_user, override):
    page = _console(admin_user).get(reverse("admin:accounts_auditentry_changelist"))
    url = reverse("admin:catalogue_product_change", args=[override.entity_key])
    assert f'<a href="{url}">Sauvage Eau de Parfum 100 ml</a>' in page.content.decode()


def test_the_override_list_costs_the_same_for_more_rows(
    editor, override, django_assert_max_num_queries
):
    client = _console(editor)
    for n in range(5):
        services.override_set(
            product=ProductFactory(), field="category", value=f"C{n}", actor=editor, reason="r"
        )
    with django_assert_max_num_queries(12):
        assert client.get(reverse("admin:catalogue_override_changelist")).status_code == 200


def test_a_history_page_has_one_reason_column(editor, override):
    url = reverse("admin:catalogue_product_history", args=[override.entity_key])
    page = _console(editor).get(url).content.decode()
    assert page.count("Change reason") == 1
    assert "history_change_reason" not in page and "shelf label" in page


def test_an_override_page_names_its_product_with_a_link(editor, override):
    page = _console(editor).get(reverse("admin:catalogue_override_change", args=[override.pk]))
    url = reverse("admin:catalogue_product_change", args=[override.entity_key])
    assert f'<a href="{url}">Sauvage Eau de Parfum 100 ml</a>' in page.content.decode()


def test_an_audit_entry_page_names_its_record_with_a_link(admin_user, override):
    entry = AuditEntry.objects.get(action="override.set")
    page = _console(admin_user).get(reverse("admin:accounts_auditentry_change", args=[entry.pk]))
    url = reverse("admin:catalogue_product_change", args=[override.entity_key])
    assert f'<a href="{url}">Sauvage Eau de Parfum 100 ml</a>' in page.content.decode()
