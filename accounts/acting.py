"""Acting as another account (support), carried on the session.

``ActingAsMiddleware`` (after Django's authentication middleware) swaps ``request.user`` for
the account being acted as and keeps the person at the keyboard in ``request.real_user``;
services get both through ``request_actors`` so the audit row names each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse

from accounts.models import AccountStatus, Role, User
from accounts.sessions import ACTING_AS_SESSION_KEY
from omnium.actors import ACTING_AS_ATTR, REAL_USER_ATTR, request_acting_as, request_actor


def may_act_as_others(user: User | AnonymousUser | None) -> bool:
    """Whether ``user`` is an administrator: the one who may act as others, and who
    administers accounts, keys and access. Anonymous (or no one) may not."""
    return isinstance(user, User) and (user.is_superuser or user.role == Role.ADMIN)


class Actors(TypedDict):
    actor: User | None
    acting_as: User | None


def request_actors(request: Any) -> Actors:
    """``actor`` = who is really at the keyboard; ``acting_as`` = whom they act as, or None.

    Takes a Django request or a DRF one (whose ``user`` may come from its own
    authentication, not from the session this middleware looked at). The answer is
    ``omnium.actors``' (the console kit uses the same), so admin and API name one person.
    """
    return {"actor": request_actor(request), "acting_as": request_acting_as(request)}


def keyboard_user(request: HttpRequest) -> User | AnonymousUser:
    """The person at the keyboard as ``ActingAsMiddleware`` found them (``request.user``
    before any swap), signed in or not. Precondition: the middleware has seen ``request``."""
    person: User | AnonymousUser = getattr(request, REAL_USER_ATTR)
    return person


def acting_as_target(request: HttpRequest) -> User | None:
    """The account ``ActingAsMiddleware`` put in ``request.user``, or None when nobody acts
    as anyone. Precondition: the middleware has seen ``request``."""
    target: User | None = getattr(request, ACTING_AS_ATTR)
    return target


class ActingAsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # HttpRequest declares neither attribute, so they are set (and read back, here and
        # in omnium.actors) by name.
        setattr(request, REAL_USER_ATTR, request.user)
        setattr(request, ACTING_AS_ATTR, None)
        target_id = request.session.get(ACTING_AS_SESSION_KEY)
        # The right to act is re-checked on every request: demoting or disabling the support
        # person ends their acting at once.
        if target_id and may_act_as_others(request.user):
            target = User.objects.filter(pk=target_id, status=AccountStatus.ACTIVE).first()
            if target is not None:
                request.user = target
                setattr(request, ACTING_AS_ATTR, target)
        return self.get_response(request)
