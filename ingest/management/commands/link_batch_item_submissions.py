from django.core.management.base import BaseCommand

from ingest.batches.services import batch_item_submissions_link


class Command(BaseCommand):
    help = (
        "Link each published batch item to the submission its publication recorded, where "
        "the link is missing (items published before batch items kept it). Safe to repeat."
    )

    def handle(self, *args, **options):
        linked = batch_item_submissions_link()
        self.stdout.write(f"{linked} batch item(s) linked to their submission")
