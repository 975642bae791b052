"""The filters a records read accepts: the statistics query object's vocabulary.

``records_filter_from_params`` validates through ``StatsQuery.parse(view="records")``, the
one query object of the statistics views, the records, the API, the pages and the CLI:
an unknown parameter, or a value outside its rule, is a ``ValidationError`` naming it,
never silently ignored. ``RecordsFilter`` is the records' reading of such a query: the
scope as Django ``Q`` objects over the line and records tables, and the moment
(``as_of``) its rows are read at.

Teams and venues are named the way a reader writes them (a name, case-insensitive, or an
id); a name matches every cricket side of that name (the men's and women's India are
two participants), narrowed further by ``gender`` when given.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Collection, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef, Q

from cricket.stats.as_of import lines_as_of
from cricket.stats.models import CricketMatchSide
from cricket.stats.query import (
    FORMATS,
    GENDERS,
    HOME_AWAY,
    RECORDS_PARAMETERS,
    RESULTS,
    TEAM_TYPES,
    TOSS,
    StatsQuery,
)
from sports.models import Competition

__all__ = ["FILTER_PARAMS", "FORMATS", "GENDERS", "SIDE_CHOICES", "RecordsFilter",
           "records_filter_from_params"]  # fmt: skip

# The records' parameters: the statistics query's records vocabulary, the format under its
# records name (``match_type``; the API and the pages also take ``format``).
FILTER_PARAMS = tuple("match_type" if p == "format" else p for p in RECORDS_PARAMETERS)
# Filters read from the row's own side of the match (``CricketMatchSide``): the batting
# side for an innings, a total, a stand or a milestone; the fielding side for a bowler.
SIDE_CHOICES: dict[str, tuple[str, ...]] = {
    "team_type": TEAM_TYPES,
    "home_away": HOME_AWAY,
    "result": RESULTS,
    "toss": TOSS,
}
_SIDE_COLUMNS = ("home_away", "host_country", "result", "team_type", "toss")


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
    as_of: dt.datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        query: StatsQuery,
        *,
        competition: Competition | None = None,
        extra: dict[str, Any] | None = None,
    ) -> RecordsFilter:
        """The records' reading of a validated query (its competition node fetched)."""
        return cls(
            format_code=query.format_code,
            gender=query.gender,
            season=query.season,
            competition=competition,
            venue_ids=tuple(uuid.UUID(v) for v in query.venues),
            team_ids=tuple(uuid.UUID(t) for t in query.teams),
            opposition_ids=tuple(uuid.UUID(t) for t in query.oppositions),
            date_from=query.date_from.isoformat() if query.date_from else None,
            date_to=query.date_to.isoformat() if query.date_to else None,
            side=tuple(
                (column, getattr(query, column))
                for column in _SIDE_COLUMNS
                if getattr(query, column)
            ),
            innings=query.innings,
            as_of=query.as_of,
            extra=dict(extra or {}),
        )

    def moment(self) -> AbstractContextManager[None]:
        """The block a records read runs in: as of ``as_of``, else the stored rows."""
        return nullcontext() if self.as_of is None else lines_as_of(self.as_of)

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
            "as_of": self.as_of.isoformat() if self.as_of else None,
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


def records_filter_from_params(
    params: Mapping[str, Any],
    *,
    extra: Mapping[str, type[int] | Collection[str]] | None = None,
    ignore: Collection[str] = (),
) -> RecordsFilter:
    """A records filter from raw parameters (query string or CLI options), validated by
    the statistics query object (``StatsQuery.parse(view="records")``): one vocabulary and
    one set of rules for the statistics views and the records.

    ``match_type`` is the records' old name of ``format`` (an error names the one given);
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

    shared = {
        ("format" if name == "match_type" else name): value(name)
        for name in FILTER_PARAMS
        if value(name) is not None
    }
    query: StatsQuery | None = None
    try:
        query = StatsQuery.parse(shared, view="records")
    except ValidationError as exc:
        for name, messages in exc.message_dict.items():
            errors["match_type" if name == "format" else name] = " ".join(messages)
    competition = None
    if query is not None and query.competition_id is not None:
        competition = Competition.objects.filter(
            pk=query.competition_id, sport__code="cricket"
        ).first()
        if competition is None:
            errors["competition"] = f"{shared['competition']!r} is not a cricket competition's id"
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
    if errors or query is None:
        raise ValidationError(errors)
    return RecordsFilter.of(query, competition=competition, extra=chosen)
