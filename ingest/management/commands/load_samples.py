from django.core.management.base import BaseCommand

from ingest.samples import SAMPLE_LOADERS


class Command(BaseCommand):
    help = "Load the committed sample data through the real import pipelines (idempotent)."

    def handle(self, *args, **options):
        if not SAMPLE_LOADERS:
            self.stdout.write("sample data: none defined yet")
            return
        for label, loader in SAMPLE_LOADERS:
            self.stdout.write(f"sample data: {label} ... ", ending="")
            self.stdout.flush()
            self.stdout.write(loader())
