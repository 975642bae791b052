import factory

from sports.models import (
    Archetype,
    Competition,
    Fixture,
    FixtureCompetitor,
    Participant,
    ParticipantType,
    Sport,
    SportDefinitionVersion,
    Venue,
)
from sports.plugins.football import FootballPlugin
from sports.plugins.ranked_field import RankedFieldPlugin


class SportFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Sport
        django_get_or_create = ("code",)
        skip_postgeneration_save = True

    code = factory.Sequence(lambda n: f"sport-{n}")
    name = factory.LazyAttribute(lambda s: s.code.title())
    archetype = Archetype.HEAD_TO_HEAD


class FootballFactory(SportFactory):
    code = "football"
    name = "Football"
    archetype = Archetype.HEAD_TO_HEAD

    @factory.post_generation
    def definition(obj, create, extracted, **kwargs):
        if create and not obj.definitions.exists():
            SportDefinitionVersion.objects.create(
                sport=obj,
                version=1,
                plugin="football",
                meta_schema=FootballPlugin.meta_schema,
                format_schema=FootballPlugin.format_schema,
            )


class AthleticsFactory(SportFactory):
    code = "athletics"
    name = "Athletics"
    archetype = Archetype.RANKED_FIELD

    @factory.post_generation
    def definition(obj, create, extracted, **kwargs):
        if create and not obj.definitions.exists():
            SportDefinitionVersion.objects.create(
                sport=obj,
                version=1,
                plugin="ranked_field",
                status_codes={**RankedFieldPlugin.status_codes, "DQ": "DSQ", "NM": "FINISHED"},
            )


class VenueFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Venue

    code = factory.Sequence(lambda n: f"venue-{n}")
    name = factory.Sequence(lambda n: f"Ground {n}")


class CompetitionFactory(factory.django.DjangoModelFactory):
    """Writes straight to the table; tests of tree writes use the services instead."""

    class Meta:
        model = Competition

    sport = factory.SubFactory(SportFactory)
    type = "league"
    code = factory.Sequence(lambda n: f"comp-{n}")
    name = factory.Sequence(lambda n: f"Competition {n}")


class ParticipantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Participant

    code = factory.Sequence(lambda n: f"p-{n}")
    type = ParticipantType.PERSON
    name = factory.Sequence(lambda n: f"Player {n}")


class TeamFactory(ParticipantFactory):
    type = ParticipantType.TEAM
    name = factory.Sequence(lambda n: f"Team {n}")


class CountryFactory(ParticipantFactory):
    type = ParticipantType.COUNTRY
    code = factory.Sequence(lambda n: f"C{chr(65 + n % 26)}{chr(65 + (n // 26) % 26)}")
    country = factory.LazyAttribute(lambda p: p.code)


class FixtureFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Fixture

    sport = factory.SubFactory(SportFactory)
    competition = factory.SubFactory(CompetitionFactory, sport=factory.SelfAttribute("..sport"))
    code = factory.Sequence(lambda n: f"fx-{n}")
    archetype = Archetype.HEAD_TO_HEAD


class CompetitorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FixtureCompetitor

    fixture = factory.SubFactory(FixtureFactory)
    participant = factory.SubFactory(TeamFactory)


def publish(fixture, *, accepted=True):
    """Record the submission that first brought ``fixture``; public readers see it only
    when that submission is accepted."""
    from sports.models import Fixture, SubmissionKind
    from sports.services import submission_record

    submission = submission_record(
        kind=SubmissionKind.HAND_ENTRY,
        source_code="hand",
        actor="integration:test",
        accepted=accepted,
    )
    Fixture.objects.filter(pk=fixture.pk).update(first_seen_in=submission)
    fixture.first_seen_in = submission
    return fixture
