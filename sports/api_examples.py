"""Response examples for the schema's main sports reads (a page of competitions, a page of
fixtures). tests/test_api_examples.py checks each against its documented schema."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

PREMIER_LEAGUE = "5b0f2a2e-6d1c-4c77-9a51-0d2f6c1e8a01"
SEASON = "8d3e7c55-1f64-4a0b-b1b2-6e3f0c9d2a17"

COMPETITION = {
    "id": SEASON,
    "code": "premier-league-2024-25",
    "name": "Premier League 2024/25",
    "type": "season",
    "sport": "football",
    "parent": PREMIER_LEAGUE,
    "level": 1,
    "status": "ACTIVE",
    "ordinal": 33,
    "start_date": "2024-08-16",
    "end_date": "2025-05-25",
    "fixture_type": None,
    "format_code": None,
    "effective_fixture_type": None,
    "effective_format_code": None,
}

FIXTURE = {
    "id": "c2a4f6e8-0b1d-4e3f-8a5c-7d9e1f3a5b7c",
    "code": "pl-2024-25-ars-che",
    "name": "Arsenal v Chelsea",
    "sport": "football",
    "competition": {
        "id": SEASON,
        "code": "premier-league-2024-25",
        "name": "Premier League 2024/25",
        "type": "season",
        "sport": "football",
        "level": 1,
    },
    "venue": {"code": "emirates", "name": "Emirates Stadium", "city": "London", "country": "GBR"},
    "archetype": "HEAD_TO_HEAD",
    "fixture_type": None,
    "format_code": None,
    "status": "COMPLETED",
    "results_official": True,
    "coverage_tier": "EOD",
    "scheduled_start": "2024-11-10T16:30:00Z",
    "result": {
        "outcome": "draw",
        "score": {"home": 1, "away": 1},
        "periods": {"1": {"home": 1, "away": 0}, "2": {"home": 0, "away": 1}},
    },
}

COMPETITIONS_EXAMPLE = OpenApiExample(
    "A page of competitions",
    value=COMPETITION,
    response_only=True,
    status_codes=["200"],
)
FIXTURES_EXAMPLE = OpenApiExample(
    "A page of fixtures",
    value=FIXTURE,
    response_only=True,
    status_codes=["200"],
)
