"""The delivery change page is "propose correction": editors correct, reviewers read."""

import json

import pytest

from cricket.corrections import delivery_correct
from cricket.models import Delivery, DeliveryCorrectionHistory, DeliveryWicket
from cricket.tests.factories import cricsheet_match, seed_dismissal_kinds
from ingest.cricsheet.importer import Importer
from sports.models import Participant

pytestmark = pytest.mark.django_db


@pytest.fixture
def match():
    seed_dismissal_kinds()
    result = Importer().import_file(json.dumps(cricsheet_match()).encode(), filename="900001.json")
    return result.fixture_id


def live(match, over, position):
    return Delivery.objects.current().get(
        innings__fixture_id=match, over_number=over, position=position
    )


def page(delivery):
    return f"/admin/cricket/delivery/{delivery.pk}/change/"


def form_data(delivery, **changes):
    """The form as the page prefills it, with ``changes`` typed over it."""
    wicket = DeliveryWicket.objects.filter(delivery=delivery, ordinal=1).first()
    data = {
        "runs_batter": delivery.runs_batter,
        "non_boundary": "on" if delivery.non_boundary else "",
        "extra_wides": delivery.extra_wides if delivery.extra_wides is not None else "",
        "extra_noballs": delivery.extra_noballs if delivery.extra_noballs is not None else "",
        "extra_byes": delivery.extra_byes if delivery.extra_byes is not None else "",
        "extra_legbyes": delivery.extra_legbyes if delivery.extra_legbyes is not None else "",
        "extra_penalty": delivery.extra_penalty if delivery.extra_penalty is not None else "",
        "batter": delivery.batter_id,
        "bowler": delivery.bowler_id,
        "non_striker": delivery.non_striker_id,
        "wicket_kind": wicket.kind.name if wicket else "",
        "player_out": wicket.player_out_id if wicket else "",
        "fielders": "\n".join(str(f.participant_id) for f in wicket.fielders.all())
        if wicket
        else "",
        "reason": "",
    }
    data.update(changes)
    return data


def test_an_editor_sees_the_propose_correction_form(client, editor, match):
    client.force_login(editor)
    response = client.get(page(live(match, 0, 2)))
    assert response.status_code == 200
    assert "Propose correction" in response.content.decode()


def test_an_editor_proposes_a_correction_and_lands_on_the_new_revision(client, editor, match):
    client.force_login(editor)
    ball = live(match, 0, 2)
    response = client.post(page(ball), form_data(ball, runs_batter=3, reason="all run"))
    new = live(match, 0, 2)
    assert response.status_code == 302 and response["Location"] == page(new)
    assert (new.revision, new.runs_total) == (2, 3)
    assert DeliveryCorrectionHistory.objects.get().reason == "all run"
    followed = client.get(response["Location"]).content.decode()
    assert "revision 2 is now live" in followed and "all run" in followed


def test_the_reason_is_required_and_nothing_changes_without_it(client, editor, match):
    client.force_login(editor)
    ball = live(match, 0, 2)
    response = client.post(page(ball), form_data(ball, runs_batter=3))
    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    assert live(match, 0, 2).revision == 1


def test_the_services_refusal_shows_on_the_form(client, editor, match):
    client.force_login(editor)
    ball = live(match, 0, 2)
    response = client.post(
        page(ball), form_data(ball, bowler="00000000-0000-0000-0000-000000000000", reason="r")
    )
    assert response.status_code == 200
    assert "no participant has id" in str(response.context["form"].errors["bowler"])
    assert live(match, 0, 2).revision == 1


def test_an_editor_changes_the_catcher_through_the_form(client, editor, match):
    client.force_login(editor)
    ball = live(match, 0, 4)
    catcher = Participant.objects.get(name="Y Bowler")
    client.post(page(ball), form_data(ball, fielders=str(catcher.pk), reason="Y caught it"))
    wicket = DeliveryWicket.objects.get(delivery=live(match, 0, 4))
    assert [f.participant for f in wicket.fielders.all()] == [catcher]
    assert wicket.kind.name == "caught"


def test_a_superseded_revision_shows_no_form_and_links_to_the_live_one(client, editor, match):
    client.force_login(editor)
    ball = live(match, 0, 2)
    new = delivery_correct(delivery=ball, changes={"runs_batter": 3}, reason="r", actor=editor)
    response = client.get(page(ball))
    body = response.content.decode()
    assert response.status_code == 200 and response.context["form"] is None
    assert page(new.delivery) in body
    assert client.post(page(ball), form_data(ball, reason="r")).status_code == 403


def test_a_reviewer_reads_the_page_without_the_form_and_may_not_post(client, reviewer, match):
    client.force_login(reviewer)
    ball = live(match, 0, 2)
    response = client.get(page(ball))
    assert response.status_code == 200 and response.context["form"] is None
    assert client.post(page(ball), form_data(ball, runs_batter=3, reason="r")).status_code == 403
    assert live(match, 0, 2).revision == 1


def test_the_correction_history_console_renders_for_a_reviewer(client, reviewer, editor, match):
    delivery_correct(
        delivery=live(match, 0, 2), changes={"runs_batter": 3}, reason="r", actor=editor
    )
    client.force_login(reviewer)
    assert client.get("/admin/cricket/deliverycorrectionhistory/").status_code == 200
    record = DeliveryCorrectionHistory.objects.get()
    url = f"/admin/cricket/deliverycorrectionhistory/{record.pk}/change/"
    assert client.get(url).status_code == 200


def test_people_without_a_console_role_are_kept_out(client, viewer, match):
    client.force_login(viewer)
    response = client.get(page(live(match, 0, 2)))
    assert response.status_code == 302 and "/login/" in response["Location"]
