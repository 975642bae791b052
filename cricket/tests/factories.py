import importlib
import uuid

import factory
from django.utils import timezone

from cricket.models import Delivery, DismissalKind, Innings, delivery_day
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
    occurred_on = factory.LazyAttribute(lambda d: delivery_day(d.innings.fixture))
    submission = factory.SubFactory(SubmissionFactory)
    submission_event_ordinal = factory.Sequence(lambda n: n + 1)


def dismissal_kind(name: str) -> DismissalKind:
    """The seeded kind (the data migration puts all fourteen in every database)."""
    return DismissalKind.objects.get(name=name)


def cricsheet_match(**info_overrides) -> dict:
    """A small, valid Cricsheet match document (data_version 1.1.0): two teams of three,
    one innings of two overs holding a wide, a no-ball with byes, an explicit zero extra and
    a caught wicket. Tests break one part of it at a time."""
    people = {
        "A Batter": "aaaa0001",
        "B Batter": "aaaa0002",
        "C Batter": "aaaa0003",
        "X Bowler": "bbbb0001",
        "Y Bowler": "bbbb0002",
        "Z Keeper": "bbbb0003",
        "U Umpire": "cccc0001",
    }

    def ball(batter, bowler, non_striker, runs=0, extras=None, **more):
        extra_runs = sum((extras or {}).values())
        delivery = {
            "batter": batter,
            "bowler": bowler,
            "non_striker": non_striker,
            "runs": {"batter": runs, "extras": extra_runs, "total": runs + extra_runs},
        }
        if extras is not None:
            delivery["extras"] = extras
        delivery.update(more)
        return delivery

    over0 = [
        ball("A Batter", "X Bowler", "B Batter", 1),
        ball("B Batter", "X Bowler", "A Batter", 0, {"wides": 1}),
        ball("B Batter", "X Bowler", "A Batter", 4),
        ball("B Batter", "X Bowler", "A Batter", 0, {"noballs": 1, "byes": 2}),
        ball(
            "B Batter",
            "X Bowler",
            "A Batter",
            0,
            wickets=[
                {"player_out": "B Batter", "kind": "caught", "fielders": [{"name": "Z Keeper"}]}
            ],
        ),
        ball("C Batter", "X Bowler", "A Batter", 6),
        ball("C Batter", "X Bowler", "A Batter", 0, {"legbyes": 0}),
    ]
    over1 = [ball("A Batter", "Y Bowler", "C Batter", 2) for _ in range(6)]
    info = {
        "balls_per_over": 6,
        "city": "Testville",
        "dates": ["2024-05-01"],
        "event": {"name": "Test Trophy", "match_number": 1},
        "gender": "male",
        "match_type": "T20",
        "officials": {"umpires": ["U Umpire"]},
        "outcome": {"winner": "Home", "by": {"runs": 10}},
        "overs": 20,
        "player_of_match": ["A Batter"],
        "players": {
            "Home": ["A Batter", "B Batter", "C Batter"],
            "Away": ["X Bowler", "Y Bowler", "Z Keeper"],
        },
        "registry": {"people": people},
        "season": "2024",
        "team_type": "club",
        "teams": ["Home", "Away"],
        "toss": {"decision": "bat", "winner": "Home"},
        "venue": "Test Ground",
    }
    info.update(info_overrides)
    return {
        "meta": {"data_version": "1.1.0", "created": "2024-05-02", "revision": 1},
        "info": info,
        "innings": [
            {
                "team": "Home",
                "overs": [
                    {"over": 0, "deliveries": over0},
                    {"over": 1, "deliveries": over1},
                ],
                "penalty_runs": {"post": 5},
            }
        ],
    }


def seed_dismissal_kinds() -> None:
    """Put the fourteen kinds back: the data migration seeds them, but a transactional test
    elsewhere in the suite flushes every table, migration-seeded rows included."""
    from django.apps import apps

    seed = importlib.import_module("cricket.migrations.0002_dismissal_kinds").seed
    seed(apps, None)
