from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.db.models import Q

from omnium.models import UUIDModel
from omnium.triggers import never_truncated


class SubmissionKind(models.TextChoices):
    CORPUS_IMPORT = "corpus_import", "Corpus import"
    GAMES_IMPORT = "games_import", "Games import"
    LEAGUE_IMPORT = "league_import", "League import"
    BATCH = "batch", "Reviewed batch"
    HAND_ENTRY = "hand_entry", "Hand entry"


class Submission(UUIDModel):
    """Where a set of facts came from: one imported file, batch or hand entry.

    Lives in sports (not ingest) because ``Fixture.first_seen_in`` points at it and the
    public gate reads it; the ingest app creates these through ``submission_record``. A
    fixture is public only once the submission that first brought it is accepted.
    """

    kind = models.CharField(max_length=32, choices=SubmissionKind.choices)
    source_code = models.CharField(max_length=64)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    submitted_at = models.DateTimeField(auto_now_add=True)
    accepted = models.BooleanField(default=False)
    accepted_at = models.DateTimeField(null=True, blank=True)
    original_filename = models.CharField(max_length=512, blank=True)
    media_type = models.CharField(max_length=128, blank=True)
    byte_size = models.BigIntegerField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["-submitted_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(accepted=False, accepted_at__isnull=True)
                | Q(accepted=True, accepted_at__isnull=False),
                name="submission_acceptance_all_or_none",
            ),
            models.CheckConstraint(
                condition=Q(sha256="") | Q(sha256__regex=r"^[0-9a-f]{64}$"),
                name="submission_sha256_shape",
            ),
        ]
        indexes = [models.Index(fields=["source_code", "sha256"], name="submission_sha_idx")]
        triggers = [
            # Acceptance publishes what the submission brought (the public gate reads it), so
            # it is one transition, stamped in database time, and after it nothing changes.
            pgtrigger.Trigger(
                name="submission_accepted_once",
                when=pgtrigger.Before,
                operation=pgtrigger.Update | pgtrigger.Delete,
                func="""
                IF OLD.accepted THEN
                    RAISE EXCEPTION 'submission %: accepted, and an accepted submission never '
                        'changes or goes away', OLD.id USING ERRCODE = 'check_violation';
                END IF;
                IF TG_OP = 'DELETE' THEN
                    RETURN OLD;
                END IF;
                IF NOT NEW.accepted
                   OR to_jsonb(NEW) - 'accepted' - 'accepted_at'
                      IS DISTINCT FROM to_jsonb(OLD) - 'accepted' - 'accepted_at' THEN
                    RAISE EXCEPTION 'submission %: the one change allowed is its acceptance',
                        OLD.id USING ERRCODE = 'check_violation';
                END IF;
                NEW.accepted_at := now();
                RETURN NEW;
                """,
            ),
            never_truncated("submission_no_truncate"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.original_filename or self.pk}"
