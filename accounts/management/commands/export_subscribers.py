import sys

from django.core.management.base import BaseCommand

from accounts.models import Subscriber
from omnium.csvfiles import SafeWriter

FIELDS = (
    "email",
    "first_name",
    "last_name",
    "home_airport",
    "interests",
    "consent_at",
    "consent_text",
    "source",
    "created_at",
    "unsubscribed_at",
)


class Command(BaseCommand):
    help = (
        "Write the subscriber list as CSV (to stdout or --output). This command is the only "
        "way the list leaves the database: there is no API route and no admin page for it."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", help="file to write (default: stdout)")
        parser.add_argument(
            "--include-unsubscribed",
            action="store_true",
            help="also list people who withdrew (for the consent record)",
        )

    def handle(self, *args, output=None, include_unsubscribed=False, **options):
        rows = Subscriber.objects.order_by("email")
        if not include_unsubscribed:
            rows = rows.subscribed()
        stream = open(output, "w", newline="", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
        try:
            writer = SafeWriter(stream)
            writer.writerow(FIELDS)
            count = 0
            for subscriber in rows.iterator():
                values = [getattr(subscriber, name) for name in FIELDS]
                values[FIELDS.index("interests")] = ";".join(subscriber.interests)
                writer.writerow(["" if v is None else v for v in values])
                count += 1
        finally:
            if output:
                stream.close()
        self.stderr.write(f"{count} subscribers exported")
