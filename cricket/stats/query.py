"""The statistics query vocabulary: one query object for the API, the CLI and the pages.

``StatsQuery.parse(params, view=...)`` reads a ``QueryDict`` or a plain dict (the CLI's
options) and validates every parameter: an unknown name or a bad value raises
``django.core.exceptions.ValidationError`` naming the parameter and the rule, so a
filter is never silently ignored. The query is frozen; its ``where(alias, table)`` is the
SQL every fold (``aggregates._fold_sql``, ``figures``) narrows lines by.

Parameters (all optional):

- ``format``: a Cricsheet match type from ``FORMATS``, case-insensitive (``odi`` is ODI);
- ``gender`` (male, female), ``team_type`` (international, club);
- ``competition``: a competition node id, read with its whole subtree;
- ``season`` (as the source writes it), ``date_from``, ``date_to`` (ISO dates, inclusive);
- ``team``, ``opposition``: a team id or name (a name matches that team of either gender;
  narrow with ``gender``); ``venue``: a venue id, code or name; ``host_country``: the
  venue's ISO 3166 alpha-3 country;
- ``home_away`` (home, away, neutral): the venue's country against the player's team's and
  the opposition's, where both are known; unknown countries match none of the three;
- ``result`` (won, lost, tied, drawn, no_result) and ``toss`` (won, lost): from the side
  of the player's team (for a bowler or fielder, the fielding side);
- ``innings``: the innings number of the match (1-4, super overs counted in file order);
- ``position``: the batting position (1-11); it narrows batting lines and the matches
  counted with them;
- ``min_innings``, ``min_balls``, ``min_wickets``: the qualification (the view says which
  figure each reads: batting innings or bowling innings, balls faced or bowled);
- ``group_by``: player (the default), season, opposition, venue, innings (the innings
  number of the match);
- ``ordering``: any figure of the view, ``-`` for descending;
- ``super_overs`` (exclude, only): super-over innings are never mixed in;
- ``as_of``: the figures as they stood at a moment, an ISO 8601 date-time with its zone
  (``2025-06-01T00:00Z``), a date (midnight UTC) or ``now``; not after now. Only fixtures
  first published before it count, with the delivery revisions live at it
  (``cricket.stats.as_of``). Without it the stored lines are read as they are: the
  figure of today and the figure as of now are the same query.

How lines carry the keys. Team, format, gender, season, date and competition are columns
of every line (``_FixtureScope`` plus ``team_id``). Opposition, venue, host country,
home/away, result, toss and team type live once per team per fixture in
``CricketMatchSide``, and a line reaches them by a semi-join on (fixture, team), the side
table's unique key. Copying those seven columns onto five line tables would widen the
largest tables of the app (batting lines are one row per batter per innings) for filters
most queries never use; the semi-join reads the side table's index (two rows per fixture)
and costs one hash join, measured by ``make bench-stats-query`` against plain SQL over the
deliveries.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone

from cricket.stats.aggregates import SUPER_OVER_MODES, GroupKey, Scope
from cricket.stats.as_of import lines_as_of
from sports.models import EntityType, ExternalIdMap, Participant, ParticipantType, Venue

# Cricsheet's match types: the format filter takes one of these, in any case.
FORMATS = ("Test", "ODI", "T20", "IT20", "ODM", "MDM")
GENDERS = ("male", "female")
TEAM_TYPES = ("international", "club")
HOME_AWAY = ("home", "away", "neutral")
RESULTS = ("won", "lost", "tied", "drawn", "no_result")
TOSS = ("won", "lost")
GROUPINGS = ("player", "season", "opposition", "venue", "innings")
VIEWS = ("batting", "bowling", "fielding", "team", "innings")
# The records read a query too (``records_filters``), with the parameters below.
QUERY_VIEWS = (*VIEWS, "records")

# Parameters the API's pagination reads; they belong to no query.
PAGE_PARAMETERS = ("cursor", "page_size")

PARAMETERS = (
    "format",
    "gender",
    "team_type",
    "competition",
    "season",
    "date_from",
    "date_to",
    "team",
    "opposition",
    "venue",
    "host_country",
    "home_away",
    "result",
    "toss",
    "innings",
    "position",
    "min_innings",
    "min_balls",
    "min_wickets",
    "group_by",
    "ordering",
    "super_overs",
    "as_of",
)

# What a records read takes: the scope and side filters; a record has its own order and
# no grouping or qualification (a record kind adds its own, such as ``wicket``).
RECORDS_PARAMETERS = (
    "format",
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
    "as_of",
)

_SIDE = "cricket_cricketmatchside"
_SEASON = re.compile(r"^\d{4}(/\d{2})?$")


def _error(name: str, message: str) -> ValidationError:
    return ValidationError({name: message})


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    for choice in choices:
        if value.lower() == choice.lower():
            return choice
    raise _error(name, f"{value!r} is not one of {', '.join(choices)}")


def _whole(name: str, value: str, *, low: int, high: int | None = None) -> int:
    try:
        number = int(value)
    except ValueError as exc:
        raise _error(name, f"{value!r} is not a whole number") from exc
    if number < low or (high is not None and number > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise _error(name, f"{number} is not {bound}")
    return number


def _season(value: str) -> str:
    if not _SEASON.match(value):
        raise _error("season", f"{value!r} is not a season (2019 or 2019/20)")
    return value


def _date(name: str, value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise _error(name, f"{value!r} is not a date (YYYY-MM-DD)") from exc


def _moment(value: str) -> dt.datetime:
    """An ``as_of`` value: an aware ISO date-time, a date (its midnight UTC) or ``now``."""
    now = timezone.now()
    if value.lower() == "now":
        return now
    try:
        if len(value) == 10:
            moment = dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), dt.UTC)
        else:
            moment = dt.datetime.fromisoformat(value)
    except ValueError as exc:
        raise _error(
            "as_of", f"{value!r} is not a moment (2025-06-01T00:00Z, 2025-06-01 or now)"
        ) from exc
    if moment.tzinfo is None:
        raise _error("as_of", f"{value!r} has no time zone (end it with Z or +hh:mm)")
    if moment > now:
        raise _error("as_of", f"{value!r} is in the future")
    return moment


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _teams(name: str, value: str) -> tuple[str, ...]:
    """The team participants a team parameter names: an id, or a name as the source
    writes it (both genders' sides), or as the site shows it."""
    teams = Participant.objects.filter(sport__code="cricket", type=ParticipantType.TEAM)
    pk = _uuid(value)
    if pk is not None:
        found = list(teams.filter(pk=pk).values_list("pk", flat=True))
    else:
        by_source = ExternalIdMap.objects.filter(
            source_code="cricsheet",
            entity_type=EntityType.PARTICIPANT,
            external_id__in=[f"team:{g}:{value}" for g in GENDERS],
        ).values_list("internal_id", flat=True)
        found = list(
            teams.filter(Q(pk__in=by_source) | Q(name__iexact=value)).values_list("pk", flat=True)
        )
    if not found:
        raise _error(name, f"no cricket team {value!r}")
    return tuple(sorted(str(pk) for pk in found))


def _venues(value: str) -> tuple[str, ...]:
    pk = _uuid(value)
    venues = (
        Venue.objects.filter(pk=pk)
        if pk
        else Venue.objects.filter(Q(code=value) | Q(name__iexact=value))
    )
    found = sorted(str(pk) for pk in venues.values_list("pk", flat=True))
    if not found:
        raise _error("venue", f"no venue {value!r}")
    return tuple(found)


@dataclass(frozen=True)
class StatsQuery(Scope):
    """A validated statistics query: the scope of ``Scope`` plus the vocabulary above.
    Team, opposition and venue hold resolved ids; ``labels`` keeps what was asked for."""

    view: str = "batting"
    team_type: str | None = None
    teams: tuple[str, ...] = ()
    oppositions: tuple[str, ...] = ()
    venues: tuple[str, ...] = ()
    host_country: str | None = None
    home_away: str | None = None
    result: str | None = None
    toss: str | None = None
    innings: int | None = None
    position: int | None = None
    min_innings: int | None = None
    min_balls: int | None = None
    min_wickets: int | None = None
    group_by: str = "player"
    ordering: str | None = None
    as_of: dt.datetime | None = None
    labels: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @classmethod
    def parse(
        cls,
        params: Mapping[str, Any],
        *,
        view: str,
        allowed_extra: tuple[str, ...] = (),
    ) -> StatsQuery:
        """Validate ``params`` (a QueryDict or a dict of strings; None and "" are unset)
        for ``view``. Raises ValidationError naming the first unknown parameter, or every
        bad value."""
        if view not in QUERY_VIEWS:
            raise _error("view", f"{view!r} is not one of {', '.join(QUERY_VIEWS)}")
        known = RECORDS_PARAMETERS if view == "records" else PARAMETERS
        unknown = sorted(set(params) - set(known) - set(allowed_extra))
        if unknown:
            raise _error(
                unknown[0],
                f"unknown parameter {unknown[0]!r}; the parameters are {', '.join(known)}",
            )
        values: dict[str, str] = {}
        for name in known:
            raw = params.get(name)
            if hasattr(params, "getlist") and len(params.getlist(name)) > 1:
                raise _error(name, "given more than once")
            if raw is None or str(raw).strip() == "":
                continue
            values[name] = str(raw).strip()
        errors: dict[str, list[str]] = {}
        parsed: dict[str, Any] = {"view": view}
        readers = {
            "format": lambda v: ("format_code", _choice("format", v, FORMATS)),
            "gender": lambda v: ("gender", _choice("gender", v, GENDERS)),
            "team_type": lambda v: ("team_type", _choice("team_type", v, TEAM_TYPES)),
            "competition": lambda v: ("competition_id", _competition(v)),
            "season": lambda v: ("season", _season(v)),
            "date_from": lambda v: ("date_from", _date("date_from", v)),
            "date_to": lambda v: ("date_to", _date("date_to", v)),
            "team": lambda v: ("teams", _teams("team", v)),
            "opposition": lambda v: ("oppositions", _teams("opposition", v)),
            "venue": lambda v: ("venues", _venues(v)),
            "host_country": lambda v: ("host_country", _country(v)),
            "home_away": lambda v: ("home_away", _choice("home_away", v, HOME_AWAY)),
            "result": lambda v: ("result", _choice("result", v, RESULTS)),
            "toss": lambda v: ("toss", _choice("toss", v, TOSS)),
            "innings": lambda v: ("innings", _whole("innings", v, low=1, high=8)),
            "position": lambda v: ("position", _whole("position", v, low=1, high=11)),
            "min_innings": lambda v: ("min_innings", _whole("min_innings", v, low=0)),
            "min_balls": lambda v: ("min_balls", _whole("min_balls", v, low=0)),
            "min_wickets": lambda v: ("min_wickets", _whole("min_wickets", v, low=0)),
            "group_by": lambda v: ("group_by", _choice("group_by", v, GROUPINGS)),
            "ordering": lambda v: ("ordering", v),
            "super_overs": lambda v: ("super_overs", _choice("super_overs", v, SUPER_OVER_MODES)),
            "as_of": lambda v: ("as_of", _moment(v)),
        }
        for name, raw in values.items():
            try:
                attribute, value = readers[name](raw)
            except ValidationError as exc:
                for key, messages in exc.message_dict.items():
                    errors.setdefault(key, []).extend(messages)
                continue
            parsed[attribute] = value
        if (
            "date_from" in parsed
            and "date_to" in parsed
            and parsed["date_from"] > parsed["date_to"]
        ):
            errors.setdefault("date_to", []).append("is before date_from")
        if view == "team" and parsed.get("group_by") == "innings":
            errors.setdefault("group_by", []).append(
                "the team view groups by team, season, opposition or venue"
            )
        if errors:
            raise ValidationError(errors)
        parsed["labels"] = tuple(sorted(values.items()))
        return cls(**parsed)

    # --- SQL -----------------------------------------------------------------------------

    def where(self, alias: str = "l", table: str = "bat") -> tuple[str, list[Any]]:
        """The WHERE clause over a line table: ``app`` (appearances), ``lines`` (innings
        lines standing for appearances), ``bat``, ``bowl``, ``fld``, ``team`` (team
        innings, whose ``team_id`` is the batting side) or ``side`` (the side table)."""
        base, params = Scope.where(self, alias, table)
        clauses = [base]
        if self.teams:
            clauses.append(f"{alias}.team_id = ANY(%s::uuid[])")
            params.append(list(self.teams))
        side, side_params = self._side_clauses("s")
        if side:
            if table == "side":
                clauses.append(" AND ".join(c.replace("s.", f"{alias}.") for c in side))
            else:
                clauses.append(
                    f"({alias}.fixture_id, {alias}.team_id) IN (SELECT s.fixture_id, s.team_id"
                    f" FROM {_SIDE} s WHERE {' AND '.join(side)})"
                )
            params += side_params
        if self.innings is not None and table not in ("app", "side"):
            clauses.append(f"{alias}.innings_ordinal = %s")
            params.append(self.innings)
        if self.position is not None and table in ("bat", "lines"):
            clauses.append(f"{alias}.position = %s")
            params.append(self.position)
        return " AND ".join(clauses), params

    def _side_clauses(self, alias: str) -> tuple[list[str], list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for column, value in (
            ("team_type", self.team_type),
            ("host_country", self.host_country),
            ("home_away", self.home_away),
            ("result", self.result),
            ("toss", self.toss),
        ):
            if value:
                clauses.append(f"{alias}.{column} = %s")
                params.append(value)
        if self.oppositions:
            clauses.append(f"{alias}.opposition_id = ANY(%s::uuid[])")
            params.append(list(self.oppositions))
        if self.venues:
            clauses.append(f"{alias}.venue_id = ANY(%s::uuid[])")
            params.append(list(self.venues))
        return clauses, params

    def appearances_from_lines(self) -> str | None:
        if self.position is not None:
            return "bat"
        if self.innings is not None:
            return "bat,bowl,fld"
        return None

    def group_key(self) -> GroupKey | None:
        """The grouping column of a player fold (None: one row per player)."""
        side_join = f"JOIN {_SIDE} gs ON gs.fixture_id = l.fixture_id AND gs.team_id = l.team_id"
        return {
            "player": None,
            "season": GroupKey("l.season"),
            "opposition": GroupKey("gs.opposition_id", side_join),
            "venue": GroupKey("gs.venue_id", side_join),
            "innings": GroupKey("l.innings_ordinal", lines=True),
        }[self.group_by]

    def scope(self) -> Scope:
        """The plain fixture scope (format, gender, competition, season, dates, super
        overs), for readers keyed by fixtures alone (the pending-refresh check)."""
        return Scope(
            format_code=self.format_code,
            gender=self.gender,
            competition_id=self.competition_id,
            season=self.season,
            date_from=self.date_from,
            date_to=self.date_to,
            super_overs=self.super_overs,
        )

    def moment(self) -> AbstractContextManager[None]:
        """The block in which this query's lines are read: as of ``as_of`` (the line
        tables shadowed by their state then), else the stored lines as they are."""
        if self.as_of is None:
            return nullcontext()
        return lines_as_of(self.as_of)

    def with_view(self, view: str) -> StatsQuery:
        return replace(self, view=view)

    def as_dict(self) -> dict[str, Any]:
        return {"view": self.view, **dict(self.labels)}


def _competition(value: str) -> uuid.UUID:
    pk = _uuid(value)
    if pk is None:
        raise _error("competition", f"{value!r} is not an id")
    return pk


def _country(value: str) -> str:
    if len(value) != 3 or not value.isalpha():
        raise _error("host_country", f"{value!r} is not a three-letter country code")
    return value.upper()
