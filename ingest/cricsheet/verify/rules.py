"""The rulebook the files are recomputed by, written from the Laws and the issue's
definitions (never read from ``DismissalKind`` or the engine): which kinds credit the
bowler, which are not outs, what a delivery concedes, a side's innings, a result word."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from django.utils.text import slugify

# Kinds where the bowler takes the wicket (Laws 32-39), and retirements that are not outs.
BOWLER_KINDS = frozenset({"bowled", "caught", "caught and bowled", "lbw", "stumped", "hit wicket"})
NOT_OUT_KINDS = frozenset({"retired hurt", "retired not out"})

BATTING_COLUMNS = (
    "matches",
    "innings",
    "runs",
    "balls_faced",
    "fours",
    "sixes",
    "outs",
    "highest",
    "fifties",
    "hundreds",
    "catches",
    "stumpings",
    "run_outs",
    "substitute_catches",
    "substitute_stumpings",
    "substitute_run_outs",
    "not_outs",
    "ducks",
    "highest_not_out",
    "average",
    "strike_rate",
)
BOWLING_COLUMNS = (
    "legal_balls",
    "runs_conceded",
    "wickets",
    "maidens",
    "best_wickets",
    "best_runs",
    "best_match_wickets",
    "best_match_runs",
    "four_wickets",
    "five_wickets",
    "ten_wickets",
    "bowling_average",
    "economy",
    "bowling_strike_rate",
)


TEAM_COLUMNS = (
    "matches",
    "won",
    "lost",
    "tied",
    "drawn",
    "no_result",
    "innings",
    "runs",
    "wickets",
    "balls",
    "run_rate",
    "average",
    "highest_total",
    "lowest_total",
)


def team_display(name: str, gender: str) -> str:
    """A team's name as the site shows it: Cricsheet names men's and women's sides alike."""
    return f"{name} (women)" if gender == "female" and "women" not in name.lower() else name


def side_result(outcome: dict, team: str) -> str:
    if outcome.get("result") == "no result":
        return "no_result"
    if outcome.get("result") == "tie":
        return "tied"  # decided by an eliminator or a bowl-out or not, a tie is a tie
    if outcome.get("result") == "draw":
        return "drawn"
    winner = outcome.get("winner") or outcome.get("eliminator") or outcome.get("bowl_out")
    if winner:
        return "won" if winner == team else "lost"
    return ""


def rate(numerator: int | Fraction, denominator: int | Fraction) -> float | None:
    """numerator / denominator to two places, half away from zero; None over zero."""
    if not denominator:
        return None
    exact = Fraction(numerator) / Fraction(denominator)
    value = Decimal(exact.numerator) / Decimal(exact.denominator)
    return float(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def wide(delivery: dict) -> bool:
    return (delivery.get("extras") or {}).get("wides", 0) > 0


def noball(delivery: dict) -> bool:
    return (delivery.get("extras") or {}).get("noballs", 0) > 0


def conceded(delivery: dict) -> int:
    extras = delivery.get("extras") or {}
    runs = delivery["runs"]["batter"] + extras.get("wides", 0) + extras.get("noballs", 0)
    if wide(delivery):  # Law 22.6: byes and leg-byes off a wide are wide runs
        runs += extras.get("byes", 0) + extras.get("legbyes", 0)
    return runs


def team_innings(inning: dict, balls_per_over: int) -> tuple[int, int, int, Fraction]:
    """(total with penalty runs, wickets, legal balls, overs of the match's length)."""
    penalty = inning.get("penalty_runs") or {}
    total = penalty.get("pre", 0) + penalty.get("post", 0)
    wickets = legal = 0
    for over in inning.get("overs", []):
        for delivery in over["deliveries"]:
            total += delivery["runs"]["total"]
            legal += not (wide(delivery) or noball(delivery))
            wickets += sum(
                1 for w in delivery.get("wickets") or [] if w["kind"] not in NOT_OUT_KINDS
            )
    return total, wickets, legal, Fraction(legal, balls_per_over)


def venue_key(name: str | None) -> str | None:
    """A venue as the site identifies one: the slug of its name, so two spellings of one
    ground ("Gahanga International Cricket Stadium, Rwanda" and "... Stadium. Rwanda") are
    one venue, shown under the name first seen."""
    return None if not name else slugify(name)[:64] or "venue"


# Typographic quotes a file may write in a name, read as the plain ones: the competition
# tree names a node by the slug of its name, so a curly and a straight apostrophe spell
# one event there.
_PLAIN_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def series_label(label: str) -> str:
    """A series label with typographic quotes made plain, for the files' series and the
    tree's season nodes alike (one event spelled with either apostrophe is one series)."""
    return label.translate(_PLAIN_QUOTES)


def series_of(info: dict) -> str:
    """The series a match belongs to, ``"<event> / <season>"``: its event's name (a women's
    event marked so when its name does not say it), or with no event its match type,
    gender and team type; and its season (the first day's year when the file names none).
    The competition tree puts each such pair in one season node, the series a record sums
    over."""
    event = (info.get("event") or {}).get("name")
    women = info["gender"] == "female"
    if event:
        root = f"{event} (women)" if women and "women" not in event.lower() else event
    else:
        root = (
            f"{info['match_type']} matches ({'women' if women else 'men'}, "
            f"{info.get('team_type', 'international')})"
        )
    return series_label(f"{root} / {info.get('season') or info['dates'][0][:4]}")
