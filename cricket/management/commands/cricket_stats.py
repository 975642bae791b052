"""Statistics from the command line: the API's query views, with its vocabulary."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from rest_framework.renderers import JSONRenderer

from cricket.stats.figures import view_rows
from cricket.stats.query import PARAMETERS, VIEWS, StatsQuery
from cricket.stats.refresh import refreshes_pending, staleness
from cricket.stats.serializers import (
    BattingRowSerializer,
    BowlingRowSerializer,
    FieldingRowSerializer,
    InningsRowSerializer,
    TeamRowSerializer,
)
from sports.models import EntityType, ExternalIdMap, Participant

ROW_SERIALIZERS = {
    "batting": BattingRowSerializer,
    "bowling": BowlingRowSerializer,
    "fielding": FieldingRowSerializer,
    "team": TeamRowSerializer,
    "innings": InningsRowSerializer,
}


class Command(BaseCommand):
    help = (
        "Answer a statistics query as the API does (/api/v1/cricket/stats/VIEW/ and "
        "/api/v1/cricket/players/ID/innings/): every option is a query parameter with the "
        "same name (dashes for underscores) and the same validation; an unknown option or a "
        "bad value exits non-zero naming it. --json prints the API's rows."
    )

    def add_arguments(self, parser):
        parser.add_argument("view", choices=VIEWS)
        for name in PARAMETERS:
            parser.add_argument(f"--{name.replace('_', '-')}", dest=name, default=None)
        parser.add_argument(
            "--player", default=None, help="innings view: a registry id or participant id"
        )
        parser.add_argument("--limit", type=int, default=50)
        parser.add_argument("--offset", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="Print the rows as JSON.")

    def handle(self, *args, view, player, limit, offset, json: bool, **options):
        if limit < 1 or offset < 0:
            raise CommandError("--limit is at least 1 and --offset at least 0")
        params = {name: options[name] for name in PARAMETERS if options.get(name) is not None}
        try:
            query = StatsQuery.parse(params, view=view)
            participant_id = _player(player) if view == "innings" else None
            if view != "innings" and player:
                raise ValidationError({"player": "only the innings view takes a player"})
            rows = view_rows(query, participant_id=participant_id, limit=limit, offset=offset)
        except ValidationError as exc:
            raise CommandError(_message(exc)) from exc
        for rank, row in enumerate(rows, start=offset + 1):
            row["rank"] = rank
        data = ROW_SERIALIZERS[view](rows, many=True).data
        pending = refreshes_pending(
            scope=None if participant_id else query.scope(),
            participant_ids=[participant_id] if participant_id else None,
        )
        state = staleness(pending)
        if pending:
            self.stderr.write(
                f"stale: {len(pending)} refresh(es) owed, the oldest queued "
                f"{state['refresh_queued_at'].isoformat()}"
            )
        if json:
            self.stdout.write(JSONRenderer().render(data).decode())
            return
        if not data:
            self.stdout.write("No figures.")
            return
        columns = list(data[0])
        self.stdout.write("\t".join(columns))
        for row in data:
            self.stdout.write("\t".join(_text(row.get(c)) for c in columns))


def _player(value: str | None):
    if not value:
        raise ValidationError({"player": "the innings view needs --player"})
    by_registry = ExternalIdMap.objects.filter(
        source_code="cricsheet", entity_type=EntityType.PARTICIPANT, external_id=value
    ).values_list("internal_id", flat=True)
    found = list(by_registry)
    if not found:
        try:
            found = list(Participant.objects.filter(pk=value).values_list("pk", flat=True))
        except ValidationError:
            found = []
    if not found:
        raise ValidationError({"player": f"no cricket player {value!r}"})
    return found[0]


def _message(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return "; ".join(
            f"--{name.replace('_', '-')}: {' '.join(messages)}"
            for name, messages in exc.message_dict.items()
        )
    return " ".join(exc.messages)


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return str(value.get("name", ""))
    return str(value)
