"""``manage.py fx_backfill``: USD at its own day's rate for every observation without it."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from catalogue.models import PriceObservation
from catalogue.services import price_observations_fill_usd


class Command(BaseCommand):
    help = (
        "Fill USD for every price observation that has none, at the rate of its own day "
        "(nearest earlier business day), or flag why there is no rate. Never changes a USD "
        "figure already written; running it twice changes nothing."
    )

    def handle(self, *args, **options):
        total = PriceObservation.objects.filter(price_usd__isnull=True).count()
        with tqdm(
            total=total, desc="usd backfill", unit=" obs", disable=options["verbosity"] < 1
        ) as bar:
            filled = price_observations_fill_usd(progress=bar.update)
        self.stdout.write(filled.line())
