from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from rest_framework.test import APIClient

from accounts.models import ApiUsage, ApiUsagePeriod
from accounts.services import api_key_issue, api_usage_admit, api_usage_prune
from accounts.tasks import api_usage_prune_task
from accounts.tests.factories import ApiConsumerFactory

pytestmark = pytest.mark.django_db


def _get(client):
    return client.get("/api/v1/")


def test_the_request_over_the_per_minute_limit_gets_429(clock, api_key_client):
    statuses = [_get(api_key_client).status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]


def test_a_429_says_when_to_retry_and_carries_the_limit_headers(clock, api_key_client):
    for _ in range(5):
        _get(api_key_client)
    refused = _get(api_key_client)
    assert refused.status_code == 429
    # 23:58:30 → the next UTC minute is 30 seconds away.
    assert refused["Retry-After"] == "30"
    assert refused["RateLimit-Limit"] == "5"
    assert refused["RateLimit-Remaining"] == "0"
    assert refused["RateLimit-Reset"] == "30"


def test_an_admitted_response_reports_the_limit_closest_to_running_out(clock, api_key_client):
    clock.at = datetime(2026, 3, 14, 10, 0, 30, tzinfo=UTC)
    first = _get(api_key_client)
    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) == ("5", "4")
    for _ in range(4):
        clock.at += timedelta(minutes=1)
        latest = _get(api_key_client)
    # Each request opened a new minute (4 of 5 left there) but five are spent of the day's 8.
    assert (latest["RateLimit-Limit"], latest["RateLimit-Remaining"]) == ("8", "3")
    assert latest["RateLimit-Reset"] == str(14 * 3600 - 4 * 60 - 30)


def test_the_per_minute_limit_resets_at_the_next_utc_minute(clock, api_key_client):
    for _ in range(5):
        _get(api_key_client)
    clock.at = datetime(2026, 3, 14, 23, 58, 59, 999_000, tzinfo=UTC)
    assert _get(api_key_client).status_code == 429
    clock.at = datetime(2026, 3, 14, 23, 59, 0, tzinfo=UTC)
    assert _get(api_key_client).status_code == 200


def test_the_daily_quota_gets_429_at_the_right_count_and_resets_at_utc_midnight(
    clock, api_key_client
):
    clock.at = datetime(2026, 3, 14, 23, 57, 0, tzinfo=UTC)
    assert [_get(api_key_client).status_code for _ in range(4)] == [200] * 4
    clock.at = datetime(2026, 3, 14, 23, 58, 0, tzinfo=UTC)
    assert [_get(api_key_client).status_code for _ in range(4)] == [200] * 4
    clock.at = datetime(2026, 3, 14, 23, 59, 0, tzinfo=UTC)
    refused = _get(api_key_client)
    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert refused["RateLimit-Limit"] == "8"
    clock.at = datetime(2026, 3, 15, 0, 0, 0, tzinfo=UTC)
    assert _get(api_key_client).status_code == 200


def test_requests_refused_by_the_minute_limit_do_not_spend_the_daily_quota(
    clock, api_key_client, issued_key
):
    for _ in range(9):
        _get(api_key_client)
    day = ApiUsage.objects.get(key=issued_key[0], period=ApiUsagePeriod.DAY)
    minute = ApiUsage.objects.get(key=issued_key[0], period=ApiUsagePeriod.MINUTE)
    assert (day.count, minute.count) == (5, 9)


def test_usage_rows_are_keyed_by_utc_minute_and_day(clock, api_key_client, issued_key):
    _get(api_key_client)
    rows = {row.period: row.bucket_start for row in ApiUsage.objects.filter(key=issued_key[0])}
    assert rows == {
        ApiUsagePeriod.MINUTE: datetime(2026, 3, 14, 23, 58, tzinfo=UTC),
        ApiUsagePeriod.DAY: datetime(2026, 3, 14, tzinfo=UTC),
    }


def test_a_consumers_keys_share_one_budget(clock, consumer, issued_key, admin_user):
    _second, second_plaintext = api_key_issue(consumer=consumer, actor=admin_user)
    second = APIClient()
    second.credentials(HTTP_AUTHORIZATION=f"Api-Key {second_plaintext}")
    first = APIClient()
    first.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued_key[1]}")
    statuses = [_get(c).status_code for c in (first, second, first, second, first, second)]
    assert statuses == [200] * 5 + [429]


def test_another_consumers_use_does_not_count(clock, api_key_client, admin_user):
    other = ApiConsumerFactory(per_minute_limit=5)
    _key, plaintext = api_key_issue(consumer=other, actor=admin_user)
    busy = APIClient()
    busy.credentials(HTTP_AUTHORIZATION=f"Api-Key {plaintext}")
    for _ in range(6):
        _get(busy)
    assert _get(api_key_client).status_code == 200


def test_anonymous_requests_are_not_counted_against_any_consumer(clock, anon_client):
    response = anon_client.get("/api/v1/", REMOTE_ADDR="192.0.2.77")
    assert response.status_code == 200
    assert not ApiUsage.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_on_one_key_never_admit_more_than_the_limit(admin_user):
    consumer = ApiConsumerFactory(per_minute_limit=10, daily_quota=1000)
    key, _plaintext = api_key_issue(consumer=consumer, actor=admin_user)
    at = datetime(2026, 3, 14, 12, 0, 1, tzinfo=UTC)

    def admit(_):
        try:
            return api_usage_admit(key=key, at=at).allowed
        finally:
            # Each thread has its own connection; close it so the test database can be flushed.
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        admitted = sum(pool.map(admit, range(40)))
    assert admitted == 10
    assert ApiUsage.objects.get(key=key, period=ApiUsagePeriod.MINUTE).count == 40


def test_pruning_drops_old_minute_counters_and_keeps_day_counters(issued_key):
    key, _plaintext = issued_key
    old = datetime(2026, 3, 10, 8, 30, 15, tzinfo=UTC)
    recent = datetime(2026, 3, 14, 8, 30, 15, tzinfo=UTC)
    api_usage_admit(key=key, at=old)
    api_usage_admit(key=key, at=recent)
    assert api_usage_prune(now=datetime(2026, 3, 14, 9, 0, tzinfo=UTC)) == 1
    left = sorted((row.period, row.bucket_start.day) for row in ApiUsage.objects.all())
    assert left == [("day", 10), ("day", 14), ("minute", 14)]


def test_pruning_never_touches_the_current_minute(issued_key):
    key, _plaintext = issued_key
    at = datetime(2026, 3, 14, 8, 30, 15, tzinfo=UTC)
    api_usage_admit(key=key, at=at)
    assert api_usage_prune(now=at) == 0


def test_the_scheduled_task_prunes_as_of_now(issued_key, clock):
    api_usage_admit(key=issued_key[0], at=clock.at - timedelta(days=3))
    assert api_usage_prune_task.apply().get() == 1


def test_a_keyed_request_costs_one_lookup_one_lock_and_one_upsert_per_limit(
    clock, api_key_client, django_assert_num_queries
):
    # The key with its consumer and owner in one join, the consumer's row lock, then the
    # minute and the day counters; the test's outer transaction turns the admission's own
    # transaction into a savepoint and its release (BEGIN and COMMIT in production).
    with django_assert_num_queries(6):
        assert _get(api_key_client).status_code == 200
