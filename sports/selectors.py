"""Reads that build the public sports pages: the competition tree, a league season, a
Games, and the pages of a participant (team, person, country) and of a venue.

Every fixture read here goes through ``Fixture.objects.public()``; every figure comes from
the stat lines and the folded tables (``sports.services.tables``), never from a second
fold written for a page.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from sports.models import (
    NATIONAL_SIDE,
    Competition,
    CompetitionEntry,
    Fixture,
    FixtureCompetitor,
    FixtureStatus,
    Membership,
    Participant,
    ParticipantType,
    StatLine,
    TableKind,
    Venue,
)
from sports.querysets import SEASON, FixtureQuerySet
from sports.services.tables import DEFAULT_POINTS, MEDALS, effective_config, stat_table

RECENT = 10
PLAYERS_SHOWN = 100
PROGRESSION_TEAMS = 6
MEDAL_CHART_COUNTRIES = 15
# The URL name of the cricket statistics page of a player. Sports cannot import cricket
# (cricket sits above it), so the page is found by name, and only when it is installed.
CRICKET_PLAYER_URL = "cricket_stats:player"
TEAM_TYPES = (ParticipantType.TEAM, ParticipantType.PAIR, ParticipantType.CREW)


# The competition tree ---------------------------------------------------------------


@dataclass
class TreeRoot:
    node: Competition
    seasons: list[Competition] = field(default_factory=list)


@dataclass
class SportGroup:
    label: str
    code: str
    roots: list[TreeRoot]


def competition_groups(*, sport: str | None = None) -> list[SportGroup]:
    """Every canonical tree root grouped by its sport (multi-sport Games last), each with
    its seasons latest first; nodes carry ``first_start``/``last_start`` fixture dates.
    ``sport`` (a sport code) keeps that sport's trees and the Games holding a node of it."""
    roots = (
        Competition.objects.canonical()
        .filter(parent__isnull=True)
        .select_related("sport")
        .with_fixture_dates()
        .order_by("name")
    )
    if sport:
        roots = roots.filter(
            tree_id__in=Competition.objects.filter(sport__code=sport).values("tree_id")
        )
    found = [TreeRoot(node=root) for root in roots]
    by_id = {r.node.pk: r for r in found}
    if by_id:
        seasons = (
            Competition.objects.canonical()
            .filter(parent__in=list(by_id), type=SEASON)
            .with_fixture_dates()
            .order_by("-start_date", "-last_start", "-name")
        )
        for season in seasons:
            by_id[season.parent_id].seasons.append(season)
    groups: dict[str, SportGroup] = {}
    for r in found:
        sport_row = r.node.sport
        code = sport_row.code if sport_row is not None else ""
        label = sport_row.name if sport_row is not None else "Multi-sport Games"
        groups.setdefault(code, SportGroup(label=label, code=code, roots=[])).roots.append(r)
    return sorted(groups.values(), key=lambda g: (g.code == "", g.label))


@dataclass
class SeasonChoice:
    """The seasons a league page can show and the one it shows."""

    seasons: list[Competition]
    selected: Competition | None
    # The node whose ``?season=`` picks among ``seasons`` (the league), or None when the
    # page is itself one season (its siblings are linked instead).
    chooser: Competition | None


def season_choice(node: Competition, requested: str | None) -> SeasonChoice:
    """On a node above seasons: its seasons and the requested one (else the latest). On a
    season: the seasons of its parent, the node selected. Elsewhere: no seasons."""
    if node.type == SEASON and node.parent_id is not None:
        parent = Competition.objects.get(pk=node.parent_id)
        return SeasonChoice(
            seasons=list(Competition.objects.seasons_under(parent).filter(level=node.level)),
            selected=node,
            chooser=None,
        )
    seasons = list(Competition.objects.seasons_under(node))
    if not seasons:
        return SeasonChoice(seasons=[], selected=None, chooser=None)
    chosen = next((s for s in seasons if str(s.pk) == requested), seasons[0])
    return SeasonChoice(seasons=seasons, selected=chosen, chooser=node)


def fixtures_by_round(scope: Competition) -> FixtureQuerySet[Fixture]:
    """The public fixtures under ``scope`` in tree order of their node (stage, round,
    matchday: the order the import made them), then kick-off; the page groups them by
    ``competition``."""
    return (
        Fixture.objects.public()
        .under(scope)
        .with_competitors()
        .order_by("competition__lft", "scheduled_start", "code")
    )


@dataclass
class Progression:
    """Points after each match played, per team: the data of a line chart."""

    labels: list[str]
    series: list[tuple[str, list[float | None]]]
    teams: int


def points_progression(
    scope: Competition, table: list[dict[str, Any]], *, top: int = PROGRESSION_TEAMS
) -> Progression:
    """The cumulative league points of the ``top`` teams of ``table`` (the season's folded
    table) after each of their completed matches in ``scope``, by the points rule of the
    league's config. Points adjustments are not per match and are left out."""
    config = effective_config(scope)
    points = {**DEFAULT_POINTS, **config.get("points", {})}
    leaders = [row["team_id"] for row in table[:top]]
    lines = (
        StatLine.objects.filter(
            subject_role="side",
            segment="match",
            subject_id__in=leaders,
            competition__tree_id=scope.tree_id,
            competition__lft__gte=scope.lft,
            competition__rght__lte=scope.rght,
            fixture__merged_into__isnull=True,
            fixture__first_seen_in__accepted=True,
            fixture__status=FixtureStatus.COMPLETED,
        )
        .order_by("fixture__scheduled_start", "occurred_on", "fixture_id")
        .values_list("subject_id", "values")
    )
    running: dict[str, list[float | None]] = {str(t): [] for t in leaders}
    for subject, values in lines:
        so_far = running[str(subject)]
        previous = so_far[-1] if so_far else 0
        so_far.append((previous or 0) + points.get(values.get("outcome"), 0))
    longest = max((len(v) for v in running.values()), default=0)
    series = []
    for row in table[:top]:
        values = running[str(row["team_id"])]
        series.append((str(row["team"]), values + [None] * (longest - len(values))))
    return Progression(
        labels=[str(n) for n in range(1, longest + 1)], series=series, teams=len(series)
    )


# Medal tables -------------------------------------------------------------------------


def countries_by_code(codes: list[str]) -> dict[str, Participant]:
    """The canonical country participants (Commons, keyed by their code) for ``codes``."""
    if not codes:
        return {}
    return {
        p.code: p
        for p in Participant.objects.canonical().filter(
            type=ParticipantType.COUNTRY, code__in=codes
        )
    }


def national_side_country(team: Participant) -> Participant | None:
    """The Commons country a team is a national side of (cricket's "India"), if any."""
    link = (
        Membership.objects.filter(member=team, role=NATIONAL_SIDE, team__merged_into__isnull=True)
        .select_related("team")
        .order_by("team__name")
        .first()
    )
    return link.team if link else None


def medal_rows_linked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The medal table's rows with the country's page id and name added (copies: the rows
    may be the cached table's)."""
    countries = countries_by_code([str(r["country"]) for r in rows])
    linked = []
    for r in rows:
        country = countries.get(str(r["country"]))
        linked.append(
            {
                **r,
                "country_id": country.pk if country else None,
                "country_name": country.name if country else r["country"],
            }
        )
    return linked


@dataclass
class MedalChart:
    labels: list[str]
    gold: list[float | None]
    silver: list[float | None]
    bronze: list[float | None]


def medal_chart(rows: list[dict[str, Any]], *, top: int = MEDAL_CHART_COUNTRIES) -> MedalChart:
    """Gold, silver and bronze of the first ``top`` countries of a (linked) medal table."""
    shown = rows[:top]
    return MedalChart(
        labels=[str(r.get("country_name") or r["country"]) for r in shown],
        gold=[float(r["gold"]) for r in shown],
        silver=[float(r["silver"]) for r in shown],
        bronze=[float(r["bronze"]) for r in shown],
    )


# Participants ---------------------------------------------------------------------------


def cricket_player_url(participant: Participant, sport_codes: set[str]) -> str | None:
    """The cricket statistics page of a cricket player, when the cricket pages are
    installed (found by URL name: sports does not import cricket)."""
    if "cricket" not in sport_codes or participant.type != ParticipantType.PERSON:
        return None
    try:
        return reverse(CRICKET_PLAYER_URL, args=[participant.pk])
    except NoReverseMatch:
        return None


def _appearing(
    participant: Participant, *, top_level: bool | None = None
) -> FixtureQuerySet[Fixture]:
    rows = FixtureCompetitor.objects.filter(participant=participant)
    if top_level is not None:
        rows = rows.filter(parent__isnull=top_level)
    return Fixture.objects.public().filter(pk__in=rows.values("fixture_id"))


@dataclass
class HeadToHead:
    opponent: Participant
    fixtures: list[Fixture]
    won: int
    drawn: int
    lost: int


@dataclass
class ParticipantPage:
    participant: Participant
    sports: list[str]
    competitions: list[Competition]
    recent: list[Fixture]
    upcoming: list[Fixture]
    cricket_url: str | None = None
    # teams
    players: list[dict[str, Any]] = field(default_factory=list)
    members: list[Membership] = field(default_factory=list)
    opponents: list[Participant] = field(default_factory=list)
    head_to_head: HeadToHead | None = None
    # people
    results: list[FixtureCompetitor] = field(default_factory=list)
    teams: list[Participant] = field(default_factory=list)
    entries: list[CompetitionEntry] = field(default_factory=list)
    medals: dict[str, int] = field(default_factory=dict)


def _competitions_of(fixtures: QuerySet[Fixture]) -> list[Competition]:
    """The roots and seasons holding any of ``fixtures``: where a participant played."""
    under = fixtures.filter(
        competition__tree_id=OuterRef("tree_id"),
        competition__lft__gte=OuterRef("lft"),
        competition__rght__lte=OuterRef("rght"),
    )
    return list(
        Competition.objects.canonical()
        .filter(Q(parent__isnull=True) | Q(type=SEASON))
        .filter(Exists(under))
        .select_related("sport")
        .order_by("tree_id", "lft")
    )


def _side_of(fixture: Fixture, participant_id: uuid.UUID) -> FixtureCompetitor | None:
    return next(
        (
            c
            for c in fixture.competitors.all()
            if c.parent_id is None and c.participant_id == participant_id
        ),
        None,
    )


def head_to_head(team: Participant, opponent: Participant) -> HeadToHead:
    """The completed public fixtures in which ``team`` and ``opponent`` met as sides, with
    ``team``'s wins, draws and losses (rank 1 wins; equal ranks are a draw)."""
    met = list(
        _appearing(team, top_level=True)
        .filter(pk__in=_appearing(opponent, top_level=True).values("pk"))
        .filter(status=FixtureStatus.COMPLETED)
        .with_competitors()
        .order_by("-scheduled_start", "code")
    )
    won = drawn = lost = 0
    for fixture in met:
        mine, theirs = _side_of(fixture, team.pk), _side_of(fixture, opponent.pk)
        if mine is None or theirs is None or mine.rank is None or theirs.rank is None:
            continue
        if mine.rank == theirs.rank:
            drawn += 1
        elif mine.rank < theirs.rank:
            won += 1
        else:
            lost += 1
    return HeadToHead(opponent=opponent, fixtures=met, won=won, drawn=drawn, lost=lost)


def participant_page(participant: Participant, *, vs: str | None = None) -> ParticipantPage:
    """What a team's or a person's page shows. ``vs`` is another participant's id for a
    head-to-head (ignored when it names no canonical participant)."""
    now = timezone.now()
    sports = {s.sport.code: s.sport.name for s in participant.sports.select_related("sport")}
    is_team = participant.type in TEAM_TYPES
    appearing = _appearing(participant, top_level=True if is_team else None)
    recent = list(
        appearing.filter(status=FixtureStatus.COMPLETED)
        .with_competitors()
        .order_by("-scheduled_start", "-code")[:RECENT]
    )
    upcoming = list(
        appearing.filter(status=FixtureStatus.SCHEDULED)
        .filter(Q(scheduled_start__gte=now) | Q(scheduled_start__isnull=True))
        .with_competitors()
        .order_by("scheduled_start", "code")[:RECENT]
    )
    competitions = _competitions_of(appearing)
    for node in competitions:
        if node.sport is not None:
            sports.setdefault(node.sport.code, node.sport.name)
    page = ParticipantPage(
        participant=participant,
        sports=sorted(sports.values()),
        competitions=competitions,
        recent=recent,
        upcoming=upcoming,
        cricket_url=cricket_player_url(participant, set(sports)),
    )
    if is_team:
        page.players = [
            dict(seen)
            for seen in FixtureCompetitor.objects.filter(
                parent__participant=participant,
                participant__isnull=False,
                fixture__in=Fixture.objects.public(),
            )
            .values("participant_id", "participant__name")
            .annotate(appearances=Count("fixture", distinct=True))
            .order_by("-appearances", "participant__name")[:PLAYERS_SHOWN]
        ]
        # Newest first and bounded: a cricket side holds a row per player and season.
        page.members = list(
            Membership.objects.filter(team=participant)
            .select_related("member")
            .order_by(F("valid_from").desc(nulls_last=True), "member__name")[:PLAYERS_SHOWN]
        )
        page.opponents = list(
            Participant.objects.filter(
                appearances__parent__isnull=True,
                appearances__fixture__in=appearing,
            )
            .exclude(pk=participant.pk)
            .distinct()
            .order_by("name")
        )
        opponent = next((o for o in page.opponents if str(o.pk) == vs), None)
        if opponent is not None:
            page.head_to_head = head_to_head(participant, opponent)
        return page
    page.results = list(
        FixtureCompetitor.objects.filter(
            participant=participant, fixture__in=Fixture.objects.public()
        )
        .select_related("fixture", "fixture__competition", "parent__participant")
        .order_by("-fixture__scheduled_start", "fixture__code")[:50]
    )
    page.teams = list(
        Participant.objects.filter(
            appearances__members__participant=participant,
            appearances__fixture__in=Fixture.objects.public(),
        )
        .distinct()
        .order_by("name")
    )
    page.entries = list(
        CompetitionEntry.objects.filter(participant=participant)
        .select_related("competition", "country")
        .order_by("competition__tree_id", "competition__lft")
    )
    page.medals = medal_counts(
        StatLine.objects.filter(subject=participant, subject_role__in=("entrant", "side"))
    )
    return page


def medal_counts(lines: QuerySet[StatLine]) -> dict[str, int]:
    """Gold, silver and bronze among public result ``lines`` (as the medal table counts)."""
    counted = lines.filter(
        fixture__merged_into__isnull=True,
        fixture__first_seen_in__accepted=True,
        values__medal__in=MEDALS,
    ).aggregate(**{m: Count("id", filter=Q(values__medal=m)) for m in MEDALS})
    return {m: int(counted[m] or 0) for m in MEDALS}


@dataclass
class GamesMedals:
    games: Competition
    gold: int
    silver: int
    bronze: int

    @property
    def total(self) -> int:
        return self.gold + self.silver + self.bronze


@dataclass
class SportPeople:
    sport: str
    teams: list[Participant]
    athletes: list[Participant]


@dataclass
class CountryPage:
    country: Participant
    by_sport: list[SportPeople]
    medals: list[GamesMedals]


def country_page(country: Participant) -> CountryPage:
    """A country's athletes and teams in every sport (those carrying its code, those
    entered for it, and its national sides: cricket's "India" men and women), and its
    medals per Games, counted as the Games' medal table counts."""
    code = country.code
    people = (
        Participant.objects.canonical()
        .filter(
            Q(country=code)
            | Q(entries__country=country)
            | Q(
                Exists(
                    Membership.objects.filter(
                        member=OuterRef("pk"), team=country, role=NATIONAL_SIDE
                    )
                )
            )
        )
        .exclude(pk=country.pk)
        .exclude(type=ParticipantType.COUNTRY)
        .distinct()
        .order_by("name")
        .prefetch_related("sports__sport")
    )
    grouped: dict[str, SportPeople] = {}
    for person in people:
        names = sorted({s.sport.name for s in person.sports.all()}) or ["Other"]
        for name in names:
            group = grouped.setdefault(name, SportPeople(sport=name, teams=[], athletes=[]))
            (group.teams if person.type in TEAM_TYPES else group.athletes).append(person)
    counts: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(MEDALS, 0))
    for tree_id, medal, n in (
        StatLine.objects.filter(
            subject_role__in=("entrant", "side"),
            values__country=code,
            values__medal__in=MEDALS,
            fixture__merged_into__isnull=True,
            fixture__first_seen_in__accepted=True,
        )
        .values_list("competition__tree_id", "values__medal")
        .annotate(n=Count("id"))
        .order_by()
    ):
        counts[tree_id][str(medal)] += n
    games = (
        Competition.objects.canonical()
        .filter(parent__isnull=True, sport__isnull=True, tree_id__in=list(counts))
        .order_by("-start_date", "name")
    )
    return CountryPage(
        country=country,
        by_sport=sorted(grouped.values(), key=lambda g: (g.sport == "Other", g.sport)),
        medals=[
            GamesMedals(
                games=g,
                gold=counts[g.tree_id]["gold"],
                silver=counts[g.tree_id]["silver"],
                bronze=counts[g.tree_id]["bronze"],
            )
            for g in games
        ],
    )


# Venues -------------------------------------------------------------------------------


@dataclass
class VenuePage:
    venue: Venue
    competitions: list[Competition]
    recent: list[Fixture]
    upcoming: list[Fixture]


def venue_page(venue: Venue) -> VenuePage:
    """A venue's competitions and its latest and next public fixtures."""
    here: FixtureQuerySet[Fixture] = Fixture.objects.public().filter(venue=venue)
    return VenuePage(
        venue=venue,
        competitions=_competitions_of(here),
        recent=list(
            here.exclude(status=FixtureStatus.SCHEDULED)
            .with_competitors()
            .order_by("-scheduled_start", "-code")[: RECENT * 3]
        ),
        upcoming=list(
            here.filter(status=FixtureStatus.SCHEDULED)
            .with_competitors()
            .order_by("scheduled_start", "code")[:RECENT]
        ),
    )


def medal_table_of(node: Competition) -> list[dict[str, Any]]:
    """The node's medal table with country links."""
    return medal_rows_linked(stat_table(node=node, kind=TableKind.MEDALS))
