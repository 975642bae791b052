import uuid

import factory
from django.utils import timezone

from sports.cricket.models import Delivery, DismissalKind, Innings
from sports.models import Submission, SubmissionKind
from sports.tests.factories import FixtureFactory, ParticipantFactory, SportFactory, TeamFactory


class CricketFactory(SportFactory):
    code = "cricket"
    name = "Cricket"


class SubmissionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Submission

    kind = SubmissionKind.CORPUS_IMPORT
    source_code = "cricsheet"
    accepted = True
    accepted_at = factory.LazyFunction(timezone.now)
    original_filename = factory.Sequence(lambda n: f"{1000 + n}.json")


class InningsFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Innings

    fixture = factory.SubFactory(FixtureFactory, sport=factory.SubFactory(CricketFactory))
    ordinal = 1
    batting_team = factory.SubFactory(TeamFactory)


class DeliveryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Delivery

    innings = factory.SubFactory(InningsFactory)
    over_number = 0
    position = factory.Sequence(lambda n: n % 30)
    sequence = factory.Sequence(lambda n: n + 1)
    ball_label = "0.1"
    batter = factory.SubFactory(ParticipantFactory)
    bowler = factory.SubFactory(ParticipantFactory)
    non_striker = factory.SubFactory(ParticipantFactory)
    runs_batter = 0
    runs_extras = 0
    runs_total = 0
    source_event_id = factory.LazyFunction(uuid.uuid4)
    submission = factory.SubFactory(SubmissionFactory)
    submission_event_ordinal = factory.Sequence(lambda n: n + 1)


def dismissal_kind(name: str) -> DismissalKind:
    """The seeded kind (the data migration puts all fourteen in every database)."""
    return DismissalKind.objects.get(name=name)
