import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client

from accounts.models import AccountSession, AuditEntry
from accounts.sessions import ACTING_AS_SESSION_KEY


def _act_as(client, target, reason="helping with the basket"):
    return client.post(
        "/admin/accounts/user/",
        {
            "action": "act_as",
            "_selected_action": [target.pk],
            "confirm": "yes",
            "reason": reason,
        },
    )


@pytest.mark.django_db
def test_an_administrator_acting_as_someone_is_that_someone_for_the_site(admin_user, viewer):
    client = Client()
    client.force_login(admin_user)
    _act_as(client, viewer)
    assert client.session[ACTING_AS_SESSION_KEY] == str(viewer.pk)
    response = client.get("/")
    assert response.context["user"] == viewer


@pytest.mark.django_db
def test_acting_as_is_recorded_on_the_session_row(admin_user, viewer):
    client = Client()
    client.force_login(admin_user)
    _act_as(client, viewer)
    session = AccountSession.objects.live().get(user=admin_user)
    assert session.acting_as == viewer


@pytest.mark.django_db
def test_acting_as_is_visible_in_the_audit_log(admin_user, viewer):
    client = Client()
    client.force_login(admin_user)
    _act_as(client, viewer, reason="ticket 881")
    entry = AuditEntry.objects.get(action="account.acting_as.start")
    assert (entry.actor, entry.acting_as) == (admin_user, viewer)
    assert entry.detail == {"reason": "ticket 881"}


@pytest.mark.django_db
def test_stopping_returns_the_administrator_to_themselves(admin_user, viewer):
    client = Client()
    client.force_login(admin_user)
    _act_as(client, viewer)
    client.post("/account/acting-as/")
    assert client.get("/").context["user"] == admin_user
    assert AuditEntry.objects.filter(action="account.acting_as.stop", acting_as=viewer).exists()


@pytest.mark.django_db
def test_an_editor_cannot_act_as_anyone(editor, viewer):
    from accounts.services import acting_as_start

    client = Client()
    client.force_login(editor)
    with pytest.raises(PermissionDenied):
        acting_as_start(session=client.session, actor=editor, target=viewer, reason="x")


@pytest.mark.django_db
def test_the_acting_as_page_names_both_people(admin_user, viewer):
    client = Client()
    client.force_login(admin_user)
    response = _act_as(client, viewer)
    assert response["Location"] == "/account/acting-as/"
    page = client.get("/account/acting-as/").content.decode()
    assert f"Acting as {viewer}" in page
    assert str(admin_user) in page
