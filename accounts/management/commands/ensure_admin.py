import os
import secrets

from django.core.management.base import BaseCommand

from accounts.services import admin_account_ensure


class Command(BaseCommand):
    help = (
        "Create the administrator account once (username 'admin'). The password comes from "
        "OMNIUM_ADMIN_PASSWORD, or is generated and printed this one time."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username: str, **options):
        supplied = os.environ.get("OMNIUM_ADMIN_PASSWORD", "")
        password = supplied or secrets.token_urlsafe(12)
        user, created = admin_account_ensure(username=username, password=password)
        if not created:
            self.stdout.write(
                f"admin login: {user.username} (existing account; password unchanged)"
            )
        elif supplied:
            self.stdout.write(f"admin login: {user.username} / password from OMNIUM_ADMIN_PASSWORD")
        else:
            self.stdout.write(
                self.style.SUCCESS(
                    f"admin login: {user.username} / {password}   (shown once: note it now)"
                )
            )
