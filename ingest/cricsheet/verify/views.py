"""The batting, bowling and fielding views as a reader sees them, from a fold's careers:
each view's fields under the names the API and the CLI give them, the shown figures
(``152*``, ``5/20``) and the dismissals included. Keyed ``"<view> <registry id>"``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the fold is passed in, never imported at run time
    from ingest.cricsheet.verify.careers import Recomputation

# The careers' figures each view shows, under the view's own name.
_BATTING = (
    "matches",
    "innings",
    "not_outs",
    "runs",
    "highest",
    "highest_not_out",
    "average",
    "balls_faced",
    "strike_rate",
    "hundreds",
    "fifties",
    "ducks",
    "fours",
    "sixes",
)
_BOWLING = {
    "balls": "legal_balls",
    "runs": "runs_conceded",
    "wickets": "wickets",
    "maidens": "maidens",
    "best_wickets": "best_wickets",
    "best_runs": "best_runs",
    "best_match_wickets": "best_match_wickets",
    "best_match_runs": "best_match_runs",
    "average": "bowling_average",
    "economy": "economy",
    "strike_rate": "bowling_strike_rate",
    "four_wickets": "four_wickets",
    "five_wickets": "five_wickets",
    "ten_wickets": "ten_wickets",
}
_FIELDING = {
    "matches": "matches",
    "catches": "catches",
    "stumpings": "stumpings",
    "run_outs": "run_outs",
    "sub_catches": "substitute_catches",
    "sub_stumpings": "substitute_stumpings",
    "sub_run_outs": "substitute_run_outs",
}
VIEWS = ("batting", "bowling", "fielding")


def _figures(wickets: int | None, runs: int | None) -> str | None:
    return None if wickets is None else f"{wickets}/{runs}"


def views(fold: Recomputation) -> dict[str, dict[str, Any]]:
    """Every player's row of each view: every player who played in the batting and
    fielding views, every player who bowled in the bowling view."""
    batting = fold.batting()
    rows: dict[str, dict[str, Any]] = {}
    for rid, career in batting.items():
        row = {field: career[field] for field in _BATTING}
        highest = career["highest"]
        row["highest_score"] = (
            None if highest is None else f"{highest}{'*' if career['highest_not_out'] else ''}"
        )
        rows[f"batting {rid}"] = row
        fielding = {field: career[source] for field, source in _FIELDING.items()}
        fielding["dismissals"] = career["catches"] + career["stumpings"]
        rows[f"fielding {rid}"] = fielding
    for rid, career in fold.bowling().items():
        row = {field: career[source] for field, source in _BOWLING.items()}
        row["matches"] = batting[rid]["matches"]
        row["innings"] = len(fold.careers[rid].spells)
        row["best_innings"] = _figures(career["best_wickets"], career["best_runs"])
        row["best_match"] = _figures(career["best_match_wickets"], career["best_match_runs"])
        rows[f"bowling {rid}"] = row
    return rows
