from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import Role, User
from accounts.roles import role_group
from accounts.services import account_groups_sync


class Command(BaseCommand):
    help = (
        "Give each role's group its current permissions and put every account in its role's "
        "group (idempotent; run after adding models)."
    )

    @transaction.atomic
    def handle(self, *args, **options):
        for role in Role.values:
            group = role_group(role, refresh=True)
            self.stdout.write(f"{role}: {group.permissions.count()} permissions")
        for user in User.objects.iterator():
            account_groups_sync(user=user)
