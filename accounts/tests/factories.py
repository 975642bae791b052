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
