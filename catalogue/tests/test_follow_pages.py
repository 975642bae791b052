"""The follow control on a product page, and the list of what an account follows."""

from decimal import Decimal

import pytest
from django.urls import reverse

from catalogue.alert_records import Follow
from catalogue.services import follow_set
from catalogue.tests.factories import ListingFactory, PriceObservationFactory, ProductFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def product():
    listing = ListingFactory(product=ProductFactory(name="Sauvage EDT 100 ml"))
    PriceObservationFactory(listing=listing)
    return listing.product


def page_of(client, product):
    return client.get(reverse("catalogue:product-detail", args=[product.pk])).content.decode()


def test_an_anonymous_reader_is_offered_a_sign_in_link(
    client, product, django_assert_max_num_queries
):
    # The page with its comparison and price history (a fixed number, however many prices).
    with django_assert_max_num_queries(7):  # the product page reads its awards too
        page = page_of(client, product)
    path = reverse("catalogue:product-detail", args=[product.pk])
    assert f"/admin/login/?next={path}" in page
    assert 'action="/catalogue/products/' not in page


def test_an_anonymous_follow_goes_to_sign_in_and_saves_nothing(client, product):
    response = client.post(reverse("catalogue:product-follow", args=[product.pk]))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not Follow.objects.exists()


def test_follow_and_unfollow_in_one_click_each(
    client, viewer, product, django_assert_max_num_queries
):
    client.force_login(viewer)
    # The signed-in shell, the page with its comparison and history, and the follow.
    with django_assert_max_num_queries(11):  # the product page reads its awards too
        assert "Follow</button>" in page_of(client, product)
    response = client.post(reverse("catalogue:product-follow", args=[product.pk]))
    assert response["Location"] == reverse("catalogue:product-detail", args=[product.pk])
    follow = Follow.objects.get(user=viewer, product=product)
    assert (follow.target_price, follow.drop_percent, follow.airports) == (None, None, [])
    page = page_of(client, product)
    assert "alerts on any drop" in page and "Unfollow</button>" in page
    client.post(reverse("catalogue:product-unfollow", args=[product.pk]))
    assert not Follow.objects.exists()


def test_follow_terms_come_from_the_form(client, viewer, product):
    client.force_login(viewer)
    client.post(
        reverse("catalogue:product-follow", args=[product.pk]),
        {"target_price": "80", "target_currency": "eur", "airports": "lhr, dxb"},
    )
    follow = Follow.objects.get()
    assert (follow.target_price, follow.target_currency) == (Decimal("80.00"), "EUR")
    assert follow.airports == ["DXB", "LHR"]
    assert "at or below 80.00 EUR at DXB, LHR" in page_of(client, product)


def test_bad_terms_answer_400_naming_the_field_and_save_nothing(client, viewer, product):
    client.force_login(viewer)
    response = client.post(
        reverse("catalogue:product-follow", args=[product.pk]), {"target_price": "80"}
    )
    assert response.status_code == 400
    assert "target_currency: A target price needs its currency" in response.content.decode()
    response = client.post(
        reverse("catalogue:product-follow", args=[product.pk]), {"target_price": "cheap"}
    )
    assert response.status_code == 400 and "target_price: " in response.content.decode()
    assert not Follow.objects.exists()


def test_the_followed_list_shows_each_follow_with_an_unfollow_button(
    client, viewer, product, django_assert_max_num_queries
):
    follow_set(user=viewer, product=product, actor=viewer, drop_percent=Decimal("15"))
    follow_set(user=viewer, product=ProductFactory(name="Other"), actor=viewer)
    client.force_login(viewer)
    with django_assert_max_num_queries(6):
        page = client.get(reverse("catalogue:follow-list")).content.decode()
    assert "Sauvage EDT 100 ml" in page and "a drop of 15% or more" in page
    assert page.count('aria-label="Unfollow ') == 2
    assert f'href="{reverse("catalogue:follow-list")}"' in page  # the header's link
    response = client.post(
        reverse("catalogue:product-unfollow", args=[product.pk]),
        {"next": reverse("catalogue:follow-list")},
    )
    assert response["Location"] == reverse("catalogue:follow-list")
    assert Follow.objects.count() == 1


def test_the_followed_list_needs_an_account(client):
    response = client.get(reverse("catalogue:follow-list"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_support_acting_as_someone_follows_for_them_and_the_audit_names_both(
    client, admin_user, viewer, product
):
    from accounts.models import AuditEntry

    client.force_login(admin_user)
    client.post(
        "/admin/accounts/user/",
        {"action": "act_as", "_selected_action": [viewer.pk], "confirm": "yes",
         "reason": "setting up an alert on the phone"},
    )  # fmt: skip
    client.post(reverse("catalogue:product-follow", args=[product.pk]))
    assert Follow.objects.get().user == viewer
    entry = AuditEntry.objects.get(action="catalogue.follow_set")
    assert (entry.actor, entry.acting_as) == (admin_user, viewer)
