"""Helpers every sports service uses: who acted, and the errors services raise."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union

from django.core.exceptions import ValidationError
from django.db import models

from accounts.models import Capability
from accounts.roles import role_may
from accounts.services import audit_record
from omnium.exceptions import StaleVersion

if TYPE_CHECKING:
    from accounts.models import User
    from sports.models import Fixture, Participant

# A person (their account) or an automated writer named "integration:<source>".
Actor = Union["User", str]


def actor_label(actor: Actor) -> str:
    if isinstance(actor, str):
        if not actor:
            raise ValidationError("An actor is required: an account or 'integration:<source>'.")
        return actor
    return actor.get_username()


def actor_user(actor: Actor) -> User | None:
    """The account behind ``actor``, or None for an automated writer."""
    return None if isinstance(actor, str) else actor


def may_edit(user: Any) -> bool:
    """Whether ``user`` edits data directly (editors and administrators, by the role
    table): amends fixtures and voids or corrects their logs, in the console and the API."""
    return bool(
        user
        and user.is_authenticated
        and user.is_active
        and (user.is_superuser or role_may(user.role, Capability.EDIT))
    )


def audit_person(
    actor: Actor,
    *,
    action: str,
    entity: models.Model,
    key: object,
    detail: Mapping[str, Any] | None = None,
) -> None:
    """Write the audit row for a change a person made (automated writers are recorded in
    the fixture's log instead). Call inside the change's transaction."""
    user = actor_user(actor)
    if user is not None:
        audit_record(actor=user, action=action, entity=entity, key=key, detail=detail)


# The models that merge by ``merged_into`` (the same checks and locks for each).
_Mergeable = TypeVar("_Mergeable", "Participant", "Fixture")


def lock_merge_pair(
    model: type[_Mergeable],
    *,
    loser: _Mergeable,
    survivor: _Mergeable,
    note: str,
    note_field: str = "note",
) -> tuple[_Mergeable, _Mergeable]:
    """The two rows of a merge, re-read under row locks after the checks every merge
    shares: a note saying why, two different rows, neither already merged.

    Locks in primary-key order, so two merges of the same pair cannot deadlock.
    """
    label = model._meta.verbose_name
    if not note:
        raise ValidationError({note_field: "A merge needs a note saying why."})
    if loser.pk == survivor.pk:
        raise ValidationError(f"A {label} cannot be merged into itself.")
    locked = {
        row.pk: row
        for row in model.objects.select_for_update()
        .filter(pk__in=[loser.pk, survivor.pk])
        .order_by("pk")
    }
    loser, survivor = locked[loser.pk], locked[survivor.pk]
    if loser.merged_into_id is not None:
        raise ValidationError(f"{loser} is already merged into another {label}.")
    if survivor.merged_into_id is not None:
        raise ValidationError(f"{survivor} is itself merged; merge into its survivor instead.")
    return loser, survivor


class ConflictError(ValidationError):
    """The write lost a race or its precondition no longer holds; nothing was changed."""


class FixtureVersionConflict(ConflictError, StaleVersion):
    """A fixture write named the version it was made against (``expected_version``) and
    the fixture has moved on since: someone else wrote first. Nothing was changed. Carries
    ``fixture_id``, ``expected`` and ``current``; the API answers it 412."""

    fixture_id: object = None
    expected: int | None = None
    current: int | None = None


def fixture_version_check(fixture: Fixture, expected_version: int | None) -> None:
    """Refuse a write made against another version of ``fixture`` than the one it holds.

    Precondition: ``fixture`` was read under its row lock in this transaction, so no other
    writer can move the version between this comparison and the write. (Compared before
    the lock, two writers holding the same version would both pass and the second would
    overwrite the first.) ``None`` asks for no check."""
    if expected_version is None or fixture.version == expected_version:
        return
    error = FixtureVersionConflict(
        "%(fixture)s (fixture %(id)s) changed since version %(expected)s: it is now at "
        "version %(current)s. Read it again and redo the change.",
        code="version_conflict",
        params={
            "fixture": str(fixture),
            "id": fixture.pk,
            "expected": expected_version,
            "current": fixture.version,
        },
    )
    error.fixture_id, error.expected, error.current = fixture.pk, expected_version, fixture.version
    raise error
