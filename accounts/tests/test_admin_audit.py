import pytest

from accounts.services import audit_record


@pytest.mark.django_db
def test_audit_log_changelist_filters_by_action(client, admin_user, editor):
    audit_record(actor=editor, action="product.merge", entity="catalogue.product", key="1")
    audit_record(actor=editor, action="batch.approve", entity="ingest.batch", key="2")
    client.force_login(admin_user)
    response = client.get("/admin/accounts/auditentry/", {"action": "batch.approve"})
    assert response.status_code == 200
    rows = list(response.context["cl"].result_list)
    assert [row.action for row in rows] == ["batch.approve"]


@pytest.mark.django_db
def test_audit_entry_page_is_read_only(client, admin_user, editor):
    entry = audit_record(actor=editor, action="x.y", entity="a.b", key="k")
    client.force_login(admin_user)
    response = client.get(f"/admin/accounts/auditentry/{entry.pk}/change/")
    assert response.status_code == 200
    assert client.post(f"/admin/accounts/auditentry/{entry.pk}/delete/").status_code == 403
