"""``manage.py reverifications_queue``: queue the rows an editor should read again."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from catalogue.services import reverifications_queue_changed_data, reverifications_queue_old_rules


class Command(BaseCommand):
    help = (
        "Queue for an editor the live products resolved under older identity rules and the "
        "listings whose listed brand, title, variant, size or barcode changed since their "
        "last verification check. Safe to repeat: a row waiting is not queued twice."
    )

    def handle(self, *args, **options):
        old = reverifications_queue_old_rules()
        changed = reverifications_queue_changed_data()
        self.stdout.write(f"reverifications_queue: old_rules={old} data_changed={changed}")
