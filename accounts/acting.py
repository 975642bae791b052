"""Acting as another account (support), carried on the session.

``ActingAsMiddleware`` (after Django's authentication middleware) swaps ``request.user`` for
the account being acted as and keeps the person at the keyboard in ``request.real_user``;
services get both through ``request_actors`` so the audit row names each.
"""

from __future__ import annotations

from typing import TypedDict

from django.http import HttpRequest

from accounts.models import AccountStatus, Role, User
from accounts.sessions import ACTING_AS_SESSION_KEY
from omnium.actors import request_acting_as, request_actor


def may_act_as_others(user: User) -> bool:
    return user.is_authenticated and (user.is_superuser or user.role == Role.ADMIN)


class Actors(TypedDict):
    actor: User | None
    acting_as: User | None


def request_actors(request) -> Actors:
    """``actor`` = who is really at the keyboard; ``acting_as`` = whom they act as, or None.

    Takes a Django request or a DRF one (whose ``user`` may come from its own
    authentication, not from the session this middleware looked at). The answer is
    ``omnium.actors``' (the console kit uses the same), so admin and API name one person.
    """
    return {"actor": request_actor(request), "acting_as": request_acting_as(request)}


class ActingAsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        # omnium.actors reads these two attributes back by name (REAL_USER_ATTR, ACTING_AS_ATTR).
        request.real_user = request.user
        request.acting_as = None
        target_id = request.session.get(ACTING_AS_SESSION_KEY)
        # The right to act is re-checked on every request: demoting or disabling the support
        # person ends their acting at once.
        if target_id and may_act_as_others(request.user):
            target = User.objects.filter(pk=target_id, status=AccountStatus.ACTIVE).first()
            if target is not None:
                request.user = target
                request.acting_as = target
        return self.get_response(request)
