import factory

from accounts.models import AccountStatus, ApiConsumer, ApiConsumerKind, Role, User

DEFAULT_PASSWORD = "correct horse battery staple 42"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    display_name = factory.Faker("name")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    role = Role.VIEWER
    status = AccountStatus.ACTIVE
    password = factory.django.Password(DEFAULT_PASSWORD)


class StaffFactory(UserFactory):
    is_staff = True
    role = Role.EDITOR


class ApiConsumerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ApiConsumer

    name = factory.Sequence(lambda n: f"Data partner {n}")
    kind = ApiConsumerKind.ORGANISATION
    contact_email = factory.Sequence(lambda n: f"partner{n}@example.org")
    owner = factory.SubFactory(UserFactory)
    per_minute_limit = 60
    daily_quota = 10_000


def post_user_change(client, user: User, **changes):
    """Submit the console's change form of ``user`` as it stands, with ``changes`` applied."""
    page = client.get(f"/admin/accounts/user/{user.pk}/change/")
    if page.status_code != 200:
        return page
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "password"}
    for name in ("date_joined", "last_login"):
        data.pop(name, None)
    joined = user.date_joined
    data.update(
        {
            "date_joined_0": joined.strftime("%Y-%m-%d"),
            "date_joined_1": joined.strftime("%H:%M:%S"),
            "groups": [],
            "user_permissions": [],
            **changes,
        }
    )
    return client.post(f"/admin/accounts/user/{user.pk}/change/", data)
