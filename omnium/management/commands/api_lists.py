"""Print the table of the API's list endpoints, or write it into docs/api.md (--write)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from omnium.api_lists import document_with_table, list_endpoints, markdown_table


class Command(BaseCommand):
    help = "The table of list endpoints (paging, page sizes, filters, ordering) of docs/api.md."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--write", action="store_true", help="Rewrite it in docs/api.md.")

    def handle(self, *args, write: bool = False, **options) -> None:
        _document, endpoints = list_endpoints()
        table = markdown_table(endpoints)
        if not write:
            self.stdout.write(table)
            return
        docs = settings.BASE_DIR / "docs" / "api.md"
        docs.write_text(document_with_table(docs.read_text(), table))
        self.stdout.write(f"{docs}: {len(endpoints)} list endpoints")
