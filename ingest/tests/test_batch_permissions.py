"""Grants decide who submits and reviews which batches: every role, and every grant boundary
(none, on the node, on an ancestor, on a sibling, revoked, on "*"), through the services,
the reviewer's console and the API.

The tree is cricket's, named as the import names it: match 1226909 is Women's Big Bash
League 2020/21, so its competition is the season node under the league; 2019/20 is its
sibling. Match 1398272 (a tour of England) belongs to another tree."""

import base64

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.access import account_tombstone, competition_grant_revoke, competition_grant_set
from accounts.models import AccessEvent, AccessHistory, AccountStatus
from accounts.services import account_status_set
from cricket.services import cricket_sport
from cricket.tests.factories import seed_dismissal_kinds
from ingest.batches import services
from ingest.batches.models import Batch, BatchState
from ingest.batches.permissions import can_review, can_submit, reviewable_batches
from ingest.tests.batch_factories import SAMPLES, BatchFactory, sample
from sports.services import competition_create

pytestmark = pytest.mark.django_db
WBBL_MATCH, TOUR_MATCH = "1226909", "1398272"
QUEUE = reverse("admin:ingest_batch_changelist")
API = "/api/v1/batches/"


@pytest.fixture(autouse=True)
def _kinds(db):
    seed_dismissal_kinds()


@pytest.fixture
def tree():
    sport = cricket_sport()

    def node(code, name, type, parent=None):
        return competition_create(
            code=code, name=name, type=type, parent=parent, sport=sport, actor="test"
        )

    league = node("womens-big-bash-league", "Women's Big Bash League", "event")
    return {
        "league": league,
        "season": node("womens-big-bash-league-202021", "2020/21", "season", league),
        "sibling": node("womens-big-bash-league-201920", "2019/20", "season", league),
        "tour": node("pakistan-women-tour-of-england", "Pakistan Women tour of England", "event"),
    }


def _grant(user, node, role=None):
    return competition_grant_set(user=user, competition=node, role=role or user.role, actor=None)


def _submit(user, match_id=WBBL_MATCH, competition=None, key="k"):
    batch, _ = services.batch_submit(
        submitter=user, files=[sample(match_id)], idempotency_key=key, competition=competition
    )
    return batch


@pytest.fixture
def season_batch(editor, tree):
    """A batch for the 2020/21 season, awaiting review (submitted by an editor)."""
    return services.batch_validate(batch=_submit(editor, competition=tree["season"]))


@pytest.fixture
def tour_batch(editor, tree):
    """A batch for the tour: another tree."""
    return services.batch_validate(
        batch=_submit(editor, TOUR_MATCH, competition=tree["tour"], key="tour")
    )


# --- submitting ------------------------------------------------------------------------------


def test_a_viewer_cannot_submit(viewer, tree):
    with pytest.raises(PermissionDenied, match="may not submit batches"):
        _submit(viewer, competition=tree["season"])
    assert not Batch.objects.exists()


def test_a_submitter_without_a_grant_cannot_submit(submitter, tree):
    with pytest.raises(PermissionDenied, match="may not submit batches"):
        _submit(submitter, competition=tree["season"])
    assert not Batch.objects.exists()


def test_an_invited_submitter_is_told_the_invitation_is_not_accepted_yet(submitter, tree):
    _grant(submitter, tree["season"])
    type(submitter).objects.filter(pk=submitter.pk).update(status=AccountStatus.INVITED)
    submitter.refresh_from_db()
    with pytest.raises(PermissionDenied, match="has not accepted the invitation; resend it"):
        _submit(submitter, competition=tree["season"])
    assert not Batch.objects.exists()


def test_a_submitter_without_a_grant_is_told_to_ask_for_one(submitter, tree):
    with pytest.raises(PermissionDenied, match="holds no competition grant to submit"):
        _submit(submitter, competition=tree["season"])


def test_a_submitter_with_a_grant_on_the_node_submits_for_it(submitter, tree):
    _grant(submitter, tree["season"])
    assert _submit(submitter, competition=tree["season"]).competition == tree["season"]


def test_a_grant_on_an_ancestor_covers_the_node(submitter, tree):
    _grant(submitter, tree["league"])
    assert _submit(submitter, competition=tree["season"]).competition == tree["season"]


def test_a_grant_on_a_sibling_does_not_cover_the_node_and_the_refusal_names_it(submitter, tree):
    _grant(submitter, tree["sibling"])
    with pytest.raises(PermissionDenied, match="womens-big-bash-league-202021"):
        _submit(submitter, competition=tree["season"])
    assert not Batch.objects.exists()


def test_a_revoked_grant_no_longer_lets_a_submitter_submit(submitter, tree):
    _grant(submitter, tree["season"])
    competition_grant_revoke(user=submitter, competition=tree["season"], actor=None, reason="x")
    with pytest.raises(PermissionDenied):
        _submit(submitter, competition=tree["season"])


def test_without_a_named_competition_the_target_is_the_matchs_node(submitter, tree):
    _grant(submitter, tree["league"])
    assert _submit(submitter).competition == tree["season"]


def test_a_batch_spanning_two_trees_has_no_target_and_needs_an_every_competition_grant(
    submitter, tree
):
    files = [sample(WBBL_MATCH), sample(TOUR_MATCH)]
    _grant(submitter, tree["league"])
    _grant(submitter, tree["tour"])
    with pytest.raises(PermissionDenied, match="without a target competition"):
        services.batch_submit(submitter=submitter, files=files, idempotency_key="k")
    _grant(submitter, None)
    batch, _ = services.batch_submit(submitter=submitter, files=files, idempotency_key="k")
    assert batch.competition is None


def test_a_file_outside_the_named_competition_is_refused_naming_the_file(submitter, tree):
    _grant(submitter, None)
    with pytest.raises(ValidationError, match=rf"{TOUR_MATCH}\.json.*outside"):
        _submit(submitter, TOUR_MATCH, competition=tree["season"])
    assert not Batch.objects.exists()


@pytest.mark.parametrize("persona", ["editor", "admin_user"])
def test_editors_and_administrators_submit_anywhere_without_grants(persona, request, tree):
    user = request.getfixturevalue(persona)
    assert can_submit(user, tree["sibling"])
    assert can_submit(user, None)
    files = [sample(WBBL_MATCH), sample(TOUR_MATCH)]
    batch, _ = services.batch_submit(submitter=user, files=files, idempotency_key="k")
    assert batch.competition is None


def test_a_disabled_submitter_is_refused_despite_the_grant(submitter, admin_user, tree):
    _grant(submitter, tree["league"])
    account_status_set(user=submitter, status=AccountStatus.DISABLED, actor=admin_user)
    submitter.refresh_from_db()
    with pytest.raises(PermissionDenied):
        _submit(submitter, competition=tree["season"])


def test_a_tombstoned_submitter_is_refused(submitter, tree):
    _grant(submitter, tree["league"])
    submitter = account_tombstone(user=submitter, actor=None, reason="asked to be forgotten")
    with pytest.raises(PermissionDenied):
        _submit(submitter, competition=tree["season"])


def test_the_api_refuses_a_submitter_outside_their_grants_with_403(submitter, tree):
    _grant(submitter, tree["sibling"])
    client = APIClient()
    client.force_authenticate(submitter)
    name, raw = sample(WBBL_MATCH)
    body = {
        "competition": tree["season"].code,
        "files": [{"name": name, "content_base64": base64.b64encode(raw).decode()}],
    }
    response = client.post(API, body, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 403
    assert "womens-big-bash-league-202021" in str(response.data)
    assert not Batch.objects.exists()


# --- reviewing -------------------------------------------------------------------------------


def _approve(user, batch):
    return services.batch_review(batch=batch, reviewer=user, approve=True, reason="checked")


@pytest.mark.parametrize("persona", ["viewer", "submitter", "outsider"])
def test_roles_below_reviewer_cannot_review_even_with_a_grant(persona, request, season_batch):
    user = request.getfixturevalue(persona)
    if user.role == "submitter":
        _grant(user, None)
    with pytest.raises(PermissionDenied, match="may not review"):
        _approve(user, season_batch)
    season_batch.refresh_from_db()
    assert season_batch.state == BatchState.AWAITING_REVIEW


def test_a_reviewer_without_a_grant_cannot_review(reviewer, season_batch):
    with pytest.raises(PermissionDenied):
        _approve(reviewer, season_batch)


def test_a_reviewer_with_a_grant_on_the_node_reviews(reviewer, tree, season_batch):
    _grant(reviewer, tree["season"])
    assert _approve(reviewer, season_batch).state == BatchState.APPROVED


def test_a_reviewer_grant_on_an_ancestor_covers_the_node(reviewer, tree, season_batch):
    _grant(reviewer, tree["league"])
    assert _approve(reviewer, season_batch).state == BatchState.APPROVED


def test_a_reviewer_grant_on_a_sibling_does_not_cover_the_node(reviewer, tree, season_batch):
    _grant(reviewer, tree["sibling"])
    with pytest.raises(PermissionDenied, match="womens-big-bash-league-202021"):
        _approve(reviewer, season_batch)


def test_a_revoked_reviewer_grant_no_longer_lets_them_review(reviewer, tree, season_batch):
    _grant(reviewer, tree["league"])
    competition_grant_revoke(user=reviewer, competition=tree["league"], actor=None, reason="x")
    with pytest.raises(PermissionDenied):
        _approve(reviewer, season_batch)


def test_a_submitter_grant_does_not_let_a_reviewer_review(reviewer, tree, season_batch):
    _grant(reviewer, tree["league"], role="submitter")
    assert not can_review(reviewer, season_batch)


@pytest.mark.parametrize("persona", ["editor", "admin_user"])
def test_editors_and_administrators_review_anywhere_without_grants(persona, request, submitter):
    _grant(submitter, None)
    batch = services.batch_validate(
        batch=BatchFactory(submitter=submitter)  # two trees: no target
    )
    assert batch.competition is None
    assert _approve(request.getfixturevalue(persona), batch).state == BatchState.APPROVED


def test_a_batch_without_a_target_needs_a_reviewer_of_every_competition(submitter, reviewer, tree):
    _grant(submitter, None)
    batch = services.batch_validate(batch=BatchFactory(submitter=submitter))
    _grant(reviewer, tree["league"])
    _grant(reviewer, tree["tour"])
    with pytest.raises(PermissionDenied, match="no single target"):
        _approve(reviewer, batch)
    _grant(reviewer, None)
    assert _approve(reviewer, batch).state == BatchState.APPROVED


def test_a_reviewer_cannot_review_their_own_batch(reviewer, tree):
    _grant(reviewer, tree["league"])  # a reviewer grant also lets them submit there
    batch = services.batch_validate(batch=_submit(reviewer, competition=tree["season"]))
    with pytest.raises(PermissionDenied, match="own batch"):
        _approve(reviewer, batch)


def test_a_disabled_reviewer_is_refused_despite_the_grant(reviewer, admin_user, tree, season_batch):
    _grant(reviewer, tree["league"])
    account_status_set(user=reviewer, status=AccountStatus.DISABLED, actor=admin_user)
    reviewer.refresh_from_db()
    with pytest.raises(PermissionDenied):
        _approve(reviewer, season_batch)


def test_a_tombstoned_reviewer_is_refused(reviewer, tree, season_batch):
    _grant(reviewer, tree["league"])
    reviewer = account_tombstone(user=reviewer, actor=None, reason="left")
    with pytest.raises(PermissionDenied):
        _approve(reviewer, season_batch)


def test_a_rejection_needs_the_grant_too(reviewer, tree, season_batch):
    _grant(reviewer, tree["sibling"])
    with pytest.raises(PermissionDenied, match="womens-big-bash-league-202021"):
        services.batch_review(batch=season_batch, reviewer=reviewer, approve=False, reason="no")
    season_batch.refresh_from_db()
    assert season_batch.state == BatchState.AWAITING_REVIEW


# --- the queue: console and API ------------------------------------------------------------


def test_the_queue_holds_only_the_batches_of_the_reviewers_competitions(
    reviewer, tree, season_batch, tour_batch
):
    _grant(reviewer, tree["league"])
    assert list(reviewable_batches(reviewer, Batch.objects.all())) == [season_batch]


def test_the_console_lists_and_opens_only_covered_batches(reviewer, tree, season_batch, tour_batch):
    _grant(reviewer, tree["league"])
    client = Client()
    client.force_login(reviewer)
    page = client.get(QUEUE).content.decode()
    assert str(season_batch.pk) in page
    assert str(tour_batch.pk) not in page
    change = "admin:ingest_batch_change"
    assert client.get(reverse(change, args=[season_batch.pk])).status_code == 200
    # Outside the reviewer's queue the batch does not exist for them: back to the index.
    assert client.get(reverse(change, args=[tour_batch.pk])).status_code == 302


def test_the_console_refuses_a_decision_outside_the_reviewers_grants(
    reviewer, tree, season_batch, tour_batch
):
    _grant(reviewer, tree["tour"])
    client = Client()
    client.force_login(reviewer)
    client.post(
        QUEUE,
        {
            "action": "approve",
            "_selected_action": [str(season_batch.pk)],
            "confirm": "yes",
            "reason": "looks fine",
        },
    )
    season_batch.refresh_from_db()
    assert season_batch.state == BatchState.AWAITING_REVIEW


def test_a_reviewer_without_any_grant_is_kept_out_of_the_console(reviewer, season_batch):
    client = Client()
    client.force_login(reviewer)
    assert client.get(QUEUE).status_code == 403


def test_the_api_lists_covered_batches_and_the_users_own(reviewer, tree, season_batch, tour_batch):
    _grant(reviewer, tree["league"])
    own = _submit(reviewer, competition=tree["season"], key="own")
    client = APIClient()
    client.force_authenticate(reviewer)
    listed = {b["id"] for b in client.get(API).data["results"]}
    assert listed == {str(season_batch.pk), str(own.pk)}


def test_the_api_refuses_a_decision_outside_the_reviewers_grants(
    reviewer, tree, season_batch, tour_batch
):
    _grant(reviewer, tree["league"])
    client = APIClient()
    client.force_authenticate(reviewer)
    url = f"{API}{tour_batch.pk}/decision/"
    response = client.post(url, {"approve": True, "reason": "ok"}, format="json")
    assert response.status_code == 404
    tour_batch.refresh_from_db()
    assert tour_batch.state == BatchState.AWAITING_REVIEW
    allowed = client.post(
        f"{API}{season_batch.pk}/decision/", {"approve": False, "reason": "no"}, format="json"
    )
    assert allowed.status_code == 200, allowed.data


# --- the record of grant changes -------------------------------------------------------------


def test_giving_and_revoking_a_grant_write_access_history(submitter, admin_user, tree):
    competition_grant_set(
        user=submitter, competition=tree["league"], role="submitter", actor=admin_user, reason="r"
    )
    competition_grant_revoke(
        user=submitter, competition=tree["league"], actor=admin_user, reason="done"
    )
    rows = list(
        AccessHistory.objects.filter(user=submitter)
        .order_by("id")
        .values_list("event", "competition", "actor", "role_before", "role_after")
    )
    assert rows == [
        (AccessEvent.GRANTED, tree["league"].pk, admin_user.pk, "", "submitter"),
        (AccessEvent.REVOKED, tree["league"].pk, admin_user.pk, "submitter", ""),
    ]


# --- the commands ------------------------------------------------------------------------------


def test_submit_batch_refuses_a_competition_outside_the_grants_naming_it(submitter, tree):
    _grant(submitter, tree["sibling"])
    path = str(SAMPLES / f"{WBBL_MATCH}.json")
    with pytest.raises(CommandError, match="womens-big-bash-league-202021"):
        call_command(
            "submit_batch", path, "--as", "submitter", "--competition", tree["season"].code
        )
    assert not Batch.objects.exists()


def test_review_batch_refuses_a_reviewer_outside_the_grants(reviewer, tree, season_batch):
    _grant(reviewer, tree["sibling"])
    with pytest.raises(CommandError, match="may not review batch"):
        call_command(
            "review_batch", str(season_batch.pk), "--approve", "--reason", "ok", "--as", "reviewer"
        )
    season_batch.refresh_from_db()
    assert season_batch.state == BatchState.AWAITING_REVIEW
