"""``manage.py cricket_records KIND``: a cricket record under a filter, as the API gives it.

The options are the API's filters (``--format`` is the API's ``match_type``) and are
checked by the same function: an unknown option, kind or value exits non-zero naming it.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.serializers.json import DjangoJSONEncoder

from cricket.stats.partnerships import records_ensure
from cricket.stats.records import KIND_EXTRAS, KINDS, record_rows, records_decorate
from cricket.stats.records_filters import records_filter_from_params

# option -> the API parameter it feeds
OPTIONS = {
    "format": "match_type",
    "gender": "gender",
    "season": "season",
    "competition": "competition",
    "venue": "venue",
    "team": "team",
    "opposition": "opposition",
    "date_from": "date_from",
    "date_to": "date_to",
    "team_type": "team_type",
    "host_country": "host_country",
    "home_away": "home_away",
    "result": "result",
    "toss": "toss",
    "innings": "innings",
    "as_of": "as_of",
    "wicket": "wicket",
}


class Command(BaseCommand):
    help = "Print a cricket record (highest innings, partnerships, ...) under a filter."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("kind", choices=list(KINDS), help="The record.")
        for option in OPTIONS:
            parser.add_argument(f"--{option.replace('_', '-')}", dest=option)
        parser.add_argument("--limit", type=int, default=20, help="Rows to print (default 20).")
        parser.add_argument("--json", action="store_true", help="JSON rows, the API's fields.")

    def handle(self, *args: Any, **options: Any) -> None:
        kind = options["kind"]
        params = {OPTIONS[k]: options[k] for k in OPTIONS if options.get(k) is not None}
        try:
            rf = records_filter_from_params(params, extra=KIND_EXTRAS.get(kind))
        except ValidationError as exc:
            back = {v: k for k, v in OPTIONS.items()}
            raise CommandError(
                "; ".join(
                    f"--{back.get(name, name).replace('_', '-')}: {' '.join(messages)}"
                    for name, messages in exc.message_dict.items()
                )
            ) from exc
        if options["limit"] < 1:
            raise CommandError("--limit: must be at least 1")
        records_ensure()
        with rf.moment():
            rows = records_decorate(kind, list(record_rows(kind, rf)[: options["limit"]]))
        if options["json"]:
            self.stdout.write(json.dumps(rows, cls=DjangoJSONEncoder, indent=2))
            return
        self.stdout.write(f"{KINDS[kind].description} ({len(rows)} rows)")
        for rank, row in enumerate(rows, start=1):
            who = row.get("name") or " & ".join(b["name"] for b in row.get("batters", []))
            who = who or row.get("team", "")
            figure = row.get("score") or row.get("figures") or row.get("runs") or row.get("wickets")
            where = row.get("series") or row.get("season") or row.get("fixture", "")
            self.stdout.write(f"{rank:>3}  {figure!s:>8}  {who}  {where}  {row.get('date', '')}")
