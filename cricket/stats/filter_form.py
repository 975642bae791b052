"""The filter form of the public statistics pages: every filter a select list (or a date or
number box where the value is open), its options read from the loaded matches, its current
value read back from the URL, so a page's filter is always the query string it was asked by.

A page names the filters it shows; ``filter_fields`` returns them as ``FilterField`` rows
for ``templates/cricket/_filter_form.html``. The options of the data-dependent lists
(seasons, teams, venues, host countries) come from the match sides table, two rows per
fixture, in four small queries; a player's page narrows them to the matches the player
batted in (``player_options``, one query).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from django.db import connection

from cricket.stats.query import FORMATS, GENDERS, HOME_AWAY, RESULTS, TEAM_TYPES, TOSS

Options = list[tuple[str, str]]


@dataclass(frozen=True)
class FilterField:
    name: str
    label: str
    kind: str  # select | date | number
    options: Options
    value: str

    @property
    def choices(self) -> list[tuple[str, str, bool]]:
        """(value, label, selected); the empty first option is "any"."""
        known = {value for value, _ in self.options}
        options = [("", "any"), *self.options]
        if self.value and self.value not in known:
            # A value typed into the URL by hand still shows as chosen.
            options.append((self.value, self.value))
        return [(value, label, value == self.value) for value, label in options]


_FIXED: dict[str, tuple[str, Options]] = {
    "format": ("Format", [(f, f) for f in FORMATS]),
    "gender": ("Gender", [(g, {"male": "men", "female": "women"}[g]) for g in GENDERS]),
    "team_type": ("Teams", [(t, t) for t in TEAM_TYPES]),
    "home_away": ("Home or away", [(h, h) for h in HOME_AWAY]),
    "result": ("Result", [(r, r.replace("_", " ")) for r in RESULTS]),
    "toss": ("Toss", [(t, t) for t in TOSS]),
    "innings": ("Innings", [(str(n), str(n)) for n in range(1, 5)]),
    "position": ("Position", [(str(n), str(n)) for n in range(1, 12)]),
    "wicket": ("Wicket", [(str(n), str(n)) for n in range(1, 11)]),
    "group_by": (
        "Group by",
        [(g, g) for g in ("season", "opposition", "venue", "innings")],
    ),
    "super_overs": ("Super overs", [("only", "only")]),
}
_DATA = {
    "season": "Season",
    "team": "Team",
    "opposition": "Opposition",
    "venue": "Venue",
    "host_country": "Host country",
}
_OPEN = {
    "date_from": ("From", "date"),
    "date_to": ("To", "date"),
    "min_innings": ("Min. innings", "number"),
    "min_balls": ("Min. balls", "number"),
    "min_wickets": ("Min. wickets", "number"),
}


def _distinct(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def data_options(names: Iterable[str]) -> dict[str, Options]:
    """The options of the data-dependent filters among ``names``, over every public match
    side: one query per list."""
    wanted = set(names) & set(_DATA)
    out: dict[str, Options] = {}
    side = "cricket_cricketmatchside"
    if "season" in wanted:
        rows = _distinct(f"SELECT DISTINCT season FROM {side} WHERE season <> ''", [])
        out["season"] = [(s, s) for (s,) in sorted(rows, reverse=True)]
    if wanted & {"team", "opposition"}:
        rows = _distinct(
            f"SELECT DISTINCT p.name FROM {side} s JOIN sports_participant p ON p.id = s.team_id",
            [],
        )
        teams = [(n, n) for (n,) in sorted(rows)]
        out["team"] = out["opposition"] = teams
    if "venue" in wanted:
        rows = _distinct(
            f"SELECT DISTINCT v.name FROM {side} s JOIN sports_venue v ON v.id = s.venue_id", []
        )
        out["venue"] = [(n, n) for (n,) in sorted(rows)]
    if "host_country" in wanted:
        rows = _distinct(f"SELECT DISTINCT host_country FROM {side} WHERE host_country <> ''", [])
        out["host_country"] = [(c, c) for (c,) in sorted(rows)]
    return out


_PLAYER = """
SELECT DISTINCT l.format_code, l.season, o.name, v.name
  FROM cricket_cricketbattingline l
  LEFT JOIN cricket_cricketmatchside s ON s.fixture_id = l.fixture_id AND s.team_id = l.team_id
  LEFT JOIN sports_participant o ON o.id = s.opposition_id
  LEFT JOIN sports_venue v ON v.id = s.venue_id
 WHERE l.participant_id = ANY(%s::uuid[]) AND NOT l.super_over
"""


def player_options(people: list[str]) -> dict[str, Options]:
    """The formats, seasons, oppositions and venues of the innings ``people`` (a player and
    everyone merged into them) batted: one query."""
    rows = _distinct(_PLAYER, [people])

    def column(i: int) -> list[str]:
        return sorted({row[i] for row in rows if row[i]})

    formats = set(column(0))
    return {
        "format": [(f, f) for f in FORMATS if f in formats],
        "season": [(s, s) for s in reversed(column(1))],
        "opposition": [(n, n) for n in column(2)],
        "venue": [(n, n) for n in column(3)],
    }


def filter_fields(
    names: Iterable[str],
    params: Mapping[str, Any],
    *,
    options: Mapping[str, Options] | None = None,
    extra: Mapping[str, tuple[str, Options]] | None = None,
) -> list[FilterField]:
    """The form's fields in the order of ``names``, each holding the URL's current value.
    ``options`` gives the data lists (``data_options`` or ``player_options``); ``extra``
    adds a page's own select lists (name -> label and options)."""
    options = options or {}
    extra = extra or {}
    fields = []
    for name in names:
        field = _field(name, str(params.get(name) or "").strip(), options, extra)
        # The query reads choices in any case (odi is ODI): show the option it chose.
        by_case = {v.lower(): v for v, _ in field.options}
        fields.append(replace(field, value=by_case.get(field.value.lower(), field.value)))
    return fields


def _field(
    name: str,
    value: str,
    options: Mapping[str, Options],
    extra: Mapping[str, tuple[str, Options]],
) -> FilterField:
    if name in extra:
        label, choices = extra[name]
        return FilterField(name, label, "select", list(choices), value)
    if name in options:
        label = _DATA.get(name) or _FIXED[name][0]
        return FilterField(name, label, "select", list(options[name]), value)
    if name in _FIXED:
        label, choices = _FIXED[name]
        return FilterField(name, label, "select", choices, value)
    if name in _DATA:
        return FilterField(name, _DATA[name], "select", [], value)
    if name in _OPEN:
        label, kind = _OPEN[name]
        return FilterField(name, label, kind, [], value)
    raise ValueError(f"no filter field {name!r}")


def query_string(params: Mapping[str, Any], **changes: Any) -> str:
    """The current query string with ``changes`` (None drops a key): links between a page's
    views keep its filter."""
    merged = {k: params.get(k) for k in params}
    merged.update(changes)
    return urlencode({k: v for k, v in merged.items() if v not in (None, "")})
