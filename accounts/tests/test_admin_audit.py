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


@pytest.mark.django_db
def test_audit_log_filters_by_entity_and_by_acting_as(client, admin_user, editor, viewer):
    audit_record(actor=editor, action="x.y", entity="catalogue.product", key="7")
    audit_record(actor=editor, action="x.y", entity="catalogue.product", key="8")
    audit_record(actor=admin_user, action="x.z", entity="a.b", key="k", acting_as=viewer)
    client.force_login(admin_user)
    url = "/admin/accounts/auditentry/"
    by_entity = client.get(url, {"entity_type": "catalogue.product", "entity_key": "7"})
    assert [row.entity_key for row in by_entity.context["cl"].result_list] == ["7"]
    acting = client.get(url, {"acting_as__isempty": "0"})
    assert [row.action for row in acting.context["cl"].result_list] == ["x.z"]
