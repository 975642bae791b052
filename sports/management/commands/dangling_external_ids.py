from django.core.management.base import BaseCommand

from sports.services import dangling_external_ids


class Command(BaseCommand):
    help = "List external-id map rows whose target row no longer exists."

    def handle(self, *args, **options):
        rows = dangling_external_ids()
        for row in rows:
            self.stdout.write(
                f"{row.source_code}\t{row.entity_type}\t{row.external_id}\t-> {row.internal_id}"
            )
        self.stdout.write(f"{len(rows)} dangling external id(s)")
