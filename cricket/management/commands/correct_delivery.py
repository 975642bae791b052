"""``manage.py correct_delivery``: one delivery correction from the command line, through the
same service as the admin and the API."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from cricket.corrections import (
    CORRECTABLE_FIELDS,
    EXTRA_FIELDS,
    PEOPLE_FIELDS,
    delivery_correct,
    may_correct,
)
from cricket.models import Delivery, DeliveryWicket
from cricket.services import SOURCE
from sports.models import EntityType, ExternalIdMap, Fixture, FixtureCompetitor, Participant

NULLS = ("", "none", "null")
BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
# Short names for the extras, as Cricsheet spells them.
ALIASES = {field.removeprefix("extra_"): field for field in EXTRA_FIELDS}


def _fixture(match_id: str) -> Fixture:
    internal = (
        ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.FIXTURE, external_id=match_id
        )
        .values_list("internal_id", flat=True)
        .first()
    )
    if internal is None:
        raise CommandError(f"No imported Cricsheet match has id {match_id!r}.")
    return Fixture.objects.get(pk=internal)


def _player(fixture: Fixture, name: str) -> Participant:
    """A player of this fixture by its id, Cricsheet registry id, or a name (or earlier
    name) that only one of the fixture's players bears."""
    try:
        return Participant.objects.get(pk=uuid.UUID(name))
    except (ValueError, Participant.DoesNotExist):
        pass
    registry = (
        ExternalIdMap.objects.filter(
            source_code=SOURCE, entity_type=EntityType.PARTICIPANT, external_id=name
        )
        .values_list("internal_id", flat=True)
        .first()
    )
    if registry is not None:
        return Participant.objects.get(pk=registry)
    balls = Delivery.objects.filter(innings__fixture=fixture)
    in_fixture = (
        set(
            FixtureCompetitor.objects.filter(fixture=fixture).values_list(
                "participant_id", flat=True
            )
        )
        | set(balls.values_list("batter_id", flat=True))
        | set(balls.values_list("bowler_id", flat=True))
        | set(balls.values_list("non_striker_id", flat=True))
    )
    matches = list(
        Participant.objects.filter(pk__in=in_fixture)
        .filter(Q(name=name) | Q(aliases__name=name))
        .distinct()
    )
    if not matches:
        raise CommandError(f"No player of this match is called {name!r}.")
    if len(matches) > 1:
        ids = ", ".join(str(p.pk) for p in matches)
        raise CommandError(
            f"{name!r} names {len(matches)} players of this match ({ids}); give an id."
        )
    return matches[0]


class Command(BaseCommand):
    help = (
        "Correct one delivery: insert its next revision with the changed values and keep the "
        "old one in its history. Innings are numbered from 1 as on a scorecard, overs as in "
        "the file, positions from 0 in the over's list of deliveries."
    )

    def add_arguments(self, parser):
        parser.add_argument("--match", required=True, help="Cricsheet match id.")
        parser.add_argument("--innings", required=True, type=int, help="1-based.")
        parser.add_argument("--over", required=True, type=int, help="As numbered in the file.")
        parser.add_argument("--position", required=True, type=int, help="0-based in the over.")
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="FIELD=VALUE",
            help=f"Repeatable. Fields: {', '.join(CORRECTABLE_FIELDS)} (extras also as wides, "
            "noballs, byes, legbyes, penalty; 'none' clears an extra; people by name or id).",
        )
        parser.add_argument("--wicket-kind", help="Set the first wicket's kind (adds one if none).")
        parser.add_argument("--player-out", help="Set the first wicket's player out.")
        parser.add_argument(
            "--fielder",
            action="append",
            help="Repeatable: the first wicket's fielders (NAME, 'sub:NAME', or 'sub').",
        )
        parser.add_argument("--remove-wicket", action="store_true", help="Remove every wicket.")
        parser.add_argument("--reason", required=True)
        parser.add_argument("--actor", required=True, help="Username of an editor or admin.")

    def handle(self, *args, **options):
        actor = get_user_model().objects.filter(username=options["actor"]).first()
        if actor is None:
            raise CommandError(f"No account is called {options['actor']!r}.")
        if not may_correct(actor):
            raise CommandError(f"{actor} may not correct deliveries (editors and admins may).")
        fixture = _fixture(options["match"])
        delivery = (
            Delivery.objects.current()
            .filter(
                innings__fixture=fixture,
                innings__ordinal=options["innings"],
                over_number=options["over"],
                position=options["position"],
            )
            .first()
        )
        if delivery is None:
            raise CommandError(
                f"Match {options['match']} has no delivery at innings {options['innings']}, "
                f"over {options['over']}, position {options['position']}."
            )
        changes = self._changes(fixture, options["set"])
        wickets = self._wickets(fixture, delivery, options)
        try:
            result = delivery_correct(
                delivery=delivery,
                changes=changes,
                wicket_changes=wickets,
                reason=options["reason"],
                actor=actor,
            )
        except ValidationError as exc:
            raise CommandError(f"Not corrected: {'; '.join(_messages(exc))}") from exc
        new = result.delivery
        self.stdout.write(
            f"Corrected match {options['match']} innings {options['innings']} over "
            f"{options['over']} position {options['position']}: revision {new.revision} "
            f"(delivery {new.pk}) supersedes delivery {result.previous.pk}."
        )
        if result.relabelled:
            labels = ", ".join(f"{d.position}: {d.ball_label}" for d in result.relabelled)
            self.stdout.write(f"Printed labels moved in the over (position: label): {labels}.")

    def _changes(self, fixture: Fixture, pairs: list[str]) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        for pair in pairs:
            field, sep, raw = pair.partition("=")
            field = ALIASES.get(field.strip(), field.strip())
            if not sep:
                raise CommandError(f"--set {pair!r}: write FIELD=VALUE.")
            if field not in CORRECTABLE_FIELDS:
                raise CommandError(
                    f"--set {pair!r}: {field!r} cannot be corrected; "
                    f"fields: {', '.join(CORRECTABLE_FIELDS)}."
                )
            raw = raw.strip()
            if field in PEOPLE_FIELDS:
                changes[field] = _player(fixture, raw)
            elif field == "non_boundary":
                if raw.lower() not in BOOLEANS:
                    raise CommandError(f"--set {pair!r}: non_boundary is true or false.")
                changes[field] = BOOLEANS[raw.lower()]
            elif field in EXTRA_FIELDS and raw.lower() in NULLS:
                changes[field] = None
            else:
                try:
                    changes[field] = int(raw)
                except ValueError:
                    raise CommandError(f"--set {pair!r}: {raw!r} is not a whole number.") from None
        return changes

    def _wickets(self, fixture: Fixture, delivery: Delivery, options: dict):
        named = options["wicket_kind"] or options["player_out"] or options["fielder"]
        if options["remove_wicket"]:
            if named:
                raise CommandError("--remove-wicket cannot be combined with wicket values.")
            return []
        if not named:
            return None
        change = {}
        if options["wicket_kind"]:
            change["kind"] = options["wicket_kind"]
        if options["player_out"]:
            change["player_out"] = _player(fixture, options["player_out"])
        if options["fielder"] is not None:
            fielders = []
            for entry in options["fielder"]:
                substitute = entry == "sub" or entry.startswith("sub:")
                name = entry.removeprefix("sub").removeprefix(":") if substitute else entry
                fielders.append(
                    {
                        "participant": _player(fixture, name) if name else None,
                        "substitute": substitute,
                    }
                )
            change["fielders"] = fielders
        has_wicket = DeliveryWicket.objects.filter(delivery=delivery).exists()
        return {1: change} if has_wicket else [change]


def _messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [f"{field}: {' '.join(m)}" for field, m in error.message_dict.items()]
    return list(error.messages)
