"""Who may read cricket's rows, registered with ``omnium.readable``: every row belongs to
a fixture and is read exactly when its fixture is (``sports.readable``)."""

from __future__ import annotations

from cricket.models import Delivery, DeliveryCorrectionHistory, FixtureOfficial, Innings
from cricket.stats.models import (
    CricketAppearance,
    CricketBattingLine,
    CricketBowlingLine,
    CricketFieldingLine,
    CricketTeamInningsLine,
)
from omnium.readable import readable_register_through


def register() -> None:
    """Called from ``CricketConfig.ready()``."""
    for model in (
        FixtureOfficial,
        Innings,
        DeliveryCorrectionHistory,
        CricketAppearance,
        CricketBattingLine,
        CricketBowlingLine,
        CricketFieldingLine,
        CricketTeamInningsLine,
    ):
        readable_register_through(model, "fixture")
    readable_register_through(Delivery, "innings__fixture")
