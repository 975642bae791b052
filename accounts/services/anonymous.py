"""Anonymous API limits: per-source and global counters per UTC minute."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection

from accounts.models import (
    AnonymousMinute,
    AnonymousSourceMinute,
    ApiUsagePeriod,
)
from accounts.services.api_usage import Admission, usage_bucket
from omnium.clients import daily_pseudonym


def api_anonymous_admit(*, address: str, at: datetime) -> Admission:
    """Count one anonymous request from ``address`` at ``at`` and say whether to serve it.

    Two limits per UTC minute, both from settings: ``API_ANON_PER_MINUTE`` for one source
    and ``API_ANON_GLOBAL_PER_MINUTE`` for all anonymous traffic together. The address is
    turned into the day's pseudonym here and goes no further (``daily_pseudonym``).

    One statement, so one transaction, taking its locks in one order: the minute's global
    row first, then the source's row. The global row is locked ``FOR UPDATE`` (PostgreSQL
    hands back its latest count once the lock is ours), or, on the minute's first request,
    inserted already counting this request (a new minute has spent nothing, and no source
    row exists for it yet). The source upsert reads the global row's result, so it cannot
    run before the lock is held; the global count goes up only when both limits allow.
    The statement commits asynchronously (``synchronous_commit`` off for its own
    transaction only, set inside it: no extra round trip): the global row's lock is held
    for the statement, not for a WAL flush. A crash of the database server or the machine
    can lose at most the last fraction of a second of counts (the WAL writer flushes within
    ``3 x wal_writer_delay``; a clean restart loses nothing); the counts stay atomic and
    the limits exact while the server runs.
    Every admission of the minute queues on the global row, so however many processes or
    replicas serve the API the caps are exact, and no two requests hold the two locks in
    opposite orders. A source over its own limit does not spend the global budget, so one
    busy client cannot lock everyone else out. Requests racing to open a minute find the
    row committed after their snapshot: they run the statement again, once.
    """
    source = daily_pseudonym(address, at=at, scope="anonymous-api")
    start, end = usage_bucket(at, ApiUsagePeriod.MINUTE)
    source_limit: int = settings.API_ANON_PER_MINUTE
    minutes, sources = AnonymousMinute._meta.db_table, AnonymousSourceMinute._meta.db_table
    params: dict[str, datetime | str | int] = {
        "start": start,
        "source": source,
        "source_limit": source_limit,
        "global_limit": settings.API_ANON_GLOBAL_PER_MINUTE,
    }
    admit = f"""
        WITH opened AS (
            INSERT INTO {minutes} (bucket_start, count) VALUES (%(start)s, 1)
            ON CONFLICT (bucket_start) DO NOTHING
            RETURNING id, count
        ), locked AS (
            SELECT id, count FROM {minutes} WHERE bucket_start = %(start)s FOR UPDATE
        ), minute AS (
            SELECT id, count, true AS opened FROM opened
            UNION ALL
            SELECT id, count, false FROM locked
        ), src AS (
            INSERT INTO {sources} (bucket_start, source, count)
            SELECT %(start)s, %(source)s, 1 FROM minute
            ON CONFLICT (bucket_start, source) DO UPDATE SET count = {sources}.count + 1
            RETURNING count
        ), relaxed AS (
            SELECT set_config('synchronous_commit', 'off', true)
        ), admitted AS (
            UPDATE {minutes} SET count = {minutes}.count + 1 FROM minute, src
             WHERE {minutes}.id = minute.id
               AND NOT minute.opened
               AND src.count <= %(source_limit)s
               AND minute.count < %(global_limit)s
            RETURNING {minutes}.count
        )
        SELECT src.count,
               EXISTS (SELECT 1 FROM minute WHERE opened) OR EXISTS (SELECT 1 FROM admitted)
          FROM src, relaxed
    """  # noqa: S608 -- table names are the models' own; values are parameters.
    with connection.cursor() as cursor:
        cursor.execute(admit, params)
        row = cursor.fetchone()
        if row is None:  # another request opened the minute after this statement began
            cursor.execute(admit, params)
            row = cursor.fetchone()
    source_count, allowed = row
    return Admission(
        allowed=bool(allowed),
        limit=source_limit,
        remaining=max(0, source_limit - source_count) if allowed else 0,
        reset_seconds=max(1, math.ceil((end - at).total_seconds())),
    )


# Source rows hold pseudonyms: kept only while they can still matter for a limit, plus a
# margin for a late clock. Global rows hold no pseudonym and show the day's anonymous load.
API_ANON_SOURCE_RETENTION = timedelta(hours=1)
API_ANON_GLOBAL_RETENTION = timedelta(days=2)


def api_anonymous_usage_prune(*, now: datetime) -> int:
    """Delete anonymous counters past their retention; returns how many rows went.

    Like ``api_usage_prune``: no audit row, safe to repeat and beside live traffic (the
    current minute's rows are never old enough to go).
    """
    sources, _ = AnonymousSourceMinute.objects.filter(
        bucket_start__lt=now - API_ANON_SOURCE_RETENTION
    ).delete()
    minutes, _ = AnonymousMinute.objects.filter(
        bucket_start__lt=now - API_ANON_GLOBAL_RETENTION
    ).delete()
    return sources + minutes
