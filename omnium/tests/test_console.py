"""The console kit: who acted, the confirm-then-service form, links, the paginator."""

from types import SimpleNamespace

import pytest
from django import forms
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory

from omnium.actors import request_acting_as
from omnium.console import admin_link, confirmed_form, request_actor
from omnium.console import request_actor as console_request_actor


def person(pk: int):
    return SimpleNamespace(pk=pk, is_authenticated=True)


def acting_request(real, acted_as):
    """A request as the acting middleware leaves it while ``real`` acts as ``acted_as``."""
    request = RequestFactory().get("/")
    request.user, request.real_user, request.acting_as = acted_as, real, acted_as
    return request


def test_the_actor_is_the_person_at_the_keyboard_while_acting_as_someone():
    support, customer = person(1), person(2)
    request = acting_request(support, customer)
    assert request_actor(request) is support
    assert request_acting_as(request) is customer


def test_the_actor_is_the_signed_in_user_when_nobody_acts_as_anyone():
    editor = person(1)
    request = acting_request(editor, None)
    request.user = editor
    assert request_actor(request) is editor and request_acting_as(request) is None


def test_an_api_request_authenticated_by_its_own_key_is_not_acting():
    # DRF wraps the Django request; its user came from an API key, not the session.
    support, customer, key_owner = person(1), person(2), person(3)
    drf_request = SimpleNamespace(_request=acting_request(support, customer), user=key_owner)
    assert request_actor(drf_request) is key_owner
    assert request_acting_as(drf_request) is None


def test_an_anonymous_request_has_no_actor():
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    assert request_actor(request) is None


def test_the_console_kit_offers_the_same_actor_helper():
    assert console_request_actor is request_actor


class NoteForm(forms.Form):
    note = forms.CharField()


def test_the_actions_form_is_unbound_until_the_confirmation_page_is_submitted():
    chose_rows = RequestFactory().post("/", {"action": "merge", "note": "x"})
    confirmed = RequestFactory().post("/", {"action": "merge", "confirm": "yes", "note": "x"})
    assert not confirmed_form(chose_rows, NoteForm).is_bound
    assert confirmed_form(confirmed, NoteForm).is_valid()


def test_a_missing_row_links_to_nothing():
    assert admin_link(None) == "—"


@pytest.mark.django_db
def test_a_link_escapes_its_label(admin_user):
    html = admin_link(admin_user, "<b>me</b>")
    assert f'/admin/accounts/user/{admin_user.pk}/change/"' in html
    assert "&lt;b&gt;me&lt;/b&gt;" in html
