"""The log: every change to a fixture (or a competition) appends one timeline item."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from omnium.bulk import Inserts
from sports.models import (
    Competition,
    Fixture,
    LedgerStream,
    Participant,
    SubjectKind,
    TimelineActor,
    TimelineItem,
    TimelineStatus,
)
from sports.services.common import Actor, actor_label, fixture_version_check


def _stream(kind: str, subject_id: uuid.UUID) -> LedgerStream:
    stream = LedgerStream.objects.filter(subject_kind=kind, subject_id=subject_id).first()
    if stream is not None:
        return stream
    try:
        with transaction.atomic():
            return LedgerStream.objects.create(subject_kind=kind, subject_id=subject_id)
    except IntegrityError:  # a concurrent writer created it first
        return LedgerStream.objects.get(subject_kind=kind, subject_id=subject_id)


@transaction.atomic
def timeline_append(
    *,
    event_type: str,
    actor: Actor,
    payload: dict[str, Any] | None = None,
    fixture: Fixture | None = None,
    competition: Competition | None = None,
    source_code: str | None = None,
    unit: str = "event",
    idempotency_key: str | None = None,
    participants: Iterable[tuple[Participant, str]] = (),
    supersedes: TimelineItem | None = None,
    expected_version: int | None = None,
    moves_version: bool = False,
) -> TimelineItem:
    """Append one item to the subject's log and return it.

    Holds the subject's row lock (the fixture row, or the competition's stream row) from the
    idempotency check to the insert, so positions are gap-free and ordered and a resent
    command with the same ``idempotency_key`` returns the first item instead of writing.
    ``expected_version`` (a fixture's only) is compared under that lock: another version
    refuses the append with ``FixtureVersionConflict``. The append leaves the version to
    the write it belongs to, unless that write says the append is where its fixture's
    version moves on (``moves_version``: a write to rows beside the fixture, such as a
    delivery correction, in the same update as the position).
    """
    if fixture is not None and competition is None:
        kind, subject_id = SubjectKind.FIXTURE, fixture.pk
    elif competition is not None and fixture is None:
        kind, subject_id = SubjectKind.COMPETITION, competition.pk
    else:
        raise ValidationError("A timeline item belongs to exactly one fixture or competition.")
    stream = _stream(kind, subject_id)

    # The lock that orders writers: taken before the idempotency check so that two copies of
    # one command cannot both pass it.
    if fixture is not None:
        version = (
            Fixture.objects.select_for_update()
            .filter(pk=fixture.pk)
            .values_list("version", flat=True)
            .get()
        )
    else:
        if expected_version is not None:
            raise ValidationError("Only a fixture's log is written against a version.")
        LedgerStream.objects.select_for_update().filter(pk=stream.pk).values_list("pk").get()

    if idempotency_key is not None:
        existing = TimelineItem.objects.filter(
            stream=stream, source_code=source_code, idempotency_key=idempotency_key
        ).first()
        if existing is not None:
            return existing  # a resend, whatever version it names
    if fixture is not None and expected_version is not None and version != expected_version:
        fixture.version = version
        fixture_version_check(fixture, expected_version)

    table = Fixture._meta.db_table if fixture is not None else LedgerStream._meta.db_table
    row_id = fixture.pk if fixture is not None else stream.pk
    bump = ", version = version + 1" if moves_version and fixture is not None else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET last_seq = last_seq + 1{bump} WHERE id = %s RETURNING last_seq",  # noqa: S608
            [row_id],
        )
        (seq,) = cursor.fetchone()
    if fixture is not None:
        fixture.last_seq = seq
        if bump:
            fixture.version = version + 1

    item = TimelineItem.objects.create(
        stream=stream,
        fixture=fixture,
        actor=actor_label(actor),
        source_code=source_code,
        event_type=event_type,
        unit=unit,
        seq=seq,
        payload=payload or {},
        status=TimelineStatus.CORRECTED if supersedes is not None else TimelineStatus.ACTIVE,
        supersedes=supersedes,
        idempotency_key=idempotency_key,
    )
    TimelineActor.objects.bulk_create(
        [TimelineActor(item=item, participant=p, role=role) for p, role in participants]
    )
    return item


@dataclass(frozen=True)
class LogEntry:
    """One item of a log being opened: what ``timeline_append`` takes, minus the subject."""

    event_type: str
    unit: str = "event"
    payload: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str | None = None


def timeline_open(
    *,
    entries: list[LogEntry],
    actor: Actor,
    fixture: Fixture | None = None,
    competition: Competition | None = None,
    source_code: str | None = None,
    inserts: Inserts | None = None,
) -> list[TimelineItem]:
    """Write the first items of a fixture or competition created in this transaction: its
    stream and the items, positions 1..n, without the lock and counter update an append
    needs. A fixture counts positions on its own row, so the caller saves it with
    ``last_seq = len(entries)`` first; a competition's stream is created already counted.
    Nothing else can have written to a subject nobody else can see yet, and the unique
    positions would refuse it anyway. With ``inserts``, the rows join the caller's batch
    instead of being written here."""
    if fixture is not None and competition is None:
        if fixture.last_seq != len(entries):
            raise ValidationError(
                f"{fixture} must be saved with last_seq={len(entries)} to open its log with "
                f"{len(entries)} item(s)."
            )
        stream = LedgerStream(subject_kind=SubjectKind.FIXTURE, subject_id=fixture.pk)
    elif competition is not None and fixture is None:
        stream = LedgerStream(
            subject_kind=SubjectKind.COMPETITION, subject_id=competition.pk, last_seq=len(entries)
        )
    else:
        raise ValidationError("A log belongs to exactly one fixture or competition.")
    label = actor_label(actor)
    items = [
        TimelineItem(
            stream=stream,
            fixture=fixture,
            actor=label,
            source_code=source_code,
            event_type=entry.event_type,
            unit=entry.unit,
            seq=seq,
            payload=entry.payload,
            idempotency_key=entry.idempotency_key,
        )
        for seq, entry in enumerate(entries, start=1)
    ]
    if inserts is not None:
        inserts.add(stream, *items)
        return items
    stream.save(force_insert=True)
    return TimelineItem.objects.bulk_create(items)
