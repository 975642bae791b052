"""``manage.py set_role USERNAME ROLE [--grant CODE ...]``: the operator's way to give access.

Calls the same services as the console (``accounts.access``), so the access history and the
audit log record the change; the actor is empty there, which marks a command-line change.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.access import (
    SCOPED_ROLES,
    account_role_change,
    competition_by_code,
    competition_grant_set,
)
from accounts.models import ALL_SUBJECTS, Role, User


def _competition(code: str):
    try:
        return competition_by_code(code)
    except ValidationError as error:
        raise CommandError(f"--grant {'; '.join(error.messages)}") from error


class Command(BaseCommand):
    help = (
        "Set an account's role and, for a submitter or reviewer, grant competitions "
        "(a grant covers the competition's whole subtree; '*' grants every competition)."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("role", help=f"one of: {', '.join(Role.values)}")
        parser.add_argument(
            "--grant",
            action="append",
            default=[],
            metavar="COMPETITION_CODE",
            help="a competition code (SPORT:CODE when two sports share it), or '*' for every "
            "competition; repeatable",
        )
        parser.add_argument("--reason", default="manage.py set_role")

    def handle(self, *args, username: str, role: str, grant: list[str], reason: str, **options):
        if role not in Role.values:
            raise CommandError(f"Unknown role {role!r}: use one of {', '.join(Role.values)}.")
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No account has the username {username!r}.")
        if grant and role not in SCOPED_ROLES:
            raise CommandError(
                f"--grant is for a submitter or a reviewer; a {role} acts on every competition."
            )
        # Resolve every code before writing anything: a typo changes nothing.
        targets = [None if code == ALL_SUBJECTS else _competition(code) for code in grant]
        try:
            with transaction.atomic():
                account_role_change(user=user, role=role, actor=None, reason=reason)
                user.refresh_from_db()
                for competition in targets:
                    competition_grant_set(
                        user=user, competition=competition, role=role, actor=None, reason=reason
                    )
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from error
        scope = ", ".join("every competition" if c is None else c.code for c in targets)
        self.stdout.write(f"{username}: {role}" + (f", granted {scope}" if scope else ""))
