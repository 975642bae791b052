import io

import pytest
from django.core.management import call_command

from accounts.access import account_role_change, competition_grant_revoke, competition_grant_set
from accounts.models import AccountGrant, AuditEntry, Role
from sports.services import competition_create
from sports.tests.factories import FootballFactory


@pytest.fixture
def league():
    return competition_create(
        code="lg", name="League", type="league", sport=FootballFactory(), actor="t"
    )


@pytest.mark.django_db
def test_changing_a_role_moves_the_account_to_that_roles_group(admin_user, viewer):
    account_role_change(user=viewer, role=Role.EDITOR, actor=admin_user)
    assert list(viewer.groups.values_list("name", flat=True)) == ["editor"]


@pytest.mark.django_db
def test_a_role_change_is_audited_with_old_and_new(admin_user, viewer):
    account_role_change(user=viewer, role=Role.REVIEWER, actor=admin_user)
    entry = AuditEntry.objects.get(action="account.role")
    assert entry.detail == {"role": ["viewer", "reviewer"]}


@pytest.mark.django_db
def test_role_groups_carry_the_roles_permissions(admin_user, viewer, editor):
    account_role_change(user=editor, role=Role.ADMIN, actor=admin_user)
    call_command("sync_role_groups", stdout=io.StringIO())
    editor = type(editor).objects.get(pk=editor.pk)
    viewer = type(viewer).objects.get(pk=viewer.pk)
    assert editor.has_perm("accounts.view_auditentry")
    assert not viewer.has_perm("accounts.view_auditentry")


@pytest.mark.django_db
def test_a_grant_is_one_row_per_person_and_record(admin_user, viewer, league):
    competition_grant_set(user=viewer, competition=league, role=Role.SUBMITTER, actor=admin_user)
    competition_grant_set(user=viewer, competition=league, role=Role.REVIEWER, actor=admin_user)
    assert AccountGrant.objects.on(league).get().role == Role.REVIEWER


@pytest.mark.django_db
def test_removing_a_grant_is_audited(admin_user, viewer, league):
    competition_grant_set(user=viewer, competition=league, role=Role.REVIEWER, actor=admin_user)
    competition_grant_revoke(user=viewer, competition=league, actor=admin_user, reason="moved")
    assert not AccountGrant.objects.exists()
    assert AuditEntry.objects.filter(action="access.revoke").exists()


@pytest.mark.django_db
def test_user_admin_pages_render(client, admin_user, viewer):
    client.force_login(admin_user)
    assert client.get("/admin/accounts/user/").status_code == 200
    assert client.get(f"/admin/accounts/user/{viewer.pk}/change/").status_code == 200
    assert client.get("/admin/accounts/accountsession/").status_code == 200
    assert client.get("/admin/accounts/accountgrant/").status_code == 200


@pytest.mark.django_db
def test_adding_an_account_in_the_console_invites_it(
    client, admin_user, django_capture_on_commit_callbacks
):
    from django.core import mail

    from accounts.models import AccountStatus, User

    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/accounts/user/add/",
            {"username": "fresh", "email": "fresh@example.org", "role": "editor", "_save": "1"},
        )
    assert response.status_code == 302
    user = User.objects.get(username="fresh")
    assert (user.status, user.invited_by, user.role) == (
        AccountStatus.INVITED, admin_user, Role.EDITOR,
    )  # fmt: skip
    assert mail.outbox[0].to == ["fresh@example.org"]


@pytest.mark.django_db
def test_changing_status_in_the_console_goes_through_the_service(client, admin_user, viewer):
    client.force_login(admin_user)
    page = client.get(f"/admin/accounts/user/{viewer.pk}/change/")
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "password"}
    data.update(
        {
            "status": "disabled",
            "date_joined_0": viewer.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": viewer.date_joined.strftime("%H:%M:%S"),
            "groups": [],
            "user_permissions": [],
        }
    )
    data.pop("date_joined", None)
    data.pop("last_login", None)
    response = client.post(f"/admin/accounts/user/{viewer.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    viewer.refresh_from_db()
    assert viewer.status == "disabled"
    assert viewer.disabled_at is not None
    assert AuditEntry.objects.filter(action="account.status", actor=admin_user).exists()


@pytest.mark.django_db
def test_the_reset_link_action_mails_each_chosen_account(
    client, admin_user, viewer, django_capture_on_commit_callbacks
):
    from django.core import mail

    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            "/admin/accounts/user/", {"action": "send_reset_link", "_selected_action": [viewer.pk]}
        )
    assert [message.to for message in mail.outbox] == [[viewer.email]]
    assert AuditEntry.objects.filter(action="account.token.reset", actor=admin_user).exists()


@pytest.mark.django_db
def test_a_role_group_has_its_permissions_from_first_use(admin_user, viewer):
    account_role_change(user=viewer, role=Role.EDITOR, actor=admin_user)
    viewer = type(viewer).objects.get(pk=viewer.pk)
    assert viewer.has_perm("discussions.change_decisionitem")
    assert not viewer.has_perm("accounts.view_auditentry")


# --- one table: the console's permissions and ``user_can`` answer alike -------------------


def test_user_can_answers_from_the_role_table(db):
    from accounts.access import effective_role, user_can_everywhere
    from accounts.models import Capability
    from accounts.roles import ROLE_TABLE
    from accounts.tests.factories import StaffFactory

    for role, rights in ROLE_TABLE.items():
        user = StaffFactory(username=f"table-{role}", role=role)
        assert effective_role(user) == role
        for capability in Capability.values:
            # Scoped roles need a grant on "*" to act everywhere; none is given here.
            expected = capability in rights.capabilities and not rights.scoped
            assert user_can_everywhere(user, capability) == expected, (role, capability)


def test_an_editors_group_covers_cricket(admin_user, viewer):
    account_role_change(user=viewer, role=Role.EDITOR, actor=admin_user)
    viewer = type(viewer).objects.get(pk=viewer.pk)
    assert viewer.has_perm("cricket.add_delivery")
    assert viewer.has_perm("cricket.view_innings")


def test_a_reviewers_group_reads_cricket_but_does_not_upload(admin_user, viewer):
    account_role_change(user=viewer, role=Role.REVIEWER, actor=admin_user)
    viewer = type(viewer).objects.get(pk=viewer.pk)
    assert viewer.has_perm("cricket.view_innings")
    assert not viewer.has_perm("cricket.add_delivery")


@pytest.mark.parametrize(
    ("role", "decides", "curates"),
    [(Role.REVIEWER, True, False), (Role.EDITOR, True, True), (Role.SUBMITTER, False, False)],
)
def test_reviewers_decide_candidates_and_editors_curate(admin_user, viewer, role, decides, curates):
    from catalogue.services import EDIT_PERMISSION
    from curation.services import DECIDE_PERMISSION

    account_role_change(user=viewer, role=role, actor=admin_user)
    viewer = type(viewer).objects.get(pk=viewer.pk)
    assert (viewer.has_perm(DECIDE_PERMISSION), viewer.has_perm(EDIT_PERMISSION)) == (
        decides, curates,
    )  # fmt: skip


def test_an_app_the_table_names_before_it_exists_grants_nothing(monkeypatch):
    from accounts import roles

    editor_rights = roles.ROLE_TABLE[Role.EDITOR]
    monkeypatch.setitem(
        roles.ROLE_TABLE,
        Role.EDITOR,
        roles.RoleRights(
            apps={**editor_rights.apps, "not_yet_an_app": roles.CURATE},
            capabilities=editor_rights.capabilities,
        ),
    )
    assert "not_yet_an_app" not in roles.role_app_actions(Role.EDITOR)
    assert "sports" in roles.role_app_actions(Role.EDITOR)
