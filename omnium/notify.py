"""Telling one person something: the hand-off from an app that has news to the app that owns
notifications.

omnium imports no app, and the apps of one layer (the catalogue, discussions) never import
each other, so the owner of notifications registers its sender from its
``AppConfig.ready()`` (``notifier_register``) and any app calls ``notify``. The sender keeps
its own rules (one row per ``dedupe_key``, mail after commit within the recipient's cap).
"""

from __future__ import annotations

from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured
from django.db import models

__all__ = ["Notifier", "notifier_register", "notify"]


class Notifier(Protocol):
    def __call__(
        self,
        *,
        recipient: Any,
        actor: Any,
        kind: str,
        context_label: str,
        body: str,
        url: str,
        source: models.Model,
        dedupe_key: str,
    ) -> object | None: ...


_notifier: Notifier | None = None


def notifier_register(notifier: Notifier) -> None:
    """Register (or replace, on a reload) the one sender of notifications."""
    global _notifier
    _notifier = notifier


def notify(
    *,
    recipient: Any,
    actor: Any,
    kind: str,
    context_label: str,
    body: str,
    url: str,
    source: models.Model,
    dedupe_key: str,
) -> bool:
    """Notify ``recipient`` of one event; True if a notification was stored, False when the
    event (``dedupe_key``) had already notified. Joins the caller's transaction."""
    if _notifier is None:
        raise ImproperlyConfigured(
            "No notifier is registered: the app that owns notifications registers one in "
            "its AppConfig.ready()."
        )
    sent = _notifier(
        recipient=recipient,
        actor=actor,
        kind=kind,
        context_label=context_label,
        body=body,
        url=url,
        source=source,
        dedupe_key=dedupe_key,
    )
    return sent is not None
