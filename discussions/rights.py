"""Who may write in discussions, and how a record is found for a person: the rights the
services, the API and the panel share.

A record is found through its model's reader (``omnium.readable``), so one a person may not
read is "not found", as a missing one is. Writing needs that read right plus the role's
write right (``may_write``).
"""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models

from accounts.access import effective_role
from accounts.models import Capability, Role, User
from accounts.roles import ROLE_TABLE, role_may
from discussions.models import Thread
from omnium.readable import readable


def is_moderator(user: User) -> bool:
    """Those who edit (editors and administrators, by the role table) moderate."""
    role = effective_role(user)
    return role is not None and role_may(role, Capability.EDIT)


def may_write(user: User) -> bool:
    """The role's write right in discussions: a role that acts on the data at all (submits,
    reviews, edits or administers, by the role table) may write where it may read; a viewer
    only reads. An account that cannot sign in writes nowhere."""
    role = effective_role(user)
    return role is not None and bool(ROLE_TABLE[role].capabilities)


def is_client_owner(user: User) -> bool:
    """The client surfaces' owner: the administrator who decides the running list, ranks
    the features and chooses the quote's lines."""
    return effective_role(user) == Role.ADMIN


def thread_readable(thread: Thread, user: User) -> bool:
    """Whether ``user`` may read ``thread``: its subject's reader admits them."""
    return Thread.objects.readable_by(user).filter(pk=thread.pk).exists()


def _require_writer(thread: Thread, user: User) -> None:
    """Refuse a write in ``thread`` by ``user`` unless they may read it and write at all.
    The same words either way: a thread someone may not read is one they are not told of."""
    if not (may_write(user) and thread_readable(thread, user)):
        raise PermissionDenied("You may not write in this thread.")


class NoSuchSubject(ValidationError):
    """The record a thread is asked for does not exist, or the asker may not read it: the
    one answer for both, so an id's existence is never revealed."""


def subject_find(*, subject_type: ContentType | str, subject_id: str, user: User) -> models.Model:
    """The record ``subject_type`` (a content type or ``app_label.model``) with key
    ``subject_id``, looked up through its model's reader for ``user``; ``NoSuchSubject``
    whether it is missing or hidden from them."""
    try:
        if isinstance(subject_type, str):
            app_label, _, model_name = subject_type.partition(".")
            subject_type = ContentType.objects.get_by_natural_key(app_label, model_name)
        model = subject_type.model_class()
    except ContentType.DoesNotExist:
        model = None
    if model is None:
        raise NoSuchSubject({"subject_type": "Unknown record type."})
    try:
        subject = readable(model._default_manager.filter(pk=subject_id), user).first()
    except (ValueError, ValidationError):  # a key of the wrong shape names no record
        subject = None
    if subject is None:
        raise NoSuchSubject({"subject_id": "No such record."})
    return subject
