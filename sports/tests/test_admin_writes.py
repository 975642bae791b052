"""The sports console's edits of existing rows go through a service, with an audit row."""

import pytest

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from sports.models import SportDefinitionVersion
from sports.tests.factories import FootballFactory, ParticipantFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, editor):
    account_groups_sync(user=editor)
    client.force_login(editor)
    return client


def change_payload(page, **changes) -> dict:
    """The change page's own values (and its inlines' management forms), with ``changes``."""
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    for inline in page.context["inline_admin_formsets"]:
        for field in inline.formset.management_form:
            data[field.html_name] = field.value()
    data = {name: "" if value is None else value for name, value in data.items()}
    return {**data, **changes}


def test_an_editor_changing_a_participants_code_is_audited_with_old_and_new(console, editor):
    person = ParticipantFactory(code="ana-old")
    url = f"/admin/sports/participant/{person.pk}/change/"
    response = console.post(url, change_payload(console.get(url), code="ana-new"))
    assert response.status_code == 302
    person.refresh_from_db()
    assert person.code == "ana-new"
    entry = AuditEntry.objects.get(action="participant.update")
    assert entry.actor == editor
    assert entry.detail == {"before": {"code": "ana-old"}, "after": {"code": "ana-new"}}


def test_saving_a_participant_unchanged_writes_no_audit_row(console):
    person = ParticipantFactory()
    url = f"/admin/sports/participant/{person.pk}/change/"
    assert console.post(url, change_payload(console.get(url))).status_code == 302
    assert not AuditEntry.objects.filter(action="participant.update").exists()


def test_an_editor_changing_a_definitions_notes_is_audited_with_old_and_new(console, editor):
    definition = SportDefinitionVersion.objects.get(sport=FootballFactory())
    before = definition.notes
    url = f"/admin/sports/sportdefinitionversion/{definition.pk}/change/"
    response = console.post(url, change_payload(console.get(url), notes="second printing"))
    assert response.status_code == 302
    definition.refresh_from_db()
    assert definition.notes == "second printing"
    entry = AuditEntry.objects.get(action="sport_definition.notes_set")
    assert entry.actor == editor
    assert entry.detail == {"before": {"notes": before}, "after": {"notes": "second printing"}}


def test_an_editor_publishing_a_definition_is_audited_with_sport_version_and_plugin(
    console, editor
):
    sport = FootballFactory()
    response = console.post(
        "/admin/sports/sportdefinitionversion/add/",
        {"sport": sport.pk, "plugin": "football", "notes": "second edition"},
    )
    assert response.status_code == 302
    published = SportDefinitionVersion.objects.get(sport=sport, version=2)
    entry = AuditEntry.objects.get(action="sport_definition.publish")
    assert entry.actor == editor
    assert entry.entity_key == str(published.pk)
    assert entry.detail == {"sport": sport.code, "version": 2, "plugin": "football"}


def test_shipped_definitions_published_by_an_import_write_no_audit_row(db):
    from sports.services import sport_definition_ensure

    assert sport_definition_ensure(actor="integration:test", sports=["football"]) is not None
    assert not AuditEntry.objects.filter(action="sport_definition.publish").exists()
