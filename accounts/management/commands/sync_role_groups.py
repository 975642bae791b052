from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import Role, User
from accounts.services import account_groups_sync

# What each role may do in the console, as Django permissions by app and action. A role is
# a group of the same name; an account's groups follow its role (accounts.services).
CURATED_APPS = ("sports", "catalogue", "discussions", "ingest")
ROLE_RULES: dict[str, dict[str, tuple[str, ...]]] = {
    Role.VIEWER: {app: ("view",) for app in CURATED_APPS},
    Role.SUBMITTER: {**{app: ("view",) for app in CURATED_APPS}, "ingest": ("view", "add")},
    Role.REVIEWER: {
        **{app: ("view",) for app in CURATED_APPS},
        "ingest": ("view", "add", "change"),
        "catalogue": ("view", "change"),
    },
    Role.EDITOR: {app: ("view", "add", "change") for app in CURATED_APPS},
    Role.ADMIN: {**{app: ("view", "add", "change") for app in CURATED_APPS}, "accounts": ("view",)},
}


def permissions_for(role: str):
    rules = ROLE_RULES[role]
    wanted = Permission.objects.none()
    for app, actions in rules.items():
        wanted = wanted | Permission.objects.filter(
            content_type__app_label=app, codename__regex=rf"^({'|'.join(actions)})_"
        )
    return wanted


class Command(BaseCommand):
    help = (
        "Create one group per role with its permissions and put every account in its "
        "group (idempotent)."
    )

    @transaction.atomic
    def handle(self, *args, **options):
        for role in Role.values:
            group, _ = Group.objects.get_or_create(name=role)
            group.permissions.set(permissions_for(role))
            self.stdout.write(f"{role}: {group.permissions.count()} permissions")
        for user in User.objects.iterator():
            account_groups_sync(user=user)
