"""An independent recomputation of the statistics straight from Cricsheet files, for
acceptance: it reads the JSON, never the database or the engine, and applies the issue's
rules in plain Python, so agreement with the engine means two separate implementations of
one rulebook agree.

Careers are keyed by registry identifier (``info.registry.people``), never by name. The
dismissal kinds are written here from the Laws rather than read from ``DismissalKind``
(``rules``).

Matches follow the issue's definition: listed players, players entering through
``replacements.match``, and anyone named as batter, non-striker, bowler, player out or a
fielder who is not a substitute (a substitute fielder does not play). Derived figures are
computed exactly (fractions) and rounded half away from zero to two places, as
PostgreSQL rounds a numeric.

- ``careers.Recomputation``: batting, bowling and fielding careers, every innings list
  (figures, date, team, opposition, venue, batting position, how out) and the team view;
- ``records``: every candidate row of each record kind, a season's and a series' included;
- ``partnerships``: every stand, from the ball order;
- ``points``: every series' points table with its net run rate.

``compare(engine_rows, files_rows)`` lists every difference, figure by figure
(``engine_side`` keys the engine's rows as the files' rows are keyed).
"""

from ingest.cricsheet.verify.careers import Recomputation, recompute
from ingest.cricsheet.verify.engine_side import (
    INNINGS_COLUMNS,
    compare,
    engine_innings_rows,
    engine_rows,
    engine_team_rows,
)
from ingest.cricsheet.verify.partnerships import partnerships_in_file
from ingest.cricsheet.verify.records import RECORD_KINDS, compare_records
from ingest.cricsheet.verify.rules import (
    BATTING_COLUMNS,
    BOWLING_COLUMNS,
    TEAM_COLUMNS,
    team_display,
)

__all__ = [
    "BATTING_COLUMNS",
    "BOWLING_COLUMNS",
    "INNINGS_COLUMNS",
    "RECORD_KINDS",
    "TEAM_COLUMNS",
    "Recomputation",
    "compare",
    "compare_records",
    "engine_innings_rows",
    "engine_rows",
    "engine_team_rows",
    "partnerships_in_file",
    "recompute",
    "team_display",
]
