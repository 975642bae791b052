import pytest

from accounts.tests.factories import DEFAULT_PASSWORD


@pytest.mark.django_db
def test_admin_login_page_renders_with_console_branding(client):
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert "omnium console" in response.content.decode()


@pytest.mark.django_db
def test_staff_user_can_log_in_to_the_admin(client, editor):
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": editor.username, "password": DEFAULT_PASSWORD},
        follow=True,
    )
    assert response.status_code == 200
    assert response.context["user"] == editor
    assert response.redirect_chain[-1][0] == "/admin/"


@pytest.mark.django_db
def test_non_staff_user_cannot_log_in_to_the_admin(client, viewer):
    response = client.post(
        "/admin/login/?next=/admin/", {"username": viewer.username, "password": DEFAULT_PASSWORD}
    )
    assert response.status_code == 200  # the form again, with an error
    assert not response.context["user"].is_authenticated


@pytest.mark.django_db
def test_home_page_shows_the_sections(client):
    page = client.get("/").content.decode()
    for section in ("Competitions", "Cricket", "Catalogue", "Articles"):
        assert section in page


@pytest.mark.django_db
def test_new_passwords_are_hashed_with_argon2(editor):
    assert editor.password.startswith("argon2$")
