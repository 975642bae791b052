"""Roles, competition-scoped grants, requests for submitter access and the access history."""

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, ProgrammingError, transaction

from accounts.access import (
    access_request_approve,
    access_request_create,
    access_request_reject,
    account_role_change,
    account_tombstone,
    competition_grant_revoke,
    competition_grant_set,
    competitions_for,
    user_can,
)
from accounts.models import (
    AccessEvent,
    AccessHistory,
    AccessRequestStatus,
    AccountGrant,
    AuditEntry,
    Capability,
    Role,
)
from accounts.tests.factories import DEFAULT_PASSWORD, StaffFactory, post_user_change
from sports.services import competition_create
from sports.tests.factories import FootballFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree():
    """league > season > round, and a second league beside it."""
    sport = FootballFactory()
    league = competition_create(code="lg", name="League", type="league", sport=sport, actor="t")
    season = competition_create(code="s1", name="Season", type="season", parent=league, actor="t")
    round_ = competition_create(code="r1", name="Round 1", type="round", parent=season, actor="t")
    other = competition_create(code="ot", name="Other", type="league", sport=sport, actor="t")
    return {"league": league, "season": season, "round": round_, "other": other}


# --- the selector --------------------------------------------------------------------------


def test_a_grant_on_a_node_covers_its_whole_subtree(admin_user, submitter, tree):
    competition_grant_set(
        user=submitter, competition=tree["season"], role=Role.SUBMITTER, actor=admin_user
    )
    assert user_can(submitter, Capability.SUBMIT, tree["season"])
    assert user_can(submitter, Capability.SUBMIT, tree["round"])


def test_a_grant_does_not_reach_the_parent_or_a_sibling_tree(admin_user, submitter, tree):
    competition_grant_set(
        user=submitter, competition=tree["season"], role=Role.SUBMITTER, actor=admin_user
    )
    assert not user_can(submitter, Capability.SUBMIT, tree["league"])
    assert not user_can(submitter, Capability.SUBMIT, tree["other"])


def test_a_submitter_without_a_grant_can_submit_nowhere(submitter, tree):
    assert not user_can(submitter, Capability.SUBMIT, tree["round"])
    assert not user_can(submitter, Capability.SUBMIT)


def test_the_every_competition_grant_covers_every_tree(admin_user, submitter, tree):
    competition_grant_set(user=submitter, competition=None, role=Role.SUBMITTER, actor=admin_user)
    assert all(user_can(submitter, Capability.SUBMIT, node) for node in tree.values())


def test_the_role_is_authoritative_over_a_grant(admin_user, viewer, tree):
    # A viewer holding a reviewer grant (left over, or given by mistake) still does nothing.
    AccountGrant.objects.create(
        user=viewer,
        subject_type_id=AccountGrant._meta.get_field("subject_type")
        .related_model.objects.get_for_model(type(tree["league"]))
        .pk,
        subject_id=str(tree["league"].pk),
        role=Role.REVIEWER,
    )
    assert not user_can(viewer, Capability.SUBMIT, tree["league"])
    assert not user_can(viewer, Capability.REVIEW, tree["league"])


def test_a_submitter_grant_does_not_let_a_reviewer_review(admin_user, reviewer, tree):
    competition_grant_set(
        user=reviewer, competition=tree["league"], role=Role.SUBMITTER, actor=admin_user
    )
    assert user_can(reviewer, Capability.SUBMIT, tree["round"])
    assert not user_can(reviewer, Capability.REVIEW, tree["round"])


def test_a_reviewer_grant_lets_a_reviewer_review_and_submit_there(admin_user, reviewer, tree):
    competition_grant_set(
        user=reviewer, competition=tree["league"], role=Role.REVIEWER, actor=admin_user
    )
    assert user_can(reviewer, Capability.REVIEW, tree["round"])
    assert user_can(reviewer, Capability.SUBMIT, tree["round"])
    assert not user_can(reviewer, Capability.REVIEW, tree["other"])


def test_a_submitter_with_a_reviewer_grant_still_cannot_review(admin_user, submitter, tree):
    competition_grant_set(
        user=submitter, competition=tree["league"], role=Role.REVIEWER, actor=admin_user
    )
    assert not user_can(submitter, Capability.REVIEW, tree["league"])


def test_editors_and_administrators_are_not_scoped(editor, admin_user, tree):
    assert user_can(editor, Capability.REVIEW, tree["other"])
    assert user_can(editor, Capability.EDIT, tree["round"])
    assert not user_can(editor, Capability.ADMINISTER, tree["round"])
    assert user_can(admin_user, Capability.ADMINISTER, tree["round"])


def test_a_disabled_account_can_do_nothing(admin_user, editor, tree):
    from accounts.services import account_status_set

    account_status_set(user=editor, status="disabled", actor=admin_user)
    editor.refresh_from_db()
    assert not user_can(editor, Capability.EDIT, tree["league"])


def test_anonymous_can_do_nothing(tree):
    from django.contrib.auth.models import AnonymousUser

    assert not user_can(AnonymousUser(), Capability.SUBMIT, tree["league"])


def test_the_selector_costs_one_query(admin_user, submitter, tree, django_assert_num_queries):
    competition_grant_set(
        user=submitter, competition=tree["league"], role=Role.SUBMITTER, actor=admin_user
    )
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.get_for_model(type(tree["league"]))  # the content type is cached
    with django_assert_num_queries(1):
        assert user_can(submitter, Capability.SUBMIT, tree["round"])


def test_competitions_for_lists_the_granted_subtrees(admin_user, reviewer, tree):
    competition_grant_set(
        user=reviewer, competition=tree["season"], role=Role.REVIEWER, actor=admin_user
    )
    codes = set(competitions_for(reviewer, Capability.REVIEW).values_list("code", flat=True))
    assert codes == {"s1", "r1"}


def test_competitions_for_a_viewer_is_empty(viewer, tree):
    assert not competitions_for(viewer, Capability.SUBMIT).exists()


# --- grants and role changes: who may, and the history they leave --------------------------


@pytest.mark.parametrize("persona", ["editor", "reviewer", "submitter", "viewer"])
def test_only_an_administrator_gives_or_revokes_grants(request, persona, submitter, tree):
    actor = request.getfixturevalue(persona)
    with pytest.raises(PermissionDenied):
        competition_grant_set(
            user=submitter, competition=tree["league"], role=Role.SUBMITTER, actor=actor
        )
    with pytest.raises(PermissionDenied):
        competition_grant_revoke(
            user=submitter, competition=tree["league"], actor=actor, reason="x"
        )
    assert not AccountGrant.objects.exists()


@pytest.mark.parametrize("persona", ["editor", "reviewer", "submitter"])
def test_only_an_administrator_changes_roles(request, persona, viewer):
    with pytest.raises(PermissionDenied):
        account_role_change(user=viewer, role=Role.ADMIN, actor=request.getfixturevalue(persona))
    viewer.refresh_from_db()
    assert viewer.role == Role.VIEWER
    assert not AccessHistory.objects.exists()


def test_a_grant_is_only_for_a_submitter_or_a_reviewer_role(admin_user, submitter, tree):
    with pytest.raises(ValidationError):
        competition_grant_set(
            user=submitter, competition=tree["league"], role=Role.EDITOR, actor=admin_user
        )


def test_a_grant_and_its_revocation_each_leave_history_and_audit(admin_user, submitter, tree):
    competition_grant_set(
        user=submitter, competition=tree["league"], role=Role.SUBMITTER, actor=admin_user
    )
    competition_grant_revoke(
        user=submitter, competition=tree["league"], actor=admin_user, reason="season over"
    )
    rows = list(AccessHistory.objects.order_by("id").values_list("event", "competition", "actor"))
    assert rows == [
        (AccessEvent.GRANTED, tree["league"].pk, admin_user.pk),
        (AccessEvent.REVOKED, tree["league"].pk, admin_user.pk),
    ]
    assert AuditEntry.objects.filter(action__in=["access.grant", "access.revoke"]).count() == 2
    assert not user_can(submitter, Capability.SUBMIT, tree["league"])


def test_a_revocation_needs_a_reason(admin_user, submitter, tree):
    competition_grant_set(
        user=submitter, competition=tree["league"], role=Role.SUBMITTER, actor=admin_user
    )
    with pytest.raises(ValidationError):
        competition_grant_revoke(
            user=submitter, competition=tree["league"], actor=admin_user, reason=" "
        )
    assert user_can(submitter, Capability.SUBMIT, tree["league"])


def test_a_role_change_leaves_a_history_row_with_old_and_new(admin_user, viewer):
    account_role_change(user=viewer, role=Role.REVIEWER, actor=admin_user, reason="joins team")
    row = AccessHistory.objects.get()
    assert (row.event, row.role_before, row.role_after, row.actor, row.reason) == (
        AccessEvent.ROLE_CHANGED, Role.VIEWER, Role.REVIEWER, admin_user, "joins team",
    )  # fmt: skip


def test_a_role_change_in_the_console_leaves_a_history_row(client, admin_user, viewer):
    client.force_login(admin_user)
    response = post_user_change(client, viewer, role=Role.SUBMITTER)
    assert response.status_code == 302
    assert AccessHistory.objects.filter(
        user=viewer, event=AccessEvent.ROLE_CHANGED, role_after=Role.SUBMITTER
    ).exists()


def test_the_console_refuses_a_role_change_from_a_non_administrator(client, editor, viewer):
    # Console permission to edit accounts is not the right to give roles.
    editor.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="accounts", codename__in=["view_user", "change_user"]
        )
    )
    client.force_login(editor)
    response = post_user_change(client, viewer, role=Role.REVIEWER)
    assert response.status_code == 403
    viewer.refresh_from_db()
    assert viewer.role == Role.VIEWER
    assert not AccessHistory.objects.filter(user=viewer).exists()


def test_the_console_refuses_a_role_for_a_deleted_account(client, admin_user, viewer):
    account_tombstone(user=viewer, actor=admin_user, reason="left")
    client.force_login(admin_user)
    response = post_user_change(client, viewer, role=Role.EDITOR)
    assert response.status_code == 403
    viewer.refresh_from_db()
    assert viewer.role == Role.VIEWER
    assert not AccessHistory.objects.filter(user=viewer, event=AccessEvent.ROLE_CHANGED).exists()


def test_demoting_to_viewer_ends_submitting_everywhere_at_once(admin_user, submitter, tree):
    competition_grant_set(user=submitter, competition=None, role=Role.SUBMITTER, actor=admin_user)
    account_role_change(user=submitter, role=Role.VIEWER, actor=admin_user)
    submitter.refresh_from_db()
    assert not user_can(submitter, Capability.SUBMIT, tree["league"])


def test_access_history_cannot_be_edited(admin_user, viewer):
    account_role_change(user=viewer, role=Role.SUBMITTER, actor=admin_user)
    with pytest.raises(ProgrammingError, match="Cannot update or delete"), transaction.atomic():
        AccessHistory.objects.update(reason="rewritten")
    assert AccessHistory.objects.get().reason == ""


def test_access_history_cannot_be_deleted(admin_user, viewer):
    account_role_change(user=viewer, role=Role.SUBMITTER, actor=admin_user)
    with pytest.raises(ProgrammingError, match="Cannot update or delete"), transaction.atomic():
        AccessHistory.objects.all().delete()
    assert AccessHistory.objects.count() == 1


# --- requests for submitter access ---------------------------------------------------------


def test_asking_grants_nothing(viewer, tree):
    request = access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    viewer.refresh_from_db()
    assert request.status == AccessRequestStatus.PENDING
    assert viewer.role == Role.VIEWER
    assert not AccountGrant.objects.filter(user=viewer).exists()
    assert AccessHistory.objects.get().event == AccessEvent.REQUESTED


def test_nobody_asks_on_someone_elses_behalf(viewer, outsider, tree):
    with pytest.raises(PermissionDenied):
        access_request_create(user=viewer, competition=tree["league"], actor=outsider)


def test_one_pending_request_per_competition(viewer, tree):
    access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    with pytest.raises(ValidationError, match="already asked"):
        access_request_create(user=viewer, competition=tree["league"], actor=viewer)


def test_approval_makes_a_viewer_a_submitter_of_that_subtree_in_one_go(admin_user, viewer, tree):
    request = access_request_create(user=viewer, competition=tree["season"], actor=viewer)
    access_request_approve(request=request, actor=admin_user, reason="known scorer")
    viewer.refresh_from_db()
    assert viewer.role == Role.SUBMITTER
    assert user_can(viewer, Capability.SUBMIT, tree["round"])
    assert not user_can(viewer, Capability.SUBMIT, tree["other"])
    events = list(AccessHistory.objects.order_by("id").values_list("event", flat=True))
    assert events == [
        AccessEvent.REQUESTED,
        AccessEvent.APPROVED,
        AccessEvent.ROLE_CHANGED,
        AccessEvent.GRANTED,
    ]
    assert AccessHistory.objects.get(event=AccessEvent.GRANTED).request == request


def test_approving_a_reviewer_keeps_their_reviewer_grant(admin_user, reviewer, tree):
    competition_grant_set(
        user=reviewer, competition=tree["league"], role=Role.REVIEWER, actor=admin_user
    )
    # They may ask for a competition they cannot yet submit to only; grant elsewhere first.
    request = access_request_create(user=reviewer, competition=tree["other"], actor=reviewer)
    access_request_approve(request=request, actor=admin_user)
    assert user_can(reviewer, Capability.REVIEW, tree["league"])
    assert user_can(reviewer, Capability.SUBMIT, tree["other"])


@pytest.mark.parametrize("persona", ["editor", "reviewer", "submitter", "viewer"])
def test_only_an_administrator_decides_requests(request, persona, outsider, tree):
    access_request = access_request_create(
        user=outsider, competition=tree["league"], actor=outsider
    )
    actor = request.getfixturevalue(persona)
    with pytest.raises(PermissionDenied):
        access_request_approve(request=access_request, actor=actor)
    with pytest.raises(PermissionDenied):
        access_request_reject(request=access_request, actor=actor, reason="no")
    access_request.refresh_from_db()
    assert access_request.status == AccessRequestStatus.PENDING


def test_a_rejection_needs_a_reason_and_changes_nothing_else(admin_user, viewer, tree):
    request = access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    with pytest.raises(ValidationError):
        access_request_reject(request=request, actor=admin_user, reason="")
    access_request_reject(request=request, actor=admin_user, reason="unknown to us")
    request.refresh_from_db()
    viewer.refresh_from_db()
    assert (request.status, request.decided_by, request.decision_reason) == (
        AccessRequestStatus.REJECTED, admin_user, "unknown to us",
    )  # fmt: skip
    assert viewer.role == Role.VIEWER
    assert not AccountGrant.objects.exists()


def test_a_rejected_viewer_may_ask_again_and_both_requests_stay(admin_user, viewer, tree):
    first = access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    access_request_reject(request=first, actor=admin_user, reason="tell us who you are")
    second = access_request_create(
        user=viewer, competition=tree["league"], actor=viewer, message="club scorer"
    )
    assert first.pk != second.pk
    events = list(AccessHistory.objects.order_by("id").values_list("event", flat=True))
    assert events == [AccessEvent.REQUESTED, AccessEvent.REJECTED, AccessEvent.REQUESTED]


def test_a_decided_request_cannot_be_decided_again(admin_user, viewer, tree):
    request = access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    access_request_approve(request=request, actor=admin_user)
    with pytest.raises(ValidationError, match="already approved"):
        access_request_reject(request=request, actor=admin_user, reason="changed mind")


def test_a_failure_inside_approval_leaves_nothing_behind(admin_user, viewer, tree):
    request = access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    before = AccessHistory.objects.count()
    # The approval writes request, role, grant and history in the caller's transaction;
    # when that transaction fails afterwards, none of them may remain.
    with pytest.raises(IntegrityError), transaction.atomic():
        access_request_approve(request=request, actor=admin_user)
        raise IntegrityError("the caller's transaction fails after approval")
    request.refresh_from_db()
    viewer.refresh_from_db()
    assert request.status == AccessRequestStatus.PENDING
    assert viewer.role == Role.VIEWER
    assert AccessHistory.objects.count() == before


def test_the_console_approves_and_rejects(client, admin_user, viewer, outsider, tree):
    approve = access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    reject = access_request_create(user=outsider, competition=tree["league"], actor=outsider)
    client.force_login(admin_user)
    url = "/admin/accounts/accessrequest/"
    assert client.get(url).status_code == 200
    client.post(url, {"action": "approve", "_selected_action": [approve.pk]})
    client.post(
        url,
        {"action": "reject", "_selected_action": [reject.pk], "confirm": "yes", "reason": "no"},
    )
    approve.refresh_from_db()
    reject.refresh_from_db()
    assert (approve.status, reject.status) == ("approved", "rejected")
    assert client.get("/admin/accounts/accesshistory/").status_code == 200


def test_the_access_pages_are_for_administrators_only(client, editor):
    client.force_login(editor)
    assert client.get("/admin/accounts/accessrequest/").status_code == 403
    assert client.get("/admin/accounts/accesshistory/").status_code == 403


# --- authentication never creates a privileged role or grant -------------------------------


def test_signing_in_changes_no_role_and_creates_no_grant(client):
    person = StaffFactory(username="newcomer", role=Role.SUBMITTER)
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": "newcomer", "password": DEFAULT_PASSWORD},
        REMOTE_ADDR="203.0.113.9",
        HTTP_USER_AGENT="Mozilla/5.0 (TestAgent 1.0)",
    )
    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200
    person.refresh_from_db()
    assert person.role == Role.SUBMITTER
    assert not AccountGrant.objects.filter(user=person).exists()
    assert not AccessHistory.objects.filter(user=person).exists()


def test_an_api_key_request_changes_no_role_and_creates_no_grant(api_key_client, viewer):
    api_key_client.get("/api/v1/sports/")
    viewer.refresh_from_db()
    assert viewer.role == Role.VIEWER
    assert not AccountGrant.objects.exists()
    assert not AccessHistory.objects.exists()


def test_a_new_account_is_a_viewer_without_grants():
    from accounts.models import User

    person = User.objects.create_user(username="fresh", password=DEFAULT_PASSWORD)
    assert person.role == Role.VIEWER
    assert not user_can(person, Capability.SUBMIT)


# --- the person's page and the console's revocation --------------------------------------


def test_a_person_asks_for_access_on_their_page(client, viewer, tree):
    client.force_login(viewer)
    response = client.post(
        "/account/access/", {"competition": "football:s1", "message": "I keep the score"}
    )
    assert response.status_code == 302
    request = viewer.access_requests.get()
    assert (request.competition, request.message) == (tree["season"], "I keep the score")
    page = client.get("/account/access/").content.decode()
    assert "Season" in page and "Pending" in page


def test_an_unknown_code_on_the_page_says_so_and_asks_nothing(client, viewer, tree):
    client.force_login(viewer)
    response = client.post("/account/access/", {"competition": "nope"})
    assert response.status_code == 200
    assert "nope: no competition has that code" in response.content.decode()
    assert not viewer.access_requests.exists()


def test_the_page_shows_the_answer_and_the_grants(client, admin_user, viewer, tree):
    request = access_request_create(user=viewer, competition=tree["league"], actor=viewer)
    access_request_reject(request=request, actor=admin_user, reason="who are you?")
    competition_grant_set(user=viewer, competition=None, role=Role.SUBMITTER, actor=admin_user)
    client.force_login(viewer)
    page = client.get("/account/access/").content.decode()
    assert "who are you?" in page and "every competition" in page


def test_the_access_page_needs_a_signed_in_person(client):
    assert client.get("/account/access/").status_code == 302


def test_the_console_revokes_a_grant_with_a_reason(client, admin_user, submitter, tree):
    competition_grant_set(
        user=submitter, competition=tree["league"], role=Role.SUBMITTER, actor=admin_user
    )
    grant = AccountGrant.objects.get()
    client.force_login(admin_user)
    client.post(
        "/admin/accounts/accountgrant/",
        {"action": "revoke", "_selected_action": [grant.pk], "confirm": "yes", "reason": "left"},
    )
    assert not AccountGrant.objects.exists()
    assert AccessHistory.objects.filter(event=AccessEvent.REVOKED, reason="left").exists()


def test_inviting_someone_as_a_reviewer_is_a_role_change_on_the_record(admin_user):
    from accounts.services import account_invite

    person = account_invite(
        actor=admin_user, username="newrev", email="newrev@example.org", role=Role.REVIEWER
    )
    row = AccessHistory.objects.get(user=person)
    assert (row.event, row.role_after, row.actor) == (
        AccessEvent.ROLE_CHANGED, Role.REVIEWER, admin_user,
    )  # fmt: skip


def test_inviting_a_viewer_leaves_no_access_history(admin_user):
    from accounts.services import account_invite

    account_invite(actor=admin_user, username="plain", email="plain@example.org")
    assert not AccessHistory.objects.exists()


def test_the_first_administrator_is_on_the_record():
    from accounts.services import admin_account_ensure

    person, created = admin_account_ensure(username="boss", password=DEFAULT_PASSWORD)
    assert created
    assert AccessHistory.objects.get(user=person).role_after == Role.ADMIN
