"""Helpers every sports service uses: who acted, and the errors services raise."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from django.core.exceptions import ValidationError

if TYPE_CHECKING:
    from accounts.models import User

# A person (their account) or an automated writer named "integration:<source>".
Actor = Union["User", str]


def actor_label(actor: Actor) -> str:
    if isinstance(actor, str):
        if not actor:
            raise ValidationError("An actor is required: an account or 'integration:<source>'.")
        return actor
    return actor.get_username()


def actor_user(actor: Actor):
    """The account behind ``actor``, or None for an automated writer."""
    return None if isinstance(actor, str) else actor


def audit_person(actor: Actor, *, action: str, entity, key, detail: dict | None = None) -> None:
    """Write the audit row for a change a person made (automated writers are recorded in
    the fixture's log instead). Call inside the change's transaction."""
    from accounts.services import audit_record

    user = actor_user(actor)
    if user is not None:
        audit_record(actor=user, action=action, entity=entity, key=key, detail=detail)


class ConflictError(ValidationError):
    """The write lost a race or its precondition no longer holds; nothing was changed."""
