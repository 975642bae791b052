from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from rest_framework.test import APIClient

from accounts.models import AnonymousMinute, AnonymousSourceMinute
from accounts.services import api_anonymous_admit, api_anonymous_usage_prune
from accounts.tasks import api_usage_prune_task
from omnium.clients import daily_pseudonym

pytestmark = pytest.mark.django_db

SOURCE_LIMIT = 3
GLOBAL_LIMIT = 5


@pytest.fixture(autouse=True)
def small_limits(settings):
    settings.API_ANON_PER_MINUTE = SOURCE_LIMIT
    settings.API_ANON_GLOBAL_PER_MINUTE = GLOBAL_LIMIT


def _get(address: str):
    return APIClient().get("/api/v1/", REMOTE_ADDR=address)


def test_the_request_over_the_source_limit_gets_429(clock):
    statuses = [_get("192.0.2.10").status_code for _ in range(SOURCE_LIMIT + 1)]
    assert statuses == [200] * SOURCE_LIMIT + [429]


def test_a_refusal_says_when_to_retry_and_carries_the_limit_headers(clock):
    for _ in range(SOURCE_LIMIT):
        _get("192.0.2.10")
    refused = _get("192.0.2.10")
    # 23:58:30 UTC: the next minute is 30 seconds away.
    assert refused["Retry-After"] == "30"
    assert (refused["RateLimit-Limit"], refused["RateLimit-Remaining"]) == ("3", "0")
    assert refused["RateLimit-Reset"] == "30"


def test_an_admitted_anonymous_response_reports_what_is_left(clock):
    first = _get("192.0.2.10")
    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) == ("3", "2")


def test_the_source_limit_resets_at_the_next_utc_minute(clock):
    for _ in range(SOURCE_LIMIT):
        _get("192.0.2.10")
    clock.at = datetime(2026, 3, 14, 23, 58, 59, 999_000, tzinfo=UTC)
    assert _get("192.0.2.10").status_code == 429
    clock.at = datetime(2026, 3, 14, 23, 59, 0, tzinfo=UTC)
    assert _get("192.0.2.10").status_code == 200


def test_the_global_limit_refuses_every_source_once_the_minute_is_spent(clock):
    statuses = [_get(f"192.0.2.{n}").status_code for n in range(1, GLOBAL_LIMIT + 2)]
    assert statuses == [200] * GLOBAL_LIMIT + [429]
    assert AnonymousMinute.objects.get().count == GLOBAL_LIMIT


def test_the_global_limit_resets_at_utc_midnight(clock):
    clock.at = datetime(2026, 3, 14, 23, 59, 30, tzinfo=UTC)
    for n in range(GLOBAL_LIMIT):
        _get(f"192.0.2.{n}")
    assert _get("198.51.100.1").status_code == 429
    clock.at = datetime(2026, 3, 15, 0, 0, 0, tzinfo=UTC)
    assert _get("198.51.100.1").status_code == 200


def test_a_source_over_its_limit_does_not_spend_the_global_budget(clock):
    for _ in range(10):
        _get("192.0.2.10")
    assert AnonymousMinute.objects.get().count == SOURCE_LIMIT
    assert AnonymousSourceMinute.objects.get().count == 10
    assert _get("192.0.2.11").status_code == 200


def test_addresses_in_one_ipv6_64_share_one_budget(clock):
    statuses = [_get(f"2001:db8:7:9::{n:x}").status_code for n in range(1, SOURCE_LIMIT + 2)]
    assert statuses == [200] * SOURCE_LIMIT + [429]
    assert _get("2001:db8:7:a::1").status_code == 200


def test_source_rows_hold_the_days_pseudonym_and_never_the_address(clock):
    _get("192.0.2.10")
    row = AnonymousSourceMinute.objects.get()
    assert row.source == daily_pseudonym("192.0.2.10", at=clock.at, scope="anonymous-api")
    assert "192.0.2.10" not in row.source
    assert row.bucket_start == datetime(2026, 3, 14, 23, 58, tzinfo=UTC)


def test_the_pseudonym_key_rotates_at_utc_midnight(clock):
    clock.at = datetime(2026, 3, 14, 23, 59, 59, tzinfo=UTC)
    _get("192.0.2.10")
    clock.at = datetime(2026, 3, 15, 0, 0, 0, tzinfo=UTC)
    _get("192.0.2.10")
    before, after = (r.source for r in AnonymousSourceMinute.objects.order_by("bucket_start"))
    assert before != after


def test_the_pseudonym_is_stable_within_a_utc_day():
    morning = datetime(2026, 3, 14, 0, 0, 1, tzinfo=UTC)
    night = datetime(2026, 3, 14, 23, 59, 59, tzinfo=UTC)
    assert daily_pseudonym("192.0.2.10", at=morning, scope="s") == daily_pseudonym(
        "192.0.2.10", at=night, scope="s"
    )


def test_signed_in_and_keyed_requests_are_not_counted_as_anonymous(clock, viewer, api_key_client):
    session = APIClient()
    session.force_login(viewer)
    assert session.get("/api/v1/", REMOTE_ADDR="192.0.2.10").status_code == 200
    assert api_key_client.get("/api/v1/", REMOTE_ADDR="192.0.2.10").status_code == 200
    assert not AnonymousSourceMinute.objects.exists()


def test_a_source_row_refuses_anything_but_a_digest():
    from django.db import IntegrityError

    with pytest.raises(IntegrityError):
        AnonymousSourceMinute.objects.create(
            bucket_start=datetime(2026, 3, 14, tzinfo=UTC), source="192.0.2.10", count=1
        )


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_from_one_source_never_admit_more_than_its_limit(settings):
    settings.API_ANON_PER_MINUTE = 10
    settings.API_ANON_GLOBAL_PER_MINUTE = 1000
    at = datetime(2026, 3, 14, 12, 0, 1, tzinfo=UTC)

    def admit(n):
        try:
            # Half from one source, half from others, all racing for the global row too.
            address = "192.0.2.10" if n % 2 else f"198.51.100.{n}"
            return address, api_anonymous_admit(address=address, at=at).allowed
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(admit, range(60)))
    busy = [allowed for address, allowed in answers if address == "192.0.2.10"]
    assert sum(busy) == 10
    assert AnonymousMinute.objects.get().count == sum(allowed for _a, allowed in answers) == 40


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_never_pass_the_global_limit(settings):
    settings.API_ANON_GLOBAL_PER_MINUTE = 15
    at = datetime(2026, 3, 14, 12, 0, 1, tzinfo=UTC)

    def admit(n):
        try:
            return api_anonymous_admit(address=f"198.51.100.{n}", at=at).allowed
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sum(pool.map(admit, range(50))) == 15


def test_pruning_drops_old_source_rows_within_hours_and_global_rows_after_two_days():
    now = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
    for at in (now - timedelta(days=3), now - timedelta(hours=2), now):
        api_anonymous_admit(address="192.0.2.10", at=at)
    assert api_anonymous_usage_prune(now=now) == 3
    assert list(AnonymousSourceMinute.objects.values_list("bucket_start", flat=True)) == [now]
    assert sorted(AnonymousMinute.objects.values_list("bucket_start", flat=True)) == [
        now - timedelta(hours=2),
        now,
    ]


def test_the_scheduled_task_prunes_anonymous_rows_too(clock):
    api_anonymous_admit(address="192.0.2.10", at=clock.at - timedelta(days=3))
    assert api_usage_prune_task.apply().get() == 2
    assert not AnonymousSourceMinute.objects.exists()


def test_an_anonymous_admission_costs_one_statement_opening_a_minute_or_not(
    django_assert_num_queries,
):
    at = datetime(2026, 3, 14, 12, 0, 1, tzinfo=UTC)
    with django_assert_num_queries(1):
        assert api_anonymous_admit(address="192.0.2.10", at=at).allowed
    with django_assert_num_queries(1):
        assert api_anonymous_admit(address="192.0.2.11", at=at).allowed
    assert AnonymousMinute.objects.get().count == 2


@pytest.mark.django_db(transaction=True)
def test_the_admission_relaxes_durability_for_its_own_statement_only():
    def setting():
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            return cursor.fetchone()[0]

    before = setting()
    api_anonymous_admit(address="192.0.2.44", at=datetime(2026, 3, 1, 12, tzinfo=UTC))
    assert before == setting() == "on"
    assert AnonymousSourceMinute.objects.get().count == 1
