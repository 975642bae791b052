"""Per-consumer API limits: counting keyed requests per UTC minute and day."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connection, transaction

from accounts.models import (
    ApiConsumer,
    ApiKey,
    ApiUsage,
    ApiUsagePeriod,
)


@dataclass(frozen=True)
class Admission:
    """The answer for one keyed request: admitted or not, and the figures for the
    ``RateLimit-*`` headers of the limit closest to running out (or the one exceeded)."""

    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int


def usage_bucket(at: datetime, period: str) -> tuple[datetime, datetime]:
    """The UTC minute or day holding ``at``: its start and its end."""
    at = at.astimezone(UTC)
    if period == ApiUsagePeriod.MINUTE:
        start = at.replace(second=0, microsecond=0)
        return start, start + timedelta(minutes=1)
    start = at.replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


def _usage_bump(*, key: ApiKey, period: str, bucket_start: datetime) -> int:
    """Add one to the key's counter and return the consumer's total over all its keys.

    Runs inside ``api_usage_admit``'s transaction, after the consumer's row lock: the
    statement's snapshot is taken once that lock is ours, so it sees every other key's
    committed count and the total is exact even while two keys are in use (a rotation).
    """
    table = ApiUsage._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH bumped AS (
                INSERT INTO {table} (consumer_id, key_id, period, bucket_start, count)
                VALUES (%(consumer)s, %(key)s, %(period)s, %(start)s, 1)
                ON CONFLICT (key_id, period, bucket_start)
                DO UPDATE SET count = {table}.count + 1
                RETURNING count
            )
            SELECT (SELECT count FROM bumped) + COALESCE(
                (SELECT SUM(count) FROM {table}
                 WHERE consumer_id = %(consumer)s AND period = %(period)s
                   AND bucket_start = %(start)s AND key_id <> %(key)s),
                0)
            """,  # noqa: S608 -- the table name is the model's own; values are parameters.
            {
                "consumer": key.consumer_id,
                "key": key.pk,
                "period": period,
                "start": bucket_start,
            },
        )
        return int(cursor.fetchone()[0])


def api_usage_admit(*, key: ApiKey, at: datetime) -> Admission:
    """Count one request by ``key`` at ``at`` against its consumer's per-minute limit, then
    its UTC daily quota, and say whether to serve it.

    Buckets are UTC minutes and UTC days, so every limit resets at a UTC boundary.
    A request refused by the minute limit does not touch the daily quota; attempts over a
    limit are still counted in that limit's row (the console then shows how hard a consumer
    pushed).

    One short transaction that first locks the consumer's row (``FOR NO KEY UPDATE``: it
    queues the consumer's concurrent admissions behind each other but not the counter
    rows' foreign-key checks), so admissions of one consumer are serialised across every
    process and key and never admit more than a limit (margin zero). The lock is held for
    the two counter statements only, never for the request.
    """
    consumer = key.consumer
    checks = (
        (ApiUsagePeriod.MINUTE, consumer.per_minute_limit),
        (ApiUsagePeriod.DAY, consumer.daily_quota),
    )
    answers = []
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {ApiConsumer._meta.db_table} WHERE id = %s FOR NO KEY UPDATE",  # noqa: S608
                [consumer.pk],
            )
        for period, limit in checks:
            start, end = usage_bucket(at, period)
            total = _usage_bump(key=key, period=period, bucket_start=start)
            answer = Admission(
                allowed=total <= limit,
                limit=limit,
                remaining=max(0, limit - total),
                reset_seconds=max(1, math.ceil((end - at).total_seconds())),
            )
            if not answer.allowed:
                return answer
            answers.append(answer)
    # Report the limit that will run out first; on a tie the one that resets sooner.
    return min(answers, key=lambda a: (a.remaining, a.reset_seconds))


# Minute counters matter only while their minute is current; two days of them let the
# console show how hard a consumer pushed yesterday. Day counters are the usage history
# and are kept.
API_USAGE_MINUTE_RETENTION = timedelta(days=2)


def api_usage_prune(*, now: datetime) -> int:
    """Delete minute counters older than ``API_USAGE_MINUTE_RETENTION``; returns how many.

    No audit row: counters are not decisions, and a row per scheduled run would be noise.
    Safe to repeat and to run beside live traffic: the current minute's rows are never old
    enough to be touched, so no admission can lose its count.
    """
    deleted, _ = ApiUsage.objects.filter(
        period=ApiUsagePeriod.MINUTE, bucket_start__lt=now - API_USAGE_MINUTE_RETENTION
    ).delete()
    return deleted
