"""Cricket records: the best (or worst) single performances and stands under a filter.

Each kind is a query over one derived table (statistic lines, partnerships or milestones),
ordered so that the record comes first, with a unique tie-break last so a cursor pages
it stably. Super-over innings never count. Every row names its players by their current
record (a merged player answers as the survivor) with their Cricsheet registry id, and
links to the scorecard of its match (or, for a series, to the series).

- ``highest-innings``: most runs in one innings (fewest balls first on a tie), ``*`` marks
  an innings not out.
- ``best-bowling-innings``, ``best-bowling-match``: most wickets, then fewest runs; a
  match sums the bowler's innings of one fixture.
- ``highest-totals``, ``lowest-totals``: a side's innings total; the lowest counts only
  complete innings (all out, counting batters absent hurt, or the full quota of legal
  balls of a limited-overs match bowled), never a declaration or a chase that finished.
- ``most-runs-series``, ``most-wickets-series``: summed over one series (the season node
  of an event in the competition tree); ``-season`` kinds over one season of the filter.
- ``partnerships``: the highest stands, ``wicket`` narrowing to one wicket.
- ``fastest-fifties``, ``fastest-hundreds``: fewest balls faced to reach the mark.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    CharField,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce
from django.urls import reverse

from cricket.models import InningsAbsent
from cricket.stats.models import CricketBattingLine, CricketBowlingLine, CricketTeamInningsLine
from cricket.stats.records_filters import RecordsFilter
from cricket.stats.records_models import CricketBattingMilestone, CricketPartnership
from sports.models import (
    Competition,
    EntityType,
    ExternalIdMap,
    Fixture,
    FixtureCompetitor,
    Participant,
)

Rows = list[dict[str, Any]]


def _sides(fixture_field: str, ids: Iterable[uuid.UUID]) -> Exists:
    """The fixture has one of ``ids`` as a side."""
    return Exists(
        FixtureCompetitor.objects.filter(
            fixture_id=OuterRef(fixture_field), parent__isnull=True, participant_id__in=ids
        )
    )


def _batting_side_q(rf: RecordsFilter, team_field: str, fixture_field: str = "fixture_id") -> Q:
    """Team and opposition for a row whose ``team_field`` is the batting side."""
    q = Q()
    if rf.team_ids:
        q &= Q(**{f"{team_field}__in": rf.team_ids})
    if rf.opposition_ids:
        q &= Q(_sides(fixture_field, rf.opposition_ids)) & ~Q(
            **{f"{team_field}__in": rf.opposition_ids}
        )
    return q


def _bowling_side_q(rf: RecordsFilter) -> Q:
    """Team and opposition for a bowling line: the bowler's side is the one not batting."""
    q = Q()
    if rf.team_ids:
        q &= Q(_sides("fixture_id", rf.team_ids)) & ~Q(innings__batting_team_id__in=rf.team_ids)
    if rf.opposition_ids:
        q &= Q(innings__batting_team_id__in=rf.opposition_ids)
    return q


def _venue_q(rf: RecordsFilter, field: str) -> Q:
    return Q(**{f"{field}__in": rf.venue_ids}) if rf.venue_ids else Q()


# --- the kinds -----------------------------------------------------------------------------


def _highest_innings(rf: RecordsFilter) -> QuerySet[Any]:
    return (
        CricketBattingLine.objects.filter(rf.scope_q(), _venue_q(rf, "fixture__venue_id"))
        .filter(_batting_side_q(rf, "team_id"))
        .filter(balls_faced__gt=0)
        .values("id", "fixture_id", "innings_ordinal", "participant_id", "team_id", "occurred_on")
        .annotate(
            runs=F("runs"),
            balls=F("balls_faced"),
            fours=F("fours"),
            sixes=F("sixes"),
            outs=F("outs"),
            format_code=F("format_code"),
        )
    )


def _bowling_innings(rf: RecordsFilter) -> QuerySet[Any]:
    return (
        CricketBowlingLine.objects.filter(rf.scope_q(), _venue_q(rf, "fixture__venue_id"))
        .filter(_bowling_side_q(rf))
        .filter(wickets__gt=0)
        .values("id", "fixture_id", "innings_ordinal", "participant_id", "occurred_on")
        .annotate(
            wickets=F("wickets"),
            runs=F("runs_conceded"),
            balls=F("legal_balls"),
            opposition_id=F("innings__batting_team_id"),
            format_code=F("format_code"),
        )
    )


def _bowling_match(rf: RecordsFilter) -> QuerySet[Any]:
    return (
        CricketBowlingLine.objects.filter(rf.scope_q(), _venue_q(rf, "fixture__venue_id"))
        .filter(_bowling_side_q(rf))
        .values("fixture_id", "participant_id")
        .annotate(
            wickets=Sum("wickets"),
            runs=Sum("runs_conceded"),
            balls=Sum("legal_balls"),
            occurred_on=Max("occurred_on"),
            format_code=Max("format_code"),
            # One opposition per match: a bowler only ever bowls at the other side.
            opposition_text=Max(Cast("innings__batting_team_id", CharField())),
        )
        .filter(wickets__gt=0)
    )


def _totals(rf: RecordsFilter) -> QuerySet[Any]:
    return (
        CricketTeamInningsLine.objects.filter(rf.scope_q(), _venue_q(rf, "fixture__venue_id"))
        .filter(_batting_side_q(rf, "team_id"))
        .values("id", "fixture_id", "innings_ordinal", "team_id", "occurred_on")
        .annotate(
            total=F("total"),
            wickets=F("wickets"),
            balls=F("legal_balls"),
            format_code=F("format_code"),
            declared=F("innings__declared"),
        )
    )


def _lowest_totals(rf: RecordsFilter) -> QuerySet[Any]:
    absent = (
        InningsAbsent.objects.filter(innings_id=OuterRef("innings_id"))
        .values("innings_id")
        .annotate(n=Count("*"))
        .values("n")
    )
    balls_per_over = Coalesce(
        Cast(KeyTextTransform("balls_per_over", "fixture__format"), IntegerField()),
        6,
        output_field=IntegerField(),
    )
    quota = Cast(KeyTextTransform("overs", "fixture__format"), IntegerField()) * balls_per_over
    return (
        _totals(rf)
        .annotate(absent=Coalesce(Subquery(absent, output_field=IntegerField()), 0), quota=quota)
        .filter(
            Q(wickets__gte=10 - F("absent")) | Q(quota__isnull=False, legal_balls__gte=F("quota"))
        )
        .filter(innings__forfeited=False)
    )


def _series_node() -> Subquery:
    return Subquery(
        Competition.objects.filter(
            tree_id=OuterRef("competition__tree_id"),
            lft__lte=OuterRef("competition__lft"),
            rght__gte=OuterRef("competition__rght"),
            type="season",
        ).values("id")[:1]
    )


def _most_runs(group: str) -> Callable[[RecordsFilter], QuerySet[Any]]:
    def query(rf: RecordsFilter) -> QuerySet[Any]:
        lines = (
            CricketBattingLine.objects.filter(rf.scope_q(), _venue_q(rf, "fixture__venue_id"))
            .filter(_batting_side_q(rf, "team_id"))
            .annotate(series_id=_series_node())
            .exclude(**{f"{group}__isnull": True})
        )
        return lines.values("participant_id", group).annotate(
            runs=Sum("runs"),
            innings=Count("id"),
            matches=Count("fixture_id", distinct=True),
            outs=Sum("outs"),
        )

    return query


def _most_wickets(group: str) -> Callable[[RecordsFilter], QuerySet[Any]]:
    def query(rf: RecordsFilter) -> QuerySet[Any]:
        lines = (
            CricketBowlingLine.objects.filter(rf.scope_q(), _venue_q(rf, "fixture__venue_id"))
            .filter(_bowling_side_q(rf))
            .annotate(series_id=_series_node())
            .exclude(**{f"{group}__isnull": True})
        )
        return (
            lines.values("participant_id", group)
            .annotate(
                wickets=Sum("wickets"),
                runs=Sum("runs_conceded"),
                balls=Sum("legal_balls"),
                matches=Count("fixture_id", distinct=True),
            )
            .filter(wickets__gt=0)
        )

    return query


def _own_table_q(rf: RecordsFilter) -> Q:
    q = rf.scope_q() & _venue_q(rf, "venue_id")
    if rf.team_ids:
        q &= Q(team_id__in=rf.team_ids)
    if rf.opposition_ids:
        q &= Q(opposition_id__in=rf.opposition_ids)
    return q


_PARTNERSHIP_FIELDS = (
    "id",
    "fixture_id",
    "innings_ordinal",
    "occurred_on",
    "format_code",
    "team_id",
    "opposition_id",
    "wicket",
    "runs",
    "balls",
    "batter_one_id",
    "batter_two_id",
    "batter_one_runs",
    "batter_one_balls",
    "batter_two_runs",
    "batter_two_balls",
    "unbroken",
    "ended_by",
)


def partnerships(rf: RecordsFilter) -> QuerySet[Any]:
    """Stands under the filter; ``wicket`` in the filter's extras narrows to one wicket."""
    qs = CricketPartnership.objects.filter(_own_table_q(rf))
    if rf.extra.get("wicket"):
        qs = qs.filter(wicket=rf.extra["wicket"])
    return qs.values(*_PARTNERSHIP_FIELDS)


def _milestones(mark: str) -> Callable[[RecordsFilter], QuerySet[Any]]:
    def query(rf: RecordsFilter) -> QuerySet[Any]:
        return (
            CricketBattingMilestone.objects.filter(_own_table_q(rf))
            .filter(**{f"{mark}__isnull": False})
            .values(
                "id",
                "fixture_id",
                "innings_ordinal",
                "participant_id",
                "team_id",
                "opposition_id",
                "occurred_on",
                "format_code",
                "runs",
                "not_out",
            )
            .annotate(balls=F(mark), innings_balls=F("balls"))
        )

    return query


@dataclass(frozen=True)
class RecordKind:
    query: Callable[[RecordsFilter], QuerySet[Any]]
    # Record first; the last fields make the order unique (a stable cursor).
    ordering: tuple[str, ...]
    shape: str  # player | team | aggregate | partnership
    description: str


KINDS: dict[str, RecordKind] = {
    "highest-innings": RecordKind(
        _highest_innings,
        ("-runs", "balls", "occurred_on", "id"),
        "player",
        "Most runs in one innings (* not out)",
    ),
    "best-bowling-innings": RecordKind(
        _bowling_innings,
        ("-wickets", "runs", "balls", "occurred_on", "id"),
        "player",
        "Most wickets in one innings, then fewest runs",
    ),
    "best-bowling-match": RecordKind(
        _bowling_match,
        ("-wickets", "runs", "balls", "occurred_on", "fixture_id", "participant_id"),
        "player",
        "Most wickets in one match, then fewest runs",
    ),
    "highest-totals": RecordKind(
        _totals, ("-total", "balls", "occurred_on", "id"), "team", "Highest innings totals"
    ),
    "lowest-totals": RecordKind(
        _lowest_totals,
        ("total", "-balls", "occurred_on", "id"),
        "team",
        "Lowest complete innings totals",
    ),
    "most-runs-series": RecordKind(
        _most_runs("series_id"),
        ("-runs", "innings", "participant_id", "series_id"),
        "aggregate",
        "Most runs in one series",
    ),
    "most-runs-season": RecordKind(
        _most_runs("season"),
        ("-runs", "innings", "participant_id", "season"),
        "aggregate",
        "Most runs in one season",
    ),
    "most-wickets-series": RecordKind(
        _most_wickets("series_id"),
        ("-wickets", "runs", "participant_id", "series_id"),
        "aggregate",
        "Most wickets in one series",
    ),
    "most-wickets-season": RecordKind(
        _most_wickets("season"),
        ("-wickets", "runs", "participant_id", "season"),
        "aggregate",
        "Most wickets in one season",
    ),
    "partnerships": RecordKind(
        partnerships,
        ("-runs", "balls", "occurred_on", "id"),
        "partnership",
        "Highest partnerships (per wicket with wicket=N)",
    ),
    "fastest-fifties": RecordKind(
        _milestones("balls_to_fifty"),
        ("balls", "-runs", "occurred_on", "id"),
        "player",
        "Fewest balls faced to reach 50",
    ),
    "fastest-hundreds": RecordKind(
        _milestones("balls_to_hundred"),
        ("balls", "-runs", "occurred_on", "id"),
        "player",
        "Fewest balls faced to reach 100",
    ),
}

# The parameters a kind takes beyond the common filter.
KIND_EXTRAS: dict[str, dict[str, Any]] = {"partnerships": {"wicket": int}}


def record_rows(kind: str, rf: RecordsFilter) -> QuerySet[Any]:
    """The ordered rows of one record kind (a values queryset, not yet decorated)."""
    spec = KINDS[kind]
    return spec.query(rf).order_by(*spec.ordering)


# --- decorating a page ------------------------------------------------------------------------


def _people(ids: set[Any]) -> dict[str, dict[str, Any]]:
    """Name and registry id of each participant id; a merged id answers with its survivor's
    name (and keeps the registry id it was recorded under). Two or three queries."""
    people = {
        str(p["pk"]): p
        for p in Participant.objects.filter(pk__in=ids).values("pk", "name", "merged_into_id")
    }
    survivors = {p["merged_into_id"] for p in people.values() if p["merged_into_id"]}
    while survivors:
        found = {
            str(p["pk"]): p
            for p in Participant.objects.filter(pk__in=survivors).values(
                "pk", "name", "merged_into_id"
            )
        }
        people.update(found)
        survivors = {p["merged_into_id"] for p in found.values() if p["merged_into_id"]}
    registry = dict(
        ExternalIdMap.objects.filter(
            source_code="cricsheet", entity_type=EntityType.PARTICIPANT, internal_id__in=ids
        ).values_list("internal_id", "external_id")
    )
    out: dict[str, dict[str, Any]] = {}
    for pk in map(str, ids):
        person = people.get(pk)
        if person is None:
            continue
        survivor = person
        while survivor["merged_into_id"]:
            survivor = people[str(survivor["merged_into_id"])]
        out[pk] = {
            "id": str(survivor["pk"]),
            "name": survivor["name"],
            "registry_id": registry.get(uuid.UUID(pk), ""),
        }
    return out


def _fixtures(ids: set[Any]) -> dict[str, dict[str, Any]]:
    """Each fixture's sides, name, venue and links (one query for the sides, one for the
    fixtures)."""
    sides: dict[str, list[tuple[str, str]]] = {}
    for row in (
        FixtureCompetitor.objects.filter(fixture_id__in=ids, parent__isnull=True)
        .order_by("fixture_id", "ordinal", "id")
        .values("fixture_id", "participant_id", "participant__name")
    ):
        sides.setdefault(str(row["fixture_id"]), []).append(
            (str(row["participant_id"]), row["participant__name"] or "")
        )
    out = {}
    for f in Fixture.objects.filter(pk__in=ids).values("pk", "name", "venue__name"):
        pk = str(f["pk"])
        out[pk] = {
            "name": f["name"],
            "venue": f["venue__name"] or "",
            "sides": sides.get(pk, []),
            "scorecard_url": reverse("cricket:scorecard", args=[f["pk"]]),
            "scorecard_api_url": reverse("cricket-fixture-scorecard", args=[f["pk"]]),
        }
    return out


def _other_side(fixture: dict[str, Any], team_id: str | None) -> tuple[str | None, str]:
    for pk, name in fixture["sides"]:
        if pk != team_id:
            return pk, name
    return None, ""


def _side_name(fixture: dict[str, Any], team_id: str | None) -> str:
    return next((name for pk, name in fixture["sides"] if pk == team_id), "")


def records_decorate(kind: str, rows: list[dict[str, Any]]) -> Rows:
    """The page's rows as the API and CLI show them: names, registry ids, sides, venue,
    scorecard links. A fixed number of queries whatever the page size."""
    shape = KINDS[kind].shape
    person_ids: set[Any] = set()
    for row in rows:
        for key in ("participant_id", "batter_one_id", "batter_two_id"):
            if row.get(key):
                person_ids.add(row[key])
    people = _people(person_ids) if person_ids else {}
    fixtures = _fixtures({r["fixture_id"] for r in rows if r.get("fixture_id")}) if rows else {}
    series: dict[str, str] = {}
    if shape == "aggregate" and any(r.get("series_id") for r in rows):
        series = {
            str(pk): name
            for pk, name in Competition.objects.filter(
                pk__in={r["series_id"] for r in rows if r.get("series_id")}
            ).values_list("pk", "name")
        }
    out: Rows = []
    for row in rows:
        item: dict[str, Any] = {}
        fixture = fixtures.get(str(row.get("fixture_id")))
        if fixture is not None:
            team_id = str(row["team_id"]) if row.get("team_id") else None
            opposition_id = row.get("opposition_id") or row.get("opposition_text")
            if opposition_id:
                opposition_id = str(opposition_id)
                team_id = team_id or _other_side(fixture, opposition_id)[0]
            else:
                opposition_id = _other_side(fixture, team_id)[0]
            item.update(
                fixture_id=str(row["fixture_id"]),
                fixture=fixture["name"],
                date=row.get("occurred_on"),
                match_type=row.get("format_code", ""),
                venue=fixture["venue"],
                team_id=team_id,
                team=_side_name(fixture, team_id),
                opposition_id=opposition_id,
                opposition=_side_name(fixture, opposition_id),
                scorecard_url=fixture["scorecard_url"],
                scorecard_api_url=fixture["scorecard_api_url"],
            )
            if row.get("innings_ordinal"):
                item["innings"] = row["innings_ordinal"]
        if row.get("participant_id"):
            person = people.get(str(row["participant_id"]), {})
            item.update(
                participant_id=person.get("id"),
                name=person.get("name", ""),
                registry_id=person.get("registry_id", ""),
            )
        if shape == "player":
            _player_figures(kind, row, item)
        elif shape == "team":
            item.update(
                total=row["total"],
                wickets=row["wickets"],
                balls=row["balls"],
                score=f"{row['total']}/{row['wickets']}"
                if row["wickets"] < 10
                else str(row["total"]),
                declared=row["declared"],
            )
        elif shape == "aggregate":
            _aggregate_figures(row, item, series)
        else:
            _partnership_figures(row, item, people)
        out.append(item)
    return out


def _player_figures(kind: str, row: dict[str, Any], item: dict[str, Any]) -> None:
    if kind == "highest-innings":
        not_out = row["outs"] == 0
        item.update(
            runs=row["runs"],
            balls=row["balls"],
            fours=row["fours"],
            sixes=row["sixes"],
            not_out=not_out,
            score=f"{row['runs']}{'*' if not_out else ''}",
        )
    elif kind.startswith("best-bowling"):
        item.update(
            wickets=row["wickets"],
            runs=row["runs"],
            balls=row["balls"],
            figures=f"{row['wickets']}/{row['runs']}",
        )
    else:
        item.update(
            balls=row["balls"],
            runs=row["runs"],
            innings_balls=row["innings_balls"],
            not_out=row["not_out"],
            score=f"{row['runs']}{'*' if row['not_out'] else ''}",
        )


def _aggregate_figures(row: dict[str, Any], item: dict[str, Any], series: dict[str, str]) -> None:
    if row.get("series_id"):
        item.update(
            series_id=str(row["series_id"]),
            series=series.get(str(row["series_id"]), ""),
            series_url=reverse("sports:competition-detail", args=[row["series_id"]]),
        )
    if "season" in row:
        item["season"] = row["season"]
    item["matches"] = row["matches"]
    if "innings" in row:
        item.update(runs=row["runs"], innings=row["innings"], outs=row["outs"])
    else:
        item.update(wickets=row["wickets"], runs=row["runs"], balls=row["balls"])


def _partnership_figures(
    row: dict[str, Any], item: dict[str, Any], people: dict[str, dict[str, Any]]
) -> None:
    batters = []
    for which in ("one", "two"):
        person = people.get(str(row[f"batter_{which}_id"]), {})
        batters.append(
            {
                "participant_id": person.get("id"),
                "name": person.get("name", ""),
                "registry_id": person.get("registry_id", ""),
                "runs": row[f"batter_{which}_runs"],
                "balls": row[f"batter_{which}_balls"],
            }
        )
    item.update(
        wicket=row["wicket"],
        runs=row["runs"],
        balls=row["balls"],
        unbroken=row["unbroken"],
        ended_by=row["ended_by"],
        score=f"{row['runs']}{'*' if row['unbroken'] else ''}",
        batters=batters,
    )
