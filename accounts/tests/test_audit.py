import pytest
from django.db import ProgrammingError, transaction

from accounts.models import AuditEntry
from accounts.services import audit_record


@pytest.mark.django_db
def test_audit_record_names_the_actor_entity_and_key(editor):
    entry = audit_record(
        actor=editor,
        action="product.merge",
        entity="catalogue.product",
        key=42,
        detail={"into": 7},
    )
    entry.refresh_from_db()
    assert (entry.actor, entry.action, entry.entity_type, entry.entity_key) == (
        editor,
        "product.merge",
        "catalogue.product",
        "42",
    )
    assert entry.detail == {"into": 7}


@pytest.mark.django_db
def test_audit_record_takes_a_model_instance_as_the_entity(editor, viewer):
    entry = audit_record(actor=editor, action="account.touch", entity=viewer, key=viewer.pk)
    assert entry.entity_type == "accounts.user"
    assert entry.entity_key == str(viewer.pk)


@pytest.mark.django_db
def test_audit_record_keeps_who_really_acted_and_whom_they_acted_as(admin_user, viewer):
    entry = audit_record(actor=admin_user, action="x.y", entity="a.b", key="k", acting_as=viewer)
    assert entry.actor == admin_user
    assert entry.acting_as == viewer


@pytest.mark.django_db
def test_audit_record_stores_uuids_and_dates_in_detail_as_text(editor):
    entry = audit_record(
        actor=editor,
        action="x.y",
        entity="a.b",
        key="k",
        detail={"who": editor.pk, "when": editor.date_joined},
    )
    entry.refresh_from_db()
    assert entry.detail["who"] == str(editor.pk)
    assert isinstance(entry.detail["when"], str)


@pytest.mark.django_db
def test_audit_rows_cannot_be_updated(editor):
    entry = audit_record(actor=editor, action="x.y", entity="a.b", key="k")
    with pytest.raises(ProgrammingError, match="Cannot update or delete"), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).update(action="rewritten")


@pytest.mark.django_db
def test_audit_rows_cannot_be_deleted(editor):
    entry = audit_record(actor=editor, action="x.y", entity="a.b", key="k")
    with pytest.raises(ProgrammingError, match="Cannot update or delete"), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).delete()
    assert AuditEntry.objects.filter(pk=entry.pk).exists()
