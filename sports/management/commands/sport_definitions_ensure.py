from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from sports.services import shipped_definitions, sport_definition_ensure

ACTOR = "integration:definitions"


class Command(BaseCommand):
    help = (
        "Publish the shipped sport definitions (each app's definitions/*.json): a sport whose "
        "current definition differs from the shipped one gets a new version; fixtures keep "
        "the version they pinned. Running it again publishes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "sports", nargs="*", metavar="CODE", help="Only these sports (default: every one)."
        )

    def handle(self, *args, **options):
        try:
            shipped = shipped_definitions()
        except ImproperlyConfigured as error:
            raise CommandError(str(error)) from error
        wanted = options["sports"] or None
        unknown = sorted(set(wanted or ()) - set(shipped))
        if unknown:
            raise CommandError(
                f"No shipped definition for {', '.join(unknown)}; "
                f"shipped: {', '.join(sorted(shipped))}."
            )
        published = sport_definition_ensure(actor=ACTOR, sports=wanted)
        for version in published:
            self.stdout.write(f"published {version.sport.code} v{version.version}")
        count = len(wanted) if wanted else len(shipped)
        self.stdout.write(
            self.style.SUCCESS(
                f"sport definitions: {len(published)} published, "
                f"{count - len(published)} already current"
            )
        )
