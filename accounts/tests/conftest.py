from datetime import UTC, datetime

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import api_key_issue
from accounts.tests.factories import ApiConsumerFactory


@pytest.fixture
def consumer(viewer):
    return ApiConsumerFactory(owner=viewer, per_minute_limit=5, daily_quota=8)


@pytest.fixture
def issued_key(consumer, admin_user):
    """A live key of ``consumer`` and its plaintext, issued by the administrator."""
    return api_key_issue(consumer=consumer, actor=admin_user)


@pytest.fixture
def api_key_client(issued_key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued_key[1]}")
    return client


class Clock:
    """``timezone.now`` frozen at a settable instant."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def clock(monkeypatch):
    # 23:58:30 UTC: a minute boundary and the day boundary are both within reach.
    frozen = Clock(datetime(2026, 3, 14, 23, 58, 30, tzinfo=UTC))
    monkeypatch.setattr(timezone, "now", frozen)
    return frozen
