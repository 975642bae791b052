import csv
import io
import re

import pytest
from django.contrib import admin
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.urls import get_resolver

from accounts.models import Subscriber, SubscriptionRequest
from accounts.services import subscriber_confirm, subscriber_signup, subscriber_unsubscribe
from accounts.views import unsubscribe_token

CONSENT = "I agree to the newsletter."


def _link_token() -> str:
    return re.search(r"/newsletter/confirm/([^/\s]+)/", mail.outbox[-1].body).group(1)


@pytest.fixture
def signed_up(django_capture_on_commit_callbacks):
    """Sign up and confirm through the mailed link, as a person would."""

    def sign_up(email, **fields):
        with django_capture_on_commit_callbacks(execute=True):
            subscriber_signup(email=email, consent_text=CONSENT, **fields)
        return subscriber_confirm(raw_token=_link_token())

    return sign_up


def _form(**extra):
    return {"email": "Ann@Example.ORG", "consent": "on", "first_name": "Ann", **extra}


@pytest.mark.django_db
def test_signup_lowercases_the_email_and_keeps_the_consent_sentence(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/newsletter/", _form(home_airport="lhr", interests=["spirits"]))
    assert response.status_code == 200
    subscriber_confirm(raw_token=_link_token())
    subscriber = Subscriber.objects.get()
    assert subscriber.email == "ann@example.org"
    assert subscriber.home_airport == "LHR"
    assert "newsletter" in subscriber.consent_text
    assert subscriber.consent_at is not None


@pytest.mark.django_db
def test_the_subscriber_table_has_no_address_or_user_agent_column():
    names = {field.name for field in Subscriber._meta.get_fields()}
    assert not names & {"ip", "ip_address", "user_agent", "client"}


@pytest.mark.django_db
def test_signup_without_consent_is_refused(client):
    client.post("/newsletter/", {"email": "bob@example.org"})
    assert not Subscriber.objects.exists()


@pytest.mark.django_db
def test_a_filled_honeypot_stores_nothing(client):
    response = client.post("/newsletter/", _form(website="http://spam.example"))
    assert response.status_code == 200
    assert not Subscriber.objects.exists()


@pytest.mark.django_db
def test_the_signup_form_requires_a_csrf_token():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/newsletter/", _form()).status_code == 403
    assert not Subscriber.objects.exists()


@pytest.mark.django_db
def test_signing_up_twice_keeps_one_row(signed_up):
    signed_up("Ann@example.org")
    signed_up("ann@EXAMPLE.org")
    assert Subscriber.objects.count() == 1


@pytest.mark.django_db
def test_unsubscribing_keeps_the_row_with_the_date(client, signed_up):
    signed_up("ann@example.org")
    client.post(f"/newsletter/unsubscribe/{unsubscribe_token('ann@example.org')}/")
    subscriber = Subscriber.objects.get()
    assert subscriber.unsubscribed_at is not None


@pytest.mark.django_db
def test_a_forged_unsubscribe_link_is_refused(client, signed_up):
    signed_up("ann@example.org")
    assert client.post("/newsletter/unsubscribe/ann@example.org:forged/").status_code == 404
    assert Subscriber.objects.get().unsubscribed_at is None


@pytest.mark.django_db
def test_export_subscribers_writes_the_current_list(tmp_path, signed_up):
    signed_up("ann@example.org", interests=["sport"])
    signed_up("bob@example.org")
    subscriber_unsubscribe(email="bob@example.org")
    target = tmp_path / "list.csv"
    call_command("export_subscribers", output=str(target), stderr=io.StringIO())
    rows = list(csv.DictReader(target.open()))
    assert [row["email"] for row in rows] == ["ann@example.org"]
    assert rows[0]["interests"] == "sport"


def test_subscribers_have_no_admin_page():
    assert Subscriber not in admin.site._registry


def test_no_url_route_reads_subscribers():
    def walk(patterns, prefix=""):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern.callback

    for route, callback in walk(get_resolver().url_patterns):
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        queryset = getattr(view, "queryset", None)
        assert getattr(queryset, "model", None) is not Subscriber, route
        if "subscri" in route:
            assert route.startswith(("newsletter/",)), route


# --- confirmation by the address ------------------------------------------------------------


@pytest.mark.django_db
def test_a_form_post_alone_subscribes_nobody(client):
    client.post("/newsletter/", _form())
    assert not Subscriber.objects.exists()
    assert SubscriptionRequest.objects.get().confirmed_at is None


@pytest.mark.django_db
def test_an_anonymous_post_with_a_known_address_changes_nothing_about_its_subscriber(
    client, signed_up
):
    signed_up("ann@example.org", first_name="Ann", home_airport="LHR")
    client.post("/newsletter/", _form(email="ann@example.org", first_name="Mallory",
                                      home_airport="DXB"))  # fmt: skip
    subscriber = Subscriber.objects.get()
    assert (subscriber.first_name, subscriber.home_airport) == ("Ann", "LHR")


@pytest.mark.django_db
def test_an_anonymous_post_cannot_undo_an_unsubscribe(client, signed_up):
    signed_up("ann@example.org")
    subscriber_unsubscribe(email="ann@example.org")
    client.post("/newsletter/", _form(email="ann@example.org"))
    assert Subscriber.objects.get().unsubscribed_at is not None


@pytest.mark.django_db
def test_the_subscriber_confirming_again_undoes_the_unsubscribe(signed_up):
    signed_up("ann@example.org")
    subscriber_unsubscribe(email="ann@example.org")
    assert signed_up("ann@example.org").unsubscribed_at is None


@pytest.mark.django_db
def test_a_change_takes_effect_when_the_address_confirms_it(signed_up):
    signed_up("ann@example.org", home_airport="LHR")
    assert signed_up("ann@example.org", home_airport="DXB").home_airport == "DXB"


@pytest.mark.django_db
def test_only_the_tokens_digest_is_stored(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        subscriber_signup(email="ann@example.org", consent_text=CONSENT)
    token = _link_token()
    stored = SubscriptionRequest.objects.get()
    assert token not in stored.token_hash and len(stored.token_hash) == 64


@pytest.mark.django_db
def test_a_confirmation_link_works_once(signed_up):
    signed_up("ann@example.org")
    with pytest.raises(Exception, match="not valid"):
        subscriber_confirm(raw_token=_link_token())


@pytest.mark.django_db
def test_an_expired_confirmation_link_is_refused(django_capture_on_commit_callbacks, settings):
    from datetime import timedelta

    from django.utils import timezone

    with django_capture_on_commit_callbacks(execute=True):
        subscriber_signup(email="ann@example.org", consent_text=CONSENT)
    SubscriptionRequest.objects.update(
        created_at=timezone.now() - timedelta(hours=49), expires_at=timezone.now()
    )
    with pytest.raises(Exception, match="not valid"):
        subscriber_confirm(raw_token=_link_token())
    assert not Subscriber.objects.exists()


@pytest.mark.django_db
def test_opening_the_link_shows_a_button_and_only_the_post_confirms(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/newsletter/", _form())
    url = f"/newsletter/confirm/{_link_token()}/"
    page = client.get(url)
    assert page.status_code == 200 and b"Confirm" in page.content
    assert not Subscriber.objects.exists()
    assert client.post(url).status_code == 200
    assert Subscriber.objects.get().email == "ann@example.org"
    assert client.post(url).status_code == 404
