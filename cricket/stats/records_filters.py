"""The filters a records read accepts, validated in one place (``records_filter_from_params``).

Every parameter is checked: an unknown one, or a value outside its rule, is a
``ValidationError`` naming it, never silently ignored. The API, the CLI and (later) the
shared statistics query object hand their raw parameters to this one function.

Teams and venues are named the way a reader writes them (a name, case-insensitive, or an
id); a name matches every cricket side of that name (the men's and women's India are
two participants), narrowed further by ``gender`` when given.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef, Q

from cricket.stats.models import CricketMatchSide
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    Participant,
    ParticipantType,
    Venue,
)

# Cricsheet's match types: the format filter takes one of these, in any case.
FORMATS = ("Test", "ODI", "T20", "IT20", "ODM", "MDM")
GENDERS = ("male", "female")
FILTER_PARAMS = (
    "match_type",
    "gender",
    "season",
    "competition",
    "venue",
    "team",
    "opposition",
    "date_from",
    "date_to",
    "team_type",
    "host_country",
    "home_away",
    "result",
    "toss",
    "innings",
)
# Filters read from the row's own side of the match (``CricketMatchSide``): the batting
# side for an innings, a total, a stand or a milestone; the fielding side for a bowler.
SIDE_CHOICES: dict[str, tuple[str, ...]] = {
    "team_type": ("international", "club"),
    "home_away": ("home", "away", "neutral"),
    "result": ("won", "lost", "tied", "drawn", "no_result"),
    "toss": ("won", "lost"),
}
_SEASON = re.compile(r"^\d{4}(/\d{2})?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class RecordsFilter:
    """Which rows a record reads. Every field narrows; empty lists mean "any"."""

    format_code: str | None = None
    gender: str | None = None
    season: str | None = None
    competition: Competition | None = None
    venue_ids: tuple[uuid.UUID, ...] = ()
    team_ids: tuple[uuid.UUID, ...] = ()
    opposition_ids: tuple[uuid.UUID, ...] = ()
    date_from: str | None = None
    date_to: str | None = None
    # (column, value) pairs of the row's side: team_type, host_country, home_away, result, toss
    side: tuple[tuple[str, str], ...] = ()
    innings: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "match_type": self.format_code,
            "gender": self.gender,
            "season": self.season,
            "competition": str(self.competition.pk) if self.competition else None,
            "venue": [str(v) for v in self.venue_ids] or None,
            "team": [str(t) for t in self.team_ids] or None,
            "opposition": [str(t) for t in self.opposition_ids] or None,
            "date_from": self.date_from,
            "date_to": self.date_to,
            **dict(self.side),
            "innings": self.innings,
            **self.extra,
        }

    def scope_q(self) -> Q:
        """The scope columns every line and records table carries."""
        q = Q(super_over=False)
        if self.format_code:
            q &= Q(format_code=self.format_code)
        if self.gender:
            q &= Q(gender=self.gender)
        if self.season:
            q &= Q(season=self.season)
        if self.date_from:
            q &= Q(occurred_on__gte=self.date_from)
        if self.date_to:
            q &= Q(occurred_on__lte=self.date_to)
        if self.innings is not None:
            q &= Q(innings_ordinal=self.innings)
        if self.side:
            # Every records table carries the fixture and its row's side (team_id).
            q &= Q(
                Exists(
                    CricketMatchSide.objects.filter(
                        fixture_id=OuterRef("fixture_id"),
                        team_id=OuterRef("team_id"),
                        **dict(self.side),
                    )
                )
            )
        if self.competition is not None:
            node = self.competition
            q &= Q(
                competition__tree_id=node.tree_id,
                competition__lft__gte=node.lft,
                competition__rght__lte=node.rght,
            )
        return q


def _as_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _teams(name: str, value: str, gender: str | None) -> tuple[uuid.UUID, ...]:
    pk = _as_uuid(value)
    if pk:
        found = tuple(
            Participant.objects.filter(
                pk=pk, sport__code="cricket", type=ParticipantType.TEAM
            ).values_list("pk", flat=True)
        )
    else:
        # The importer keys a side by gender and the Cricsheet name ("team:female:India"),
        # and shows a women's side as "India (women)": either spelling finds it.
        keys = Q()
        for g in (gender,) if gender else GENDERS:
            keys |= Q(external_id__iexact=f"team:{g}:{value}")
        by_key = ExternalIdMap.objects.filter(
            keys, source_code="cricsheet", entity_type=EntityType.PARTICIPANT
        ).values("internal_id")
        teams = Participant.objects.filter(
            sport__code="cricket", type=ParticipantType.TEAM, merged_into__isnull=True
        )
        found = tuple(
            teams.filter(Q(pk__in=by_key) | (Q(name__iexact=value) if not gender else Q()))
            .values_list("pk", flat=True)
            .distinct()
        )
    if not found:
        raise ValidationError({name: f"no cricket team is named {value!r}"})
    return found


def _venues(value: str) -> tuple[uuid.UUID, ...]:
    pk = _as_uuid(value)
    venues = Venue.objects.filter(Q(pk=pk) if pk else Q(name__iexact=value) | Q(code__iexact=value))
    found = tuple(venues.values_list("pk", flat=True))
    if not found:
        raise ValidationError({"venue": f"no venue is named {value!r}"})
    return found


def records_filter_from_params(
    params: Mapping[str, Any],
    *,
    extra: Mapping[str, type[int] | Collection[str]] | None = None,
    ignore: Collection[str] = (),
) -> RecordsFilter:
    """A records filter from raw parameters (query string or CLI options).

    ``extra`` names the parameters one read adds (an int, or a fixed set of words);
    ``ignore`` names transport parameters someone else reads (the cursor). Every other
    parameter, and every bad value, is a ValidationError naming each of them at once."""
    extra = dict(extra or {})
    errors: dict[str, str] = {}
    allowed = set(FILTER_PARAMS) | set(extra) | set(ignore)
    for name in sorted(set(params) - allowed):
        errors[name] = (
            f"unknown parameter; known: {', '.join(sorted(set(FILTER_PARAMS) | set(extra)))}"
        )

    def value(name: str) -> str | None:
        raw = params.get(name)
        if raw is None:
            return None
        text = str(raw).strip()
        return text or None

    format_code = value("match_type")
    if format_code:
        canonical = {f.lower(): f for f in FORMATS}.get(format_code.lower())
        if canonical is None:
            errors["match_type"] = f"{format_code!r} is not one of {', '.join(FORMATS)}"
        format_code = canonical
    gender = value("gender")
    if gender:
        gender = gender.lower()
        if gender not in GENDERS:
            errors["gender"] = f"{gender!r} is not one of {', '.join(GENDERS)}"
            gender = None
    season = value("season")
    if season and not _SEASON.match(season):
        errors["season"] = f"{season!r} is not a season (2019 or 2019/20)"
    dates: dict[str, str | None] = {}
    for name in ("date_from", "date_to"):
        dates[name] = value(name)
        raw_date = dates[name] or ""
        if raw_date:
            try:
                valid = bool(_DATE.match(raw_date)) and bool(dt.date.fromisoformat(raw_date))
            except ValueError:
                valid = False
            if not valid:
                errors[name] = f"{raw_date!r} is not a date (YYYY-MM-DD)"
    competition = None
    raw_competition = value("competition")
    if raw_competition:
        pk = _as_uuid(raw_competition)
        competition = (
            Competition.objects.filter(pk=pk, sport__code="cricket").first() if pk else None
        )
        if competition is None:
            errors["competition"] = f"{raw_competition!r} is not a cricket competition's id"
    found: dict[str, tuple[uuid.UUID, ...]] = {}
    for name in ("team", "opposition", "venue"):
        raw = value(name)
        if not raw:
            continue
        try:
            found[name] = _venues(raw) if name == "venue" else _teams(name, raw, gender)
        except ValidationError as exc:
            errors.update({k: v[0] for k, v in exc.message_dict.items()})
    side: list[tuple[str, str]] = []
    for name, choices in SIDE_CHOICES.items():
        raw = value(name)
        if raw:
            if raw.lower() not in choices:
                errors[name] = f"{raw!r} is not one of {', '.join(choices)}"
            else:
                side.append((name, raw.lower()))
    country = value("host_country")
    if country:
        if len(country) != 3 or not country.isalpha():
            errors["host_country"] = f"{country!r} is not a three-letter country code"
        else:
            side.append(("host_country", country.upper()))
    innings = None
    raw_innings = value("innings")
    if raw_innings:
        if not raw_innings.isdigit() or not 1 <= int(raw_innings) <= 8:
            errors["innings"] = f"{raw_innings!r} is not an innings number between 1 and 8"
        else:
            innings = int(raw_innings)
    chosen: dict[str, Any] = {}
    for name, rule in extra.items():
        raw = value(name)
        if raw is None:
            continue
        if rule is int:
            if not raw.isdigit() or int(raw) < 1:
                errors[name] = f"{raw!r} is not a whole number of at least 1"
            else:
                chosen[name] = int(raw)
        elif isinstance(rule, Collection):
            if raw not in rule:
                errors[name] = f"{raw!r} is not one of {', '.join(sorted(rule))}"
            else:
                chosen[name] = raw
    if errors:
        raise ValidationError(errors)
    return RecordsFilter(
        format_code=format_code,
        gender=gender,
        season=season,
        competition=competition,
        venue_ids=found.get("venue", ()),
        team_ids=found.get("team", ()),
        opposition_ids=found.get("opposition", ()),
        date_from=dates["date_from"],
        date_to=dates["date_to"],
        side=tuple(sorted(side)),
        innings=innings,
        extra=chosen,
    )
