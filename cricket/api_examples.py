"""Response examples for the schema's main cricket reads: a scorecard, a player's career and
a leaderboard page. tests/test_api_examples.py checks each against its documented schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

FIXTURE = "0f6b1a3c-2d4e-4f5a-9b6c-7d8e9fa0b1c2"
INDIA = "1a2b3c4d-0000-4000-8000-00000000a001"
PLAYER = "1a2b3c4d-0000-4000-8000-00000000b001"
BOWLER = "1a2b3c4d-0000-4000-8000-00000000b002"

SCORECARD = {
    "fixture": FIXTURE,
    "name": "India v Australia, 3rd ODI",
    "innings": [
        {
            "ordinal": 1,
            "team_id": INDIA,
            "team": "India",
            "super_over": False,
            "declared": False,
            "forfeited": False,
            "target_runs": None,
            "batting": [
                {
                    "participant_id": PLAYER,
                    "name": "V Kohli",
                    "runs": 89,
                    "balls": 94,
                    "fours": 8,
                    "sixes": 1,
                    "strike_rate": 94.68,
                    "how_out": "c Carey b Cummins",
                    "out": True,
                }
            ],
            "bowling": [
                {
                    "participant_id": BOWLER,
                    "name": "PJ Cummins",
                    "overs": "10.0",
                    "legal_balls": 60,
                    "maidens": 1,
                    "runs": 51,
                    "wickets": 3,
                    "wides": 2,
                    "noballs": 0,
                }
            ],
            "extras": {
                "byes": 0,
                "legbyes": 4,
                "wides": 6,
                "noballs": 1,
                "penalty": 0,
                "total": 11,
            },
            "penalty_runs": 0,
            "runs": 286,
            "wickets": 9,
            "legal_balls": 300,
            "overs": "50.0",
            "fall_of_wickets": [
                {
                    "number": 1,
                    "runs": 34,
                    "participant_id": PLAYER,
                    "name": "V Kohli",
                    "over": "6.3",
                }
            ],
            "did_not_bat": ["Mohammed Siraj"],
        }
    ],
}


def _figures(**given: Any) -> dict[str, Any]:
    """One career or leaderboard row: every figure, the batting ones as given."""
    row: dict[str, Any] = {
        "matches": 0,
        "innings": 0,
        "runs": 0,
        "balls_faced": 0,
        "fours": 0,
        "sixes": 0,
        "outs": 0,
        "highest": None,
        "fifties": 0,
        "hundreds": 0,
        "catches": 0,
        "stumpings": 0,
        "run_outs": 0,
        "substitute_catches": 0,
        "substitute_stumpings": 0,
        "substitute_run_outs": 0,
        "bowling_innings": 0,
        "legal_balls": 0,
        "runs_conceded": 0,
        "wickets": 0,
        "maidens": 0,
        "best_wickets": None,
        "best_runs": None,
        "not_outs": 0,
        "ducks": 0,
        "highest_not_out": False,
        "average": None,
        "strike_rate": None,
        "best_match_wickets": None,
        "best_match_runs": None,
        "four_wickets": 0,
        "five_wickets": 0,
        "ten_wickets": 0,
        "bowling_average": None,
        "economy": None,
        "bowling_strike_rate": None,
    }
    return {**row, **given}


BATTING = {
    "matches": 12,
    "innings": 12,
    "runs": 611,
    "balls_faced": 630,
    "fours": 58,
    "sixes": 9,
    "outs": 10,
    "highest": 117,
    "fifties": 4,
    "hundreds": 2,
    "catches": 5,
    "not_outs": 2,
    "average": 61.1,
    "strike_rate": 96.98,
}

CAREER = {
    "id": PLAYER,
    "name": "V Kohli",
    "registry_ids": ["ba607b88"],
    "stale": False,
    "refresh_queued_at": None,
    "formats": [_figures(format="ODI", **BATTING), _figures(format="all", **BATTING)],
    "super_overs": [],
    "innings": [
        {
            "fixture_id": FIXTURE,
            "fixture": "India v Australia, 3rd ODI",
            "occurred_on": "2023-03-22",
            "format_code": "ODI",
            "innings": 1,
            "super_over": False,
            "runs": 89,
            "balls_faced": 94,
            "fours": 8,
            "sixes": 1,
            "outs": 1,
        }
    ],
}

LEADERBOARD = {
    "scope": {
        "match_type": "ODI",
        "gender": "male",
        "competition": None,
        "season": None,
        "date_from": None,
        "date_to": None,
        "super_overs": "exclude",
    },
    "ordering": "-runs",
    "count": 184,
    "stale": False,
    "refresh_queued_at": None,
    "results": [
        _figures(rank=1, participant_id=PLAYER, registry_id="ba607b88", name="V Kohli", **BATTING)
    ],
    "next": "https://omnium.example/api/v1/cricket/leaderboards/batting/?format=ODI&cursor=bz01MA%3D%3D",
    "previous": None,
}

SCORECARD_EXAMPLE = OpenApiExample(
    "A scorecard", value=SCORECARD, response_only=True, status_codes=["200"]
)
CAREER_EXAMPLE = OpenApiExample(
    "A player's career", value=CAREER, response_only=True, status_codes=["200"]
)
LEADERBOARD_EXAMPLE = OpenApiExample(
    "A leaderboard page", value=LEADERBOARD, response_only=True, status_codes=["200"]
)
